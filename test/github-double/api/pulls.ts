import { branchSha, compare } from '../git.js';
import type { Pull } from '../model.js';
import { editIssue, type IssueEdit } from '../ops/issues.js';
import {
  changeBase,
  createReview,
  mergePull,
  openPull,
  updateBranch,
  type MergeMethod,
  type ReviewEvent,
} from '../ops/pulls.js';
import { pullJson, pullSimpleJson, reviewJson } from '../render/pulls.js';
import { commitJson } from '../render/repos.js';
import {
  actorOf,
  bodyObject,
  intParam,
  json,
  listResponse,
  notFound,
  repoOf,
  str,
  validationFailed,
  type ApiRequest,
  type Handler,
} from '../server/http.js';

function pullOf(req: ApiRequest): Pull {
  const pull = repoOf(req).pulls.get(intParam(req, 'pull_number'));
  if (!pull) throw notFound();
  return pull;
}

function listPulls(req: ApiRequest): ReturnType<Handler> {
  const repo = repoOf(req);
  const state = req.query.get('state') ?? 'open';
  const head = req.query.get('head');
  const base = req.query.get('base');
  let headFilter: { owner: string; ref: string } | undefined;
  if (head) {
    const m = /^([^:]+):(.+)$/.exec(head);
    if (m?.[1] && m[2]) headFilter = { owner: m[1].toLowerCase(), ref: m[2] };
    else {
      // GitHub silently ignores a head filter without "owner:", returning every PR.
      req.core.violation(
        'suspicious-request',
        req.method,
        req.path,
        `head=${head} lacks the "owner:" prefix; GitHub ignores it and lists all pull requests`,
      );
    }
  }
  const sort = req.query.get('sort') ?? 'created';
  const direction = req.query.get('direction') ?? (sort === 'created' ? 'desc' : 'desc');
  const pulls = [...repo.pulls.values()]
    .filter((p) => state === 'all' || p.issue.state === state)
    .filter((p) => !base || p.baseRef === base)
    .filter(
      (p) =>
        !headFilter ||
        (p.headRepo.owner.login.toLowerCase() === headFilter.owner && p.headRef === headFilter.ref),
    )
    .sort((a, b) => {
      const key =
        sort === 'updated'
          ? a.issue.updatedAt.localeCompare(b.issue.updatedAt) || a.number - b.number
          : a.number - b.number;
      return direction === 'asc' ? key : -key;
    });
  return listResponse(req, pulls, (p) => pullSimpleJson(req.core, repo, p));
}

export const pullRoutes: [string, Handler][] = [
  ['GET /repos/{owner}/{repo}/pulls', listPulls],
  [
    'POST /repos/{owner}/{repo}/pulls',
    (req) => {
      const repo = repoOf(req);
      const body = bodyObject(req);
      const headSpec = str(body, 'head') ?? '';
      const m = /^([^:]+):(.+)$/.exec(headSpec);
      const headOwner = m?.[1];
      const headRef = m?.[2] ?? headSpec;
      const headRepo =
        headOwner && headOwner.toLowerCase() !== repo.owner.login.toLowerCase()
          ? req.core.findRepo(`${headOwner}/${repo.name}`)
          : repo;
      if (!headRepo)
        throw validationFailed('Validation Failed', [
          { resource: 'PullRequest', field: 'head', code: 'invalid' },
        ]);
      const title = str(body, 'title');
      if (!title)
        throw validationFailed('Validation Failed', [
          { resource: 'PullRequest', field: 'title', code: 'missing_field' },
        ]);
      const { pull } = openPull(req.core, repo, {
        headRepo,
        headRef,
        baseRef: str(body, 'base') ?? '',
        title,
        body: str(body, 'body') ?? null,
        by: actorOf(req),
        draft: body['draft'] === true,
        maintainerCanModify: body['maintainer_can_modify'] !== false,
      });
      return json(201, pullJson(req.core, repo, pull));
    },
  ],
  [
    'GET /repos/{owner}/{repo}/pulls/{pull_number}',
    (req) => {
      const pull = pullOf(req);
      const body = pullJson(req.core, repoOf(req), pull);
      if (pull.unknownReads > 0) pull.unknownReads -= 1;
      return json(200, body);
    },
  ],
  [
    'PATCH /repos/{owner}/{repo}/pulls/{pull_number}',
    (req) => {
      const repo = repoOf(req);
      const pull = pullOf(req);
      const body = bodyObject(req);
      const actor = actorOf(req);
      const edit: IssueEdit = {};
      const title = str(body, 'title');
      if (title !== undefined) edit.title = title;
      if (body['body'] !== undefined)
        edit.body = body['body'] === null ? null : String(body['body']);
      const state = str(body, 'state');
      if (state === 'open' || state === 'closed') edit.state = state;
      const base = str(body, 'base');
      if (base !== undefined) changeBase(req.core, repo, pull, base, actor);
      editIssue(req.core, repo, pull.issue, edit, actor);
      return json(200, pullJson(req.core, repo, pull));
    },
  ],
  [
    'GET /repos/{owner}/{repo}/pulls/{pull_number}/merge',
    (req) =>
      pullOf(req).merged ? { status: 204 } : { status: 404, body: { message: 'Not Found' } },
  ],
  [
    'PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge',
    (req) => {
      const body = bodyObject(req);
      const method = (str(body, 'merge_method') ?? 'merge') as MergeMethod;
      const input: Parameters<typeof mergePull>[4] = { method };
      const sha = str(body, 'sha');
      if (sha !== undefined) input.sha = sha;
      const commitTitle = str(body, 'commit_title');
      if (commitTitle !== undefined) input.commitTitle = commitTitle;
      const commitMessage = str(body, 'commit_message');
      if (commitMessage !== undefined) input.commitMessage = commitMessage;
      const result = mergePull(req.core, repoOf(req), pullOf(req), actorOf(req), input);
      return json(200, {
        sha: result.sha,
        merged: true,
        message: 'Pull Request successfully merged',
      });
    },
  ],
  [
    'PUT /repos/{owner}/{repo}/pulls/{pull_number}/update-branch',
    (req) => {
      const repo = repoOf(req);
      const pull = pullOf(req);
      updateBranch(req.core, repo, pull, actorOf(req), str(bodyObject(req), 'expected_head_sha'));
      return json(202, {
        message: 'Updating pull request branch.',
        url: `${req.core.url}/${repo.fullName}/pull/${pull.number}`,
      });
    },
  ],
  [
    'GET /repos/{owner}/{repo}/pulls/{pull_number}/commits',
    (req) => {
      const repo = repoOf(req);
      const pull = pullOf(req);
      const base = branchSha(repo, pull.baseRef) ?? pull.headSha;
      const commits = compare(repo, base, pull.headSha)
        .commits.map((s) => repo.commits.get(s))
        .filter((c) => c !== undefined);
      return listResponse(req, commits, (c) => commitJson(req.core, repo, c));
    },
  ],
  [
    'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
    (req) => {
      const repo = repoOf(req);
      const pull = pullOf(req);
      return listResponse(req, pull.reviews, (r) => reviewJson(req.core, repo, pull, r));
    },
  ],
  [
    'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
    (req) => {
      const repo = repoOf(req);
      const pull = pullOf(req);
      const body = bodyObject(req);
      const input: Parameters<typeof createReview>[4] = {};
      const event = str(body, 'event');
      if (event) input.event = event as ReviewEvent;
      const text = str(body, 'body');
      if (text !== undefined) input.body = text;
      const commitId = str(body, 'commit_id');
      if (commitId !== undefined) input.commitId = commitId;
      const { review } = createReview(req.core, repo, pull, actorOf(req), input);
      return json(200, reviewJson(req.core, repo, pull, review));
    },
  ],
  [
    'GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls',
    (req) => {
      const repo = repoOf(req);
      const sha = req.params['commit_sha'] ?? '';
      const pulls = [...repo.pulls.values()].filter(
        (p) => p.headSha === sha || p.mergeCommitSha === sha,
      );
      return listResponse(req, pulls, (p) => pullSimpleJson(req.core, repo, p));
    },
  ],
];
