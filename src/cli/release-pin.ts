import type { GitHubRepo } from './templates.js';

export type ReleaseCommit = { ok: true; sha: string } | { ok: false; why: string };

interface GitObject {
  object?: { type?: string; sha?: string };
}

/**
 * The commit a release tag points at, read from GitHub's git database: `GET
 * /repos/{owner}/{repo}/git/ref/tags/{tag}` answers the tag's object, which for an annotated
 * tag is a tag object, dereferenced through `GET /repos/{owner}/{repo}/git/tags/{sha}`.
 */
export async function releaseCommit(
  project: GitHubRepo,
  tag: string,
  env: NodeJS.ProcessEnv,
): Promise<ReleaseCommit> {
  const api = (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, '');
  const base = `${api}/repos/${project.owner}/${project.repo}/git`;
  const token = env.GH_TOKEN || env.GITHUB_TOKEN;
  const get = async (path: string): Promise<GitObject | string> => {
    try {
      const response = await fetch(`${base}/${path}`, {
        headers: {
          Accept: 'application/vnd.github+json',
          'User-Agent': 'agent-coordinator-init',
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
        },
        signal: AbortSignal.timeout(15_000),
      });
      if (!response.ok) return `GitHub answered ${response.status} for ${path}`;
      return (await response.json()) as GitObject;
    } catch (error) {
      return `could not reach ${api}: ${(error as Error).message}`;
    }
  };

  let answer = await get(`ref/tags/${encodeURIComponent(tag)}`);
  // A tag may point at another tag; a few hops is all anyone makes.
  for (let hops = 0; hops < 5; hops++) {
    if (typeof answer === 'string') return { ok: false, why: answer };
    const { type, sha } = answer.object ?? {};
    if (!sha || !/^[0-9a-f]{40}$/.test(sha)) return { ok: false, why: 'no object in the answer' };
    if (type === 'commit') return { ok: true, sha };
    if (type !== 'tag')
      return { ok: false, why: `the tag points at a ${type ?? 'unknown object'}` };
    answer = await get(`tags/${sha}`);
  }
  return { ok: false, why: 'too many nested tags' };
}
