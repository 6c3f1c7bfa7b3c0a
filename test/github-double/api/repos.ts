import { branchSha, compare, isAncestor, resolveRef } from '../git.js';
import { blobSha, treeSha } from '../git-objects.js';
import type { Core } from '../core.js';
import type { Repo } from '../model.js';
import { mergeIntoBranch } from '../ops/merges.js';
import { openPullsWithHead } from '../ops/pull-events.js';
import { gitCredential } from '../server/git-access.js';
import { legacyPermission, roleOf } from '../ops/repos.js';
import { deleteBranch, moveBranch, refJson } from '../ops/refs.js';
import { userJson } from '../render/accounts.js';
import { commitJson, repoApiUrl, repoHtmlUrl, repoJson } from '../render/repos.js';
import {
  actorOf,
  bodyObject,
  HttpError,
  json,
  listResponse,
  notFound,
  param,
  repoOf,
  str,
  validationFailed,
  type ApiRequest,
  type Handler,
} from '../server/http.js';

function subtree(tree: Readonly<Record<string, string>>, prefix: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(tree)
      .filter(([p]) => p.startsWith(prefix))
      .map(([p, content]) => [p.slice(prefix.length), content]),
  );
}

function fileJson(
  req: ApiRequest,
  repo: Repo,
  path: string,
  content: string,
  ref: string,
): Record<string, unknown> {
  const api = `${repoApiUrl(req.core, repo)}/contents/${path}`;
  const sha = blobSha(content);
  const html = `${repoHtmlUrl(req.core, repo)}/blob/${ref}/${path}`;
  const git = `${repoApiUrl(req.core, repo)}/git/blobs/${sha}`;
  return {
    type: 'file',
    encoding: 'base64',
    size: Buffer.byteLength(content),
    name: path.split('/').pop() ?? path,
    path,
    content:
      (
        Buffer.from(content)
          .toString('base64')
          .match(/.{1,60}/g) ?? []
      ).join('\n') + '\n',
    sha,
    url: `${api}?ref=${ref}`,
    git_url: git,
    html_url: html,
    download_url: `${req.core.url}/raw/${repo.fullName}/${ref}/${path}`,
    _links: { self: `${api}?ref=${ref}`, git, html },
  };
}

function getContents(req: ApiRequest): ReturnType<Handler> {
  const repo = repoOf(req);
  const path = param(req, 'path').replace(/^\/+|\/+$/g, '');
  const ref = req.query.get('ref') ?? repo.defaultBranch;
  const sha = resolveRef(repo, ref);
  if (!sha) throw new HttpError(404, `No commit found for the ref ${ref}`);
  const tree = repo.commits.get(sha)?.tree ?? {};
  const content = tree[path];
  const accept = String(req.headers.accept ?? '');
  if (content !== undefined) {
    if (/\.raw/.test(accept))
      return {
        status: 200,
        text: { contentType: 'application/vnd.github.raw; charset=utf-8', content },
      };
    return json(200, fileJson(req, repo, path, content, ref));
  }
  const prefix = path === '' ? '' : `${path}/`;
  const children = new Map<string, 'file' | 'dir'>();
  for (const p of Object.keys(tree)) {
    if (!p.startsWith(prefix)) continue;
    const rest = p.slice(prefix.length).split('/');
    const first = rest[0];
    if (first) children.set(first, rest.length > 1 ? 'dir' : 'file');
  }
  if (children.size === 0) throw notFound();
  return json(
    200,
    [...children].map(([name, type]) => {
      const full = `${prefix}${name}`;
      const file = type === 'file' ? fileJson(req, repo, full, tree[full] ?? '', ref) : undefined;
      return {
        type,
        size: file ? file['size'] : 0,
        name,
        path: full,
        sha: file ? file['sha'] : treeSha(subtree(tree, `${full}/`)),
        url: `${repoApiUrl(req.core, repo)}/contents/${full}?ref=${ref}`,
        git_url: null,
        html_url: null,
        download_url: null,
        _links: {
          self: `${repoApiUrl(req.core, repo)}/contents/${full}?ref=${ref}`,
          git: null,
          html: null,
        },
      };
    }),
  );
}

function branchJson(
  req: ApiRequest,
  repo: Repo,
  name: string,
  sha: string,
): Record<string, unknown> {
  const c = repo.commits.get(sha);
  const protection = repo.protection.get(name);
  const api = `${repoApiUrl(req.core, repo)}/branches/${name}`;
  return {
    name,
    commit: c ? commitJson(req.core, repo, c) : { sha },
    _links: { self: api, html: `${repoHtmlUrl(req.core, repo)}/tree/${name}` },
    protected: protection !== undefined,
    protection: {
      enabled: protection !== undefined,
      required_status_checks: {
        enforcement_level: protection ? 'non_admins' : 'off',
        contexts: protection?.requiredChecks ?? [],
        checks: (protection?.requiredChecks ?? []).map((context) => ({
          context,
          app_id: protection?.requiredCheckApps.get(context) ?? null,
        })),
        strict: protection?.strict ?? false,
      },
    },
    protection_url: `${api}/protection`,
  };
}

// Full ref names only: GitHub wants refs/heads/x with at least two slashes.
function shortRef(ref: string): string {
  if (!/^refs\/[^/]+\/.+/.test(ref))
    throw validationFailed("Reference name must start with 'refs/' and have at least two slashes.");
  return ref.slice('refs/'.length);
}

function branchOf(short: string): string | undefined {
  return short.startsWith('heads/') ? short.slice('heads/'.length) : undefined;
}

export const repoRoutes: [string, Handler][] = [
  ['GET /repos/{owner}/{repo}', (req) => json(200, repoJson(req.core, repoOf(req)))],
  [
    'GET /repos/{owner}/{repo}/collaborators/{username}/permission',
    (req) => {
      const repo = repoOf(req);
      const login = param(req, 'username');
      const role = roleOf(repo, login);
      return json(200, {
        permission: legacyPermission(role),
        role_name: role,
        user: {
          ...userJson(req.core, req.core.account(login)),
          permissions: {
            admin: role === 'admin',
            maintain: role === 'admin' || role === 'maintain',
            push: ['admin', 'maintain', 'write'].includes(role),
            triage: role !== 'read' && role !== 'none',
            pull: role !== 'none',
          },
          role_name: role,
        },
      });
    },
  ],
  ['GET /repos/{owner}/{repo}/contents/{path}', getContents],
  [
    'GET /repos/{owner}/{repo}/git/ref/{ref}',
    (req) => {
      const repo = repoOf(req);
      const ref = param(req, 'ref').replace(/^refs\//, '');
      const sha = repo.refs.get(ref);
      if (!sha) throw notFound();
      return json(200, refJson(req.core, repo, ref, sha));
    },
  ],
  [
    'GET /repos/{owner}/{repo}/git/matching-refs/{ref}',
    (req) => {
      const repo = repoOf(req);
      const prefix = param(req, 'ref').replace(/^refs\//, '');
      const found = [...repo.refs]
        .filter(([r]) => r.startsWith(prefix))
        .sort(([a], [b]) => a.localeCompare(b));
      return json(
        200,
        found.map(([r, sha]) => refJson(req.core, repo, r, sha)),
      );
    },
  ],
  [
    'POST /repos/{owner}/{repo}/git/refs',
    (req) => {
      const repo = repoOf(req);
      const body = bodyObject(req);
      const short = shortRef(str(body, 'ref') ?? '');
      const sha = str(body, 'sha') ?? '';
      if (repo.refs.has(short)) throw validationFailed('Reference already exists');
      if (!repo.commits.has(sha)) throw validationFailed('Object does not exist');
      const branch = branchOf(short);
      if (branch) moveBranch(req.core, repo, branch, sha, actorOf(req));
      else repo.refs.set(short, sha);
      return json(201, refJson(req.core, repo, short, sha));
    },
  ],
  [
    'PATCH /repos/{owner}/{repo}/git/refs/{ref}',
    (req) => {
      const repo = repoOf(req);
      const short = param(req, 'ref').replace(/^refs\//, '');
      const body = bodyObject(req);
      const sha = str(body, 'sha') ?? '';
      const current = repo.refs.get(short);
      if (!current) throw validationFailed('Reference does not exist');
      if (!repo.commits.has(sha)) throw validationFailed('Object does not exist');
      if (body['force'] !== true && !isAncestor(repo, current, sha))
        throw validationFailed('Update is not a fast forward');
      const branch = branchOf(short);
      if (branch) moveBranch(req.core, repo, branch, sha, actorOf(req));
      else repo.refs.set(short, sha);
      return json(200, refJson(req.core, repo, short, sha));
    },
  ],
  [
    'DELETE /repos/{owner}/{repo}/git/refs/{ref}',
    (req) => {
      const repo = repoOf(req);
      const short = param(req, 'ref').replace(/^refs\//, '');
      if (!repo.refs.has(short)) throw validationFailed('Reference does not exist');
      const branch = branchOf(short);
      if (branch) deleteBranch(req.core, repo, branch, actorOf(req));
      else repo.refs.delete(short);
      return { status: 204 };
    },
  ],
  [
    'GET /repos/{owner}/{repo}/branches',
    (req) => {
      const repo = repoOf(req);
      const branches = [...repo.refs]
        .filter(([r]) => r.startsWith('heads/'))
        .map(([r, sha]) => ({ name: r.slice(6), sha }));
      branches.sort((a, b) => a.name.localeCompare(b.name));
      return listResponse(req, branches, (b) => ({
        name: b.name,
        commit: { sha: b.sha, url: `${repoApiUrl(req.core, repo)}/commits/${b.sha}` },
        protected: repo.protection.has(b.name),
      }));
    },
  ],
  [
    'GET /repos/{owner}/{repo}/branches/{branch}',
    (req) => {
      const repo = repoOf(req);
      const name = param(req, 'branch');
      const sha = branchSha(repo, name);
      if (!sha) throw new HttpError(404, 'Branch not found');
      return json(200, branchJson(req, repo, name, sha));
    },
  ],
  [
    'GET /repos/{owner}/{repo}/commits/{ref}',
    (req) => {
      const repo = repoOf(req);
      const ref = param(req, 'ref');
      const sha = resolveRef(repo, ref);
      const c = sha ? repo.commits.get(sha) : undefined;
      if (!c) throw validationFailed(`No commit found for SHA: ${ref}`);
      return json(200, {
        ...commitJson(req.core, repo, c),
        stats: { additions: 0, deletions: 0, total: 0 },
        files: [],
      });
    },
  ],
  [
    'GET /repos/{owner}/{repo}/compare/{basehead}',
    (req) => {
      const repo = repoOf(req);
      const basehead = param(req, 'basehead');
      const m = /^(.+?)\.\.\.(.+)$/.exec(basehead);
      if (!m?.[1] || !m[2]) throw notFound();
      const base = resolveRef(repo, m[1].replace(/^[^:]+:/, ''));
      const head = resolveRef(repo, m[2].replace(/^[^:]+:/, ''));
      if (!base || !head) throw notFound();
      const cmp = compare(repo, base, head);
      const baseCommit = repo.commits.get(base);
      const mb = repo.commits.get(cmp.mergeBase ?? '') ?? baseCommit;
      if (!baseCommit || !mb) throw notFound();
      const html = `${repoHtmlUrl(req.core, repo)}/compare/${basehead}`;
      return json(200, {
        url: `${repoApiUrl(req.core, repo)}/compare/${basehead}`,
        html_url: html,
        permalink_url: `${repoHtmlUrl(req.core, repo)}/compare/${base.slice(0, 7)}...${head.slice(0, 7)}`,
        diff_url: `${html}.diff`,
        patch_url: `${html}.patch`,
        base_commit: commitJson(req.core, repo, baseCommit),
        merge_base_commit: commitJson(req.core, repo, mb),
        status: cmp.status,
        ahead_by: cmp.aheadBy,
        behind_by: cmp.behindBy,
        total_commits: cmp.aheadBy,
        commits: cmp.commits
          .map((s) => repo.commits.get(s))
          .filter((c) => c !== undefined)
          .map((c) => commitJson(req.core, repo, c)),
        files: [],
      });
    },
  ],
  [
    'POST /repos/{owner}/{repo}/merges',
    async (req) => {
      const repo = repoOf(req);
      const body = bodyObject(req);
      const base = str(body, 'base');
      const head = str(body, 'head');
      if (base === undefined || head === undefined)
        throw validationFailed('Invalid request.', [
          { resource: 'Merge', field: base === undefined ? 'base' : 'head', code: 'missing_field' },
        ]);
      const token = gitCredential(req.core, req.headers.authorization, repo);
      const input = { base, head, message: str(body, 'commit_message') };
      const merge = () =>
        mergeIntoBranch(
          req.core,
          repo,
          input,
          actorOf(req),
          token.kind === 'token' && token.workflows,
        );
      const made = req.core.deferBranchUpdates
        ? await heldMerge(req.core, repo, base, merge)
        : merge();
      return made === null ? { status: 204 } : json(201, commitJson(req.core, repo, made.commit));
    },
  ],
];

/**
 * A merge into a PR's branch held until `releaseBranchUpdates` (`core.deferBranchUpdates`): GitHub
 * answers it once it has merged, into the branch as it is then, and a push may land first; its
 * push's webhooks may reach the caller before the answer does.
 */
function heldMerge(
  core: Core,
  repo: Repo,
  branch: string,
  merge: () => ReturnType<typeof mergeIntoBranch>,
): Promise<ReturnType<typeof mergeIntoBranch>> {
  return new Promise((resolve, reject) => {
    core.heldBranchUpdates.push({
      repo: repo.fullName,
      number: openPullsWithHead(core, repo, branch)[0]?.pull.number ?? 0,
      land: (answerAfter = Promise.resolve()) => {
        try {
          const made = merge();
          void answerAfter.then(() => resolve(made));
          return made === null ? { sent: [] } : { sha: made.commit.sha, sent: made.sent };
        } catch (error) {
          void answerAfter.then(() =>
            reject(error instanceof Error ? error : new Error(String(error))),
          );
          return { sent: [] };
        }
      },
    });
    core.changed('branch-update-held', { repo: repo.fullName, branch });
  });
}
