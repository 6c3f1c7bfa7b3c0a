import { branchSha, mergeBase, resolveRef } from '../git.js';
import { blobSha, treeSha } from '../git-objects.js';
import { fileDiff } from '../line-diff.js';
import type { Commit, Repo } from '../model.js';
import { gitCommitJson, repoApiUrl, repoHtmlUrl } from '../render/repos.js';
import {
  HttpError,
  intParam,
  json,
  listResponse,
  notFound,
  param,
  repoOf,
  type ApiRequest,
  type Handler,
} from '../server/http.js';

// GitHub lists at most this many files of a pull request (`GET /pulls/{n}/files`, its docs).
const PULL_FILES_LIMIT = 3000;

/**
 * `GET /git/trees/{tree_sha}`: a commit's root tree, named by the commit's sha, a ref, or the
 * tree's own sha (GitHub takes "the SHA1 value or ref name for that tree"). With `recursive`
 * (any value, even `0` or `false`, as GitHub reads it) every blob and subtree, each subtree
 * before its contents; past `core.treeEntryLimit` entries (GitHub's 100,000) the listing stops
 * and says `truncated`. Subtrees by their own sha are not modelled (404).
 */
function getTree(req: ApiRequest): ReturnType<Handler> {
  const repo = repoOf(req);
  const name = param(req, 'tree_sha');
  const commit = commitOf(repo, name);
  if (!commit) throw notFound();
  const recursive = req.query.has('recursive');
  const entries: Array<Record<string, unknown>> = [];
  const dirs = new Set<string>();
  let truncated = false;
  const api = repoApiUrl(req.core, repo);
  const push = (entry: Record<string, unknown>): boolean => {
    if (entries.length >= req.core.treeEntryLimit) {
      truncated = true;
      return false;
    }
    entries.push(entry);
    return true;
  };
  for (const path of Object.keys(commit.tree).sort()) {
    const parts = path.split('/');
    if (!recursive && parts.length > 1) {
      const dir = parts[0]!;
      if (!dirs.has(dir)) {
        dirs.add(dir);
        if (!push(treeEntry(api, commit, dir))) break;
      }
      continue;
    }
    let stop = false;
    for (let i = 1; i < parts.length && !stop; i++) {
      const dir = parts.slice(0, i).join('/');
      if (dirs.has(dir)) continue;
      dirs.add(dir);
      stop = !push(treeEntry(api, commit, dir));
    }
    if (stop) break;
    const content = commit.tree[path]!;
    const sha = blobSha(content);
    if (
      !push({
        path,
        mode: '100644',
        type: 'blob',
        sha,
        size: Buffer.byteLength(content, 'utf8'),
        url: `${api}/git/blobs/${sha}`,
      })
    )
      break;
  }
  return json(200, {
    sha: commit.treeSha,
    url: `${api}/git/trees/${commit.treeSha}`,
    tree: entries,
    truncated,
  });
}

function commitOf(repo: Repo, name: string): Commit | undefined {
  const sha = resolveRef(repo, name);
  const commit = sha ? repo.commits.get(sha) : undefined;
  if (commit) return commit;
  for (const c of repo.commits.values()) if (c.treeSha === name) return c;
  return undefined;
}

function treeEntry(api: string, commit: Commit, dir: string): Record<string, unknown> {
  const prefix = `${dir}/`;
  const sub = Object.fromEntries(
    Object.entries(commit.tree)
      .filter(([p]) => p.startsWith(prefix))
      .map(([p, content]) => [p.slice(prefix.length), content]),
  );
  const sha = treeSha(sub);
  return { path: dir, mode: '040000', type: 'tree', sha, url: `${api}/git/trees/${sha}` };
}

/**
 * `GET /pulls/{n}/files`: the files the PR's head changes against its merge base with the base
 * branch (GitHub's three-dot diff), paginated (30 a page by default, 100 at most), at most 3000.
 * A merged PR's list is not kept as it was at its merge: it is worked out from the branches now.
 */
function listPullFiles(req: ApiRequest): ReturnType<Handler> {
  const repo = repoOf(req);
  const pull = repo.pulls.get(intParam(req, 'pull_number'));
  if (!pull) throw notFound();
  const head = repo.commits.get(pull.headSha);
  const baseHead = branchSha(repo, pull.baseRef);
  if (!head || !baseHead) throw new HttpError(404, 'Not Found');
  const base = repo.commits.get(mergeBase(repo, baseHead, pull.headSha) ?? baseHead);
  const before = base?.tree ?? {};
  const after = head.tree;
  const paths = [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((p) => before[p] !== after[p])
    .sort()
    .slice(0, PULL_FILES_LIMIT);
  const html = repoHtmlUrl(req.core, repo);
  const api = repoApiUrl(req.core, repo);
  return listResponse(req, paths, (path) => {
    const old = before[path];
    const now = after[path];
    let additions = 0;
    let deletions = 0;
    for (const hunk of fileDiff(old, now).hunks)
      for (const line of hunk.lines) {
        if (line.kind === '+') additions++;
        else if (line.kind === '-') deletions++;
      }
    const ref = now === undefined ? (base?.sha ?? baseHead) : head.sha;
    return {
      sha: now === undefined ? null : blobSha(now),
      filename: path,
      status: old === undefined ? 'added' : now === undefined ? 'removed' : 'modified',
      additions,
      deletions,
      changes: additions + deletions,
      blob_url: `${html}/blob/${ref}/${path}`,
      raw_url: `${html}/raw/${ref}/${path}`,
      contents_url: `${api}/contents/${path}?ref=${ref}`,
    };
  });
}

/**
 * `GET /git/commits/{commit_sha}`: a commit object by its sha (a ref is not looked up), with its
 * parents in order. The double signs nothing: every commit reads `unsigned`.
 */
function getGitCommit(req: ApiRequest): ReturnType<Handler> {
  const repo = repoOf(req);
  const commit = repo.commits.get(param(req, 'commit_sha').toLowerCase());
  if (!commit) throw notFound();
  return json(200, gitCommitJson(req.core, repo, commit));
}

export const treeAndFileRoutes: [string, Handler][] = [
  ['GET /repos/{owner}/{repo}/git/commits/{commit_sha}', getGitCommit],
  ['GET /repos/{owner}/{repo}/git/trees/{tree_sha}', getTree],
  ['GET /repos/{owner}/{repo}/pulls/{pull_number}/files', listPullFiles],
];
