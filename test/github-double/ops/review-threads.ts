import type { Core } from '../core.js';
import { mergeBase } from '../git.js';
import { nodeId } from '../ids.js';
import { fileDiff, place, sameLines } from '../line-diff.js';
import type {
  Account,
  DiffSide,
  Pull,
  Repo,
  Review,
  ReviewComment,
  ReviewThread,
} from '../model.js';
import { pullJson } from '../render/pulls.js';
import { reviewCommentJson } from '../render/review-comments.js';
import { HttpError, notFound, validationFailed } from '../server/http.js';
import { roleOf } from './repos.js';
import type { Sent } from './pull-events.js';

/** A line comment as `POST /pulls/{n}/reviews` takes it in `comments[]`. */
export interface DraftComment {
  path: string;
  body: string;
  line?: number;
  side?: DiffSide;
  startLine?: number;
  startSide?: DiffSide;
  position?: number;
}

// The PR's diff is the head against its merge base with the base branch, as GitHub shows it.
function diffBase(repo: Repo, pull: Pull, commitId: string): string | undefined {
  const baseHead = repo.refs.get(`heads/${pull.baseRef}`);
  return baseHead ? mergeBase(repo, baseHead, commitId) : undefined;
}

function fileAt(repo: Repo, sha: string | undefined, path: string): string | undefined {
  return sha ? repo.commits.get(sha)?.tree[path] : undefined;
}

// GitHub's wording when a review's comment does not land on the diff.
function unresolvable(what: 'Path' | 'Line'): Error {
  return validationFailed('Unprocessable Entity', [
    {
      resource: 'PullRequestReviewComment',
      code: 'custom',
      message: `${what} could not be resolved`,
    },
  ]);
}

export interface PlacedDraft {
  draft: DraftComment;
  side: DiffSide;
  line: number;
  startLine: number | null;
  startSide: DiffSide | null;
  diffHunk: string;
  position: number;
}

/** Checks every comment of a review before any of it is stored: GitHub refuses the whole review. */
export function placeDrafts(
  repo: Repo,
  pull: Pull,
  commitId: string,
  drafts: readonly DraftComment[],
): PlacedDraft[] {
  const base = diffBase(repo, pull, commitId);
  return drafts.map((draft) => {
    if (draft.position !== undefined)
      throw new Error('github double: comments by `position` are not modelled; use line and side');
    if (draft.line === undefined)
      throw validationFailed('Unprocessable Entity', [
        { resource: 'PullRequestReviewComment', field: 'line', code: 'missing_field' },
      ]);
    const before = fileAt(repo, base, draft.path);
    const after = fileAt(repo, commitId, draft.path);
    if (before === after) throw unresolvable('Path');
    const side = draft.side ?? 'RIGHT';
    const startLine = draft.startLine ?? null;
    const startSide = startLine === null ? null : (draft.startSide ?? side);
    if (startLine !== null && startLine >= draft.line && startSide === side)
      throw validationFailed('Unprocessable Entity', [
        {
          resource: 'PullRequestReviewComment',
          code: 'custom',
          message: 'start_line must precede the end line',
        },
      ]);
    const placed = place(fileDiff(before, after), side, draft.line, startLine, startSide);
    if (!placed) throw unresolvable('Line');
    return {
      draft,
      side,
      line: draft.line,
      startLine,
      startSide,
      diffHunk: placed.diffHunk,
      position: placed.position,
    };
  });
}

function newComment(
  core: Core,
  review: Review,
  by: Account,
  body: string,
  diffHunk: string,
  commitId: string,
  inReplyTo: number | null,
): ReviewComment {
  const id = core.ids.next('reviewComment');
  const now = core.now();
  return {
    id,
    nodeId: nodeId('PRRC', id),
    reviewId: review.id,
    inReplyTo,
    user: by,
    body,
    diffHunk,
    commitId,
    createdAt: now,
    updatedAt: now,
  };
}

/** Opens one thread per placed comment of a submitted review. */
export function openThreads(
  core: Core,
  pull: Pull,
  review: Review,
  placed: readonly PlacedDraft[],
): ReviewComment[] {
  return placed.map((p) => {
    const comment = newComment(
      core,
      review,
      review.user,
      p.draft.body,
      p.diffHunk,
      review.commitId,
      null,
    );
    const thread: ReviewThread = {
      id: nodeId('PRRT', comment.id),
      path: p.draft.path,
      side: p.side,
      startSide: p.startSide,
      originalLine: p.line,
      originalStartLine: p.startLine,
      originalPosition: p.position,
      commitId: review.commitId,
      outdated: false,
      resolvedBy: null,
      comments: [comment],
    };
    pull.threads.push(thread);
    return comment;
  });
}

export function threadOf(pull: Pull, commentId: number): ReviewThread | undefined {
  return pull.threads.find((t) => t.comments.some((c) => c.id === commentId));
}

/**
 * A reply in the thread of `commentId`, which GitHub files as a one-comment review in state
 * COMMENTED (so it sends `pull_request_review.submitted` as well). A reply to a reply joins
 * the same thread, answering its first comment.
 */
export function replyInThread(
  core: Core,
  repo: Repo,
  pull: Pull,
  commentId: number,
  by: Account,
  body: string,
  submitReview: (by: Account, body: string) => Review,
): { comment: ReviewComment; sent: Sent } {
  const thread = threadOf(pull, commentId);
  if (!thread) throw notFound();
  const review = submitReview(by, '');
  const root = thread.comments[0]!;
  const comment = newComment(core, review, by, body, root.diffHunk, pull.headSha, root.id);
  thread.comments.push(comment);
  core.changed('review-comment', { repo: repo.fullName, number: pull.number, id: comment.id });
  return { comment, sent: [sendCommentCreated(core, repo, pull, comment, by)] };
}

export function sendCommentCreated(
  core: Core,
  repo: Repo,
  pull: Pull,
  comment: ReviewComment,
  sender: Account,
): Promise<unknown> {
  return core.webhooks.sendWebhook({
    event: 'pull_request_review_comment',
    action: 'created',
    repo,
    sender,
    body: {
      comment: reviewCommentJson(core, repo, pull, comment),
      pull_request: pullJson(core, repo, pull),
    },
  });
}

/**
 * A review comment edited (`body`) or deleted (`null`), as `PATCH`/`DELETE /pulls/comments/{id}`
 * do: by its author, whenever they like, or by a person with write access. It reads as edited from
 * then on (GitHub keeps an edit history its author may delete from, which the double does not
 * model); a deleted one is gone, and a thread left with no comment with it (the double's reading).
 * `pull_request_review_comment.edited` or `.deleted` follows.
 */
export function changeReviewComment(
  core: Core,
  repo: Repo,
  pull: Pull,
  commentId: number,
  body: string | null,
  by: Account,
): Sent {
  const thread = threadOf(pull, commentId);
  const comment = thread?.comments.find((c) => c.id === commentId);
  if (!thread || !comment) throw notFound();
  const role = roleOf(repo, by.login);
  if (comment.user !== by && role !== 'write' && role !== 'maintain' && role !== 'admin')
    throw new HttpError(403, 'Must have admin rights to Repository.');
  const from = comment.body;
  if (body === null) {
    // A deleted comment's payload shows it as it was.
    const shown = reviewCommentJson(core, repo, pull, comment);
    thread.comments = thread.comments.filter((c) => c !== comment);
    if (thread.comments.length === 0) pull.threads = pull.threads.filter((t) => t !== thread);
    return [sendCommentChange(core, repo, pull, by, 'deleted', { comment: shown }, commentId)];
  }
  comment.body = body;
  comment.updatedAt = core.now();
  const shown = reviewCommentJson(core, repo, pull, comment);
  const change = { changes: { body: { from } }, comment: shown };
  return [sendCommentChange(core, repo, pull, by, 'edited', change, commentId)];
}

function sendCommentChange(
  core: Core,
  repo: Repo,
  pull: Pull,
  sender: Account,
  action: 'edited' | 'deleted',
  body: Record<string, unknown>,
  id: number,
): Promise<unknown> {
  core.changed('review-comment', { repo: repo.fullName, number: pull.number, id });
  return core.webhooks.sendWebhook({
    event: 'pull_request_review_comment',
    action,
    repo,
    sender,
    body: { ...body, pull_request: pullJson(core, repo, pull) },
  });
}

/**
 * After the PR's head moved to `sha`: a thread whose commented lines no longer read the same at
 * the same line numbers (or whose file is gone) is outdated, as GitHub marks a thread whose
 * lines a push changed. GitHub would also follow lines that only moved; the double does not.
 * A LEFT-side thread (on the base's lines) is outdated by any change to its file.
 */
export function outdateThreads(repo: Repo, pull: Pull, sha: string): void {
  for (const thread of pull.threads) {
    if (thread.outdated) continue;
    const before = fileAt(repo, thread.commitId, thread.path);
    const after = fileAt(repo, sha, thread.path);
    const from = thread.originalStartLine ?? thread.originalLine;
    const kept =
      thread.side === 'RIGHT'
        ? sameLines(before, after, Math.min(from, thread.originalLine), thread.originalLine)
        : before === after;
    if (!kept) thread.outdated = true;
  }
}

export function resolveThread(thread: ReviewThread, by: Account | null): void {
  thread.resolvedBy = by;
}

// What a thread shows of itself: GitHub nulls `line` and `start_line` of an outdated thread.
export function threadLines(thread: ReviewThread): {
  line: number | null;
  startLine: number | null;
} {
  return thread.outdated
    ? { line: null, startLine: null }
    : { line: thread.originalLine, startLine: thread.originalStartLine };
}
