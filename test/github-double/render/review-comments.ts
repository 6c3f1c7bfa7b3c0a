import type { Core } from '../core.js';
import type { Pull, Repo, ReviewComment } from '../model.js';
import { threadLines, threadOf } from '../ops/review-threads.js';
import { userJson } from './accounts.js';
import { authorAssociation } from './issues.js';
import { repoApiUrl, repoHtmlUrl } from './repos.js';

export function reviewCommentHtmlUrl(core: Core, repo: Repo, pull: Pull, id: number): string {
  return `${repoHtmlUrl(core, repo)}/pull/${pull.number}#discussion_r${id}`;
}

// `pull-request-review-comment`: the thread's place (a reply shows its thread's lines).
export function reviewCommentJson(
  core: Core,
  repo: Repo,
  pull: Pull,
  c: ReviewComment,
): Record<string, unknown> {
  const thread = threadOf(pull, c.id);
  if (!thread) throw new Error(`github double: review comment ${c.id} has no thread`);
  const api = `${repoApiUrl(core, repo)}/pulls/comments/${c.id}`;
  const html = reviewCommentHtmlUrl(core, repo, pull, c.id);
  const pullUrl = `${repoApiUrl(core, repo)}/pulls/${pull.number}`;
  const { line, startLine } = threadLines(thread);
  return {
    url: api,
    pull_request_review_id: c.reviewId,
    id: c.id,
    node_id: c.nodeId,
    diff_hunk: c.diffHunk,
    path: thread.path,
    position: thread.outdated ? null : thread.originalPosition,
    original_position: thread.originalPosition,
    commit_id: c.commitId,
    original_commit_id: thread.commitId,
    ...(c.inReplyTo !== null ? { in_reply_to_id: c.inReplyTo } : {}),
    user: userJson(core, c.user),
    body: c.body,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    html_url: html,
    pull_request_url: pullUrl,
    author_association: authorAssociation(repo, c.user),
    _links: { self: { href: api }, html: { href: html }, pull_request: { href: pullUrl } },
    start_line: startLine,
    original_start_line: thread.originalStartLine,
    start_side: thread.originalStartLine === null ? null : thread.startSide,
    line,
    original_line: thread.originalLine,
    side: thread.side,
    subject_type: 'line',
    reactions: {
      url: `${api}/reactions`,
      total_count: 0,
      '+1': 0,
      '-1': 0,
      laugh: 0,
      confused: 0,
      heart: 0,
      hooray: 0,
      eyes: 0,
      rocket: 0,
    },
  };
}
