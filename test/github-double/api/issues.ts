import type { Issue, IssueComment, Repo } from '../model.js';
import {
  addLabels,
  addReaction,
  createComment,
  deleteComment,
  editComment,
  editIssue,
  openIssue,
  removeLabel,
  setLabels,
  type IssueEdit,
} from '../ops/issues.js';
import { commentJson, issueJson, labelJson, reactionJson } from '../render/issues.js';
import {
  actorOf,
  bodyObject,
  HttpError,
  intParam,
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

function issueOf(req: ApiRequest): Issue {
  const issue = repoOf(req).issues.get(intParam(req, 'issue_number'));
  if (!issue) throw notFound();
  return issue;
}

function commentOf(req: ApiRequest): IssueComment {
  const comment = repoOf(req).comments.get(intParam(req, 'comment_id'));
  if (!comment) throw notFound();
  return comment;
}

function appOf(req: ApiRequest) {
  return req.auth.kind === 'installation' ? req.core.app : null;
}

// Labels may come as ["a"], {labels: ["a"]} or {labels: [{name: "a"}]}.
function labelNames(body: unknown): string[] {
  const list = Array.isArray(body) ? body : (body as { labels?: unknown } | undefined)?.labels;
  if (!Array.isArray(list)) return [];
  return list.map((l) =>
    typeof l === 'string' ? l : String((l as { name?: unknown }).name ?? ''),
  );
}

function labelsOf(req: ApiRequest, repo: Repo, issue: Issue): ReturnType<Handler> {
  return json(
    200,
    issue.labels.map((l) => labelJson(req.core, repo, l)),
  );
}

const REACTIONS = new Set(['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'rocket', 'eyes']);

export const issueRoutes: [string, Handler][] = [
  [
    'GET /repos/{owner}/{repo}/issues',
    (req) => {
      const repo = repoOf(req);
      const state = req.query.get('state') ?? 'open';
      const labels = (req.query.get('labels') ?? '')
        .split(',')
        .filter(Boolean)
        .map((l) => l.toLowerCase());
      const issues = [...repo.issues.values()]
        .filter((i) => state === 'all' || i.state === state)
        .filter((i) => labels.every((l) => i.labels.some((x) => x.name.toLowerCase() === l)))
        .sort((a, b) => b.number - a.number);
      return listResponse(req, issues, (i) => issueJson(req.core, repo, i));
    },
  ],
  [
    'POST /repos/{owner}/{repo}/issues',
    (req) => {
      const repo = repoOf(req);
      const body = bodyObject(req);
      const title = body['title'];
      if (typeof title !== 'string' && typeof title !== 'number')
        throw validationFailed('Validation Failed', [
          { resource: 'Issue', field: 'title', code: 'missing_field' },
        ]);
      const { issue } = openIssue(req.core, repo, {
        title: String(title),
        body: str(body, 'body') ?? null,
        user: actorOf(req),
        labels: labelNames(body),
      });
      return json(201, issueJson(req.core, repo, issue));
    },
  ],
  [
    'GET /repos/{owner}/{repo}/issues/{issue_number}',
    (req) => json(200, issueJson(req.core, repoOf(req), issueOf(req))),
  ],
  [
    'PATCH /repos/{owner}/{repo}/issues/{issue_number}',
    (req) => {
      const repo = repoOf(req);
      const issue = issueOf(req);
      const body = bodyObject(req);
      const edit: IssueEdit = {};
      if (body['title'] !== undefined && body['title'] !== null) edit.title = String(body['title']);
      if (body['body'] !== undefined)
        edit.body = body['body'] === null ? null : String(body['body']);
      const state = str(body, 'state');
      if (state === 'open' || state === 'closed') edit.state = state;
      const reason = str(body, 'state_reason');
      if (reason === 'completed' || reason === 'not_planned' || reason === 'reopened')
        edit.stateReason = reason;
      editIssue(req.core, repo, issue, edit, actorOf(req));
      if (body['labels'] !== undefined)
        setLabels(req.core, repo, issue, labelNames(body), actorOf(req));
      return json(200, issueJson(req.core, repo, issue));
    },
  ],
  [
    'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
    (req) => {
      const repo = repoOf(req);
      const issue = issueOf(req);
      const since = req.query.get('since');
      const comments = [...repo.comments.values()]
        .filter((c) => c.issueNumber === issue.number && (!since || c.updatedAt >= since))
        .sort((a, b) => a.id - b.id);
      return listResponse(req, comments, (c) => commentJson(req.core, repo, c));
    },
  ],
  [
    'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
    (req) => {
      const repo = repoOf(req);
      const body = str(bodyObject(req), 'body');
      if (!body)
        throw validationFailed('Validation Failed', [
          { resource: 'IssueComment', field: 'body', code: 'missing_field' },
        ]);
      if (body.length > 65_536)
        throw validationFailed('Validation Failed', [
          {
            resource: 'IssueComment',
            field: 'body',
            code: 'custom',
            message: 'body is too long (maximum is 65536 characters)',
          },
        ]);
      const { comment } = createComment(
        req.core,
        repo,
        issueOf(req),
        body,
        actorOf(req),
        appOf(req),
      );
      return json(201, commentJson(req.core, repo, comment));
    },
  ],
  [
    'GET /repos/{owner}/{repo}/issues/comments/{comment_id}',
    (req) => json(200, commentJson(req.core, repoOf(req), commentOf(req))),
  ],
  [
    'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}',
    (req) => {
      const repo = repoOf(req);
      const comment = commentOf(req);
      const body = str(bodyObject(req), 'body') ?? '';
      if (body.length > 65_536)
        throw validationFailed('Validation Failed', [
          {
            resource: 'IssueComment',
            field: 'body',
            code: 'custom',
            message: 'body is too long (maximum is 65536 characters)',
          },
        ]);
      const actor = actorOf(req);
      // Only the author (or a maintainer, not modelled) may edit a comment.
      if (actor.login.toLowerCase() !== comment.user.login.toLowerCase())
        throw new HttpError(403, 'Resource not accessible by integration');
      editComment(req.core, repo, comment, body, actor);
      return json(200, commentJson(req.core, repo, comment));
    },
  ],
  [
    'DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}',
    (req) => {
      deleteComment(req.core, repoOf(req), commentOf(req), actorOf(req));
      return { status: 204 };
    },
  ],
  [
    'GET /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',
    (req) => listResponse(req, commentOf(req).reactions, (r) => reactionJson(req.core, r)),
  ],
  [
    'POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',
    (req) => {
      const content = str(bodyObject(req), 'content') ?? '';
      if (!REACTIONS.has(content))
        throw validationFailed('Validation Failed', [
          { resource: 'Reaction', field: 'content', code: 'invalid' },
        ]);
      const { reaction, created } = addReaction(req.core, commentOf(req), content, actorOf(req));
      return json(created ? 201 : 200, reactionJson(req.core, reaction));
    },
  ],
  [
    'GET /repos/{owner}/{repo}/issues/{issue_number}/labels',
    (req) => labelsOf(req, repoOf(req), issueOf(req)),
  ],
  [
    'POST /repos/{owner}/{repo}/issues/{issue_number}/labels',
    (req) => {
      const repo = repoOf(req);
      const issue = issueOf(req);
      addLabels(req.core, repo, issue, labelNames(req.body), actorOf(req));
      return labelsOf(req, repo, issue);
    },
  ],
  [
    'PUT /repos/{owner}/{repo}/issues/{issue_number}/labels',
    (req) => {
      const repo = repoOf(req);
      const issue = issueOf(req);
      setLabels(req.core, repo, issue, labelNames(req.body), actorOf(req));
      return labelsOf(req, repo, issue);
    },
  ],
  [
    'DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels',
    (req) => {
      setLabels(req.core, repoOf(req), issueOf(req), [], actorOf(req));
      return { status: 204 };
    },
  ],
  [
    'DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}',
    (req) => {
      const repo = repoOf(req);
      const issue = issueOf(req);
      const removed = removeLabel(req.core, repo, issue, param(req, 'name'), actorOf(req));
      if (!removed) throw new HttpError(404, 'Label does not exist');
      return labelsOf(req, repo, issue);
    },
  ],
];
