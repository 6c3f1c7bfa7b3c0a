import { branchSha, compare } from '../git.js';
import { gitCredential } from '../server/git-access.js';
import type { Pull } from '../model.js';
import { editIssue, type IssueEdit } from '../ops/issues.js';
import {
  changeBase,
  createReview,
  dismissReview,
  mergePull,
  openPull,
  removeRequestedReviewers,
  replyToReviewComment,
  requestReviewers,
  type MergeMethod,
  type ReviewEvent,
  type ReviewInput,
} from '../ops/pulls.js';
import type { DraftComment } from '../ops/review-threads.js';
import { updateBranch } from '../ops/update-branch.js';
import { userJson } from '../render/accounts.js';
import { pullJson, pullSimpleJson, reviewJson } from '../render/pulls.js';
import { reviewCommentJson } from '../render/review-comments.js';
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

// The body's `comments[]`, already checked against the spec's shape by the server.
function draftComments(body: Record<string, unknown>): DraftComment[] | undefined {
  const raw = body['comments'];
  if (!Array.isArray(raw)) return undefined;
  return raw.map((item) => {
    const c = item as Record<string, unknown>;
    const draft: DraftComment = { path: String(c['path']), body: String(c['body']) };
    if (typeof c['line'] === 'number') draft.line = c['line'];
    if (typeof c['position'] === 'number') draft.position = c['position'];
    if (typeof c['start_line'] === 'number') draft.startLine = c['start_line'];
    const side = str(c, 'side');
    const startSide = str(c, 'start_side');
    for (const s of [side, startSide])
      if (s !== undefined && s !== 'LEFT' && s !== 'RIGHT')
        throw validationFailed('Validation Failed', [
          { resource: 'PullRequestReviewComment', field: 'side', code: 'invalid' },
        ]);
    if (side) draft.side = side as 'LEFT' | 'RIGHT';
    if (startSide) draft.startSide = startSide as 'LEFT' | 'RIGHT';
    return draft;
  });
}

function reviewerLogins(req: ApiRequest): string[] {
  const body = bodyObject(req);
  if (Array.isArray(body['team_reviewers']) && body['team_reviewers'].length > 0)
    throw new Error('github double: team review requests are not modelled');
  return Array.isArray(body['reviewers']) ? body['reviewers'].map(String) : [];
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
      const token = gitCredential(req.core, req.headers.authorization, repo);
      updateBranch(
        req.core,
        repo,
        pull,
        actorOf(req),
        str(bodyObject(req), 'expected_head_sha'),
        token.kind === 'token' && token.workflows,
      );
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
    'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}',
    (req) => {
      const repo = repoOf(req);
      const pull = pullOf(req);
      const review = pull.reviews.find((r) => r.id === intParam(req, 'review_id'));
      if (!review) throw notFound();
      return json(200, reviewJson(req.core, repo, pull, review));
    },
  ],
  [
    'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
    (req) => {
      const repo = repoOf(req);
      const pull = pullOf(req);
      const body = bodyObject(req);
      const input: ReviewInput = {};
      const comments = draftComments(body);
      if (comments) input.comments = comments;
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
    // `message` is required (the body's schema, checked before any handler runs).
    'PUT /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/dismissals',
    (req) => {
      const repo = repoOf(req);
      const pull = pullOf(req);
      const { review } = dismissReview(
        req.core,
        repo,
        pull,
        intParam(req, 'review_id'),
        actorOf(req),
      );
      return json(200, reviewJson(req.core, repo, pull, review));
    },
  ],
  [
    'GET /repos/{owner}/{repo}/pulls/{pull_number}/comments',
    (req) => {
      const repo = repoOf(req);
      const pull = pullOf(req);
      const comments = pull.threads.flatMap((t) => t.comments).sort((a, b) => a.id - b.id);
      return listResponse(req, comments, (c) => reviewCommentJson(req.core, repo, pull, c));
    },
  ],
  [
    // With `in_reply_to` GitHub ignores every field but `body` and answers as the replies route
    // does; the worker replies this way (the `/replies` route is not enabled for GitHub Apps).
    'POST /repos/{owner}/{repo}/pulls/{pull_number}/comments',
    (req) => {
      const repo = repoOf(req);
      const pull = pullOf(req);
      const body = bodyObject(req);
      const inReplyTo = body['in_reply_to'];
      if (typeof inReplyTo !== 'number')
        throw new Error(
          'github double: a review comment that opens a thread is not modelled; use POST .../reviews with comments[]',
        );
      const { comment } = replyToReviewComment(
        req.core,
        repo,
        pull,
        inReplyTo,
        actorOf(req),
        str(body, 'body') ?? '',
      );
      return json(201, reviewCommentJson(req.core, repo, pull, comment));
    },
  ],
  [
    'POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies',
    (req) => {
      const repo = repoOf(req);
      const pull = pullOf(req);
      const { comment } = replyToReviewComment(
        req.core,
        repo,
        pull,
        intParam(req, 'comment_id'),
        actorOf(req),
        str(bodyObject(req), 'body') ?? '',
      );
      return json(201, reviewCommentJson(req.core, repo, pull, comment));
    },
  ],
  [
    'GET /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers',
    (req) =>
      json(200, {
        users: pullOf(req).requestedReviewers.map((a) => userJson(req.core, a)),
        teams: [],
      }),
  ],
  [
    'POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers',
    (req) => {
      const repo = repoOf(req);
      const pull = pullOf(req);
      requestReviewers(req.core, repo, pull, reviewerLogins(req), actorOf(req));
      return json(201, pullSimpleJson(req.core, repo, pull));
    },
  ],
  [
    'DELETE /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers',
    (req) => {
      const repo = repoOf(req);
      const pull = pullOf(req);
      removeRequestedReviewers(req.core, repo, pull, reviewerLogins(req), actorOf(req));
      return json(200, pullSimpleJson(req.core, repo, pull));
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
