import type { Core } from '../core.js';
import { branchSha, changedFileCount, compare } from '../git.js';
import type { Pull, Repo, Review } from '../model.js';
import { mergeability } from '../ops/mergeability.js';
import { userJson } from './accounts.js';
import { authorAssociation, labelJson } from './issues.js';
import { repoApiUrl, repoHtmlUrl, repoJson } from './repos.js';

function refJson(core: Core, repo: Repo, ref: string, sha: string): Record<string, unknown> {
  return {
    label: `${repo.owner.login}:${ref}`,
    ref,
    sha,
    user: userJson(core, repo.owner),
    repo: repoJson(core, repo),
  };
}

export function pullJson(core: Core, repo: Repo, pull: Pull): Record<string, unknown> {
  const api = `${repoApiUrl(core, repo)}/pulls/${pull.number}`;
  const issueApi = `${repoApiUrl(core, repo)}/issues/${pull.number}`;
  const html = `${repoHtmlUrl(core, repo)}/pull/${pull.number}`;
  const issue = pull.issue;
  const baseSha = pull.merged
    ? (repo.commits.get(pull.mergeCommitSha ?? '')?.parents[0] ?? '')
    : (branchSha(repo, pull.baseRef) ?? '');
  const m = mergeability(core, repo, pull);
  const ahead = baseSha ? compare(repo, baseSha, pull.headSha) : undefined;
  const changed = changedFileCount(
    repo.commits.get(baseSha)?.tree ?? {},
    repo.commits.get(pull.headSha)?.tree ?? {},
  );
  const comments = [...repo.comments.values()].filter((c) => c.issueNumber === pull.number).length;
  const link = (href: string): { href: string } => ({ href });
  return {
    url: api,
    id: pull.id,
    node_id: pull.nodeId,
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: issueApi,
    commits_url: `${api}/commits`,
    review_comments_url: `${api}/comments`,
    review_comment_url: `${repoApiUrl(core, repo)}/pulls/comments{/number}`,
    comments_url: `${issueApi}/comments`,
    statuses_url: `${repoApiUrl(core, repo)}/statuses/${pull.headSha}`,
    number: pull.number,
    state: issue.state,
    locked: false,
    title: issue.title,
    user: userJson(core, issue.user),
    body: issue.body,
    labels: issue.labels.map((l) => labelJson(core, repo, l)),
    milestone: null,
    active_lock_reason: null,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_at: issue.closedAt,
    merged_at: pull.mergedAt,
    merge_commit_sha: pull.mergeCommitSha,
    assignee: null,
    assignees: [],
    requested_reviewers: pull.requestedReviewers.map((a) => userJson(core, a)),
    requested_teams: [],
    head: refJson(core, pull.headRepo, pull.headRef, pull.headSha),
    base: refJson(core, repo, pull.baseRef, baseSha),
    _links: {
      self: link(api),
      html: link(html),
      issue: link(issueApi),
      comments: link(`${issueApi}/comments`),
      review_comments: link(`${api}/comments`),
      review_comment: link(`${repoApiUrl(core, repo)}/pulls/comments{/number}`),
      commits: link(`${api}/commits`),
      statuses: link(`${repoApiUrl(core, repo)}/statuses/${pull.headSha}`),
    },
    author_association: authorAssociation(repo, issue.user),
    auto_merge: null,
    draft: pull.draft,
    merged: pull.merged,
    mergeable: m.mergeable,
    rebaseable: m.mergeable,
    mergeable_state: m.state,
    merged_by: pull.mergedBy ? userJson(core, pull.mergedBy) : null,
    comments,
    review_comments: pull.threads.reduce((n, t) => n + t.comments.length, 0),
    maintainer_can_modify: pull.maintainerCanModify,
    commits: ahead?.aheadBy ?? 0,
    additions: changed,
    deletions: 0,
    changed_files: changed,
  };
}

// What list endpoints answer (`pull-request-simple`): no mergeability, no counts.
const DETAIL_ONLY = [
  'merged',
  'mergeable',
  'rebaseable',
  'mergeable_state',
  'merged_by',
  'comments',
  'review_comments',
  'maintainer_can_modify',
  'commits',
  'additions',
  'deletions',
  'changed_files',
];

export function pullSimpleJson(core: Core, repo: Repo, pull: Pull): Record<string, unknown> {
  const full = pullJson(core, repo, pull);
  for (const key of DETAIL_ONLY) delete full[key];
  return full;
}

export function reviewJson(core: Core, repo: Repo, pull: Pull, r: Review): Record<string, unknown> {
  const html = `${repoHtmlUrl(core, repo)}/pull/${pull.number}#pullrequestreview-${r.id}`;
  const pullUrl = `${repoApiUrl(core, repo)}/pulls/${pull.number}`;
  return {
    id: r.id,
    node_id: r.nodeId,
    user: userJson(core, r.user),
    body: r.body,
    state: r.state,
    html_url: html,
    pull_request_url: pullUrl,
    _links: { html: { href: html }, pull_request: { href: pullUrl } },
    submitted_at: r.submittedAt ?? undefined,
    commit_id: r.commitId,
    author_association: authorAssociation(repo, r.user),
  };
}
