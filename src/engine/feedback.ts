import { z } from 'zod';
import {
  laterCommentPages,
  loginsToVet,
  vetFeedback,
  type VettableComment,
} from '../core/review-vetting.js';
import {
  REVIEW_THREAD_COMMENT_PAGE,
  REVIEW_THREAD_COMMENT_PAGES_MAX,
  REVIEW_THREADS_READ_MAX,
  type CheckInfo,
  type ReviewThreadInfo,
} from '../github/port.js';
import {
  boundChecks,
  boundReview,
  FEEDBACK_LIMITS,
  structuredFeedbackSchema,
  type CheckFeedback,
  type ReviewFeedback,
  type ReviewThread,
} from '../protocol/review-feedback.js';
import type { Engine, RunScope } from './context.js';
import { writersAmong } from './roles.js';

/**
 * What `tasks.pending_review` holds: the structured feedback the worker's assignment carries
 * (src/protocol/review-feedback.ts), and who asked for changes, whose review is requested again
 * once the fix is pushed (docs/lifecycle.md, "Reviews"). The assignment reads only the former.
 */
export const storedFeedbackSchema = structuredFeedbackSchema.extend({
  requestReviewFrom: z.string().min(1).max(100).optional(),
});
export type StoredFeedback = z.infer<typeof storedFeedbackSchema>;

/** Lines of a failed job's log given to the worker; boundChecks keeps their last characters. */
const LOG_TAIL_LINES = 80;

/**
 * Unresolved threads read for a review, newest first: all the port reads, not a few more than
 * FEEDBACK_LIMITS sends. Anyone can start threads on a public repository's PR, and threads left
 * out by vetting (nobody with write access in them) were read first: a hundred from an outsider
 * used to crowd every maintainer's older thread out of a `/retry`. A PR has so many threads only
 * then, and its reads are asked for by a person with write access, never by the outsider; past
 * REVIEW_THREADS_READ_MAX the feedback says how many were not read.
 */
const THREADS_READ = REVIEW_THREADS_READ_MAX;

function toThread(thread: ReviewThreadInfo & { firstCommentId: number }): ReviewThread {
  return {
    id: thread.id,
    replyToCommentId: thread.firstCommentId,
    url: thread.url,
    path: thread.path,
    line: thread.line,
    startLine: thread.startLine,
    outdated: thread.isOutdated,
    diffHunk: thread.diffHunk,
    comments: thread.comments.map((c) => ({ author: c.author, body: c.body })),
  };
}

/**
 * The PR's unresolved review threads, newest first, with the review that asked for changes
 * (or the `/retry` that gave them), bounded (FEEDBACK_LIMITS): what does not fit is counted, and
 * so are the threads past what the port reads (`unreadThreads`, logged). Only comments by people
 * with write access are kept (core's vetFeedback): the rest, and the threads left with none, are
 * left out and counted in `omittedComments`; a thread's comments past its first read are read as
 * far as core's laterCommentPages shares the reads out. The review itself comes from a write+
 * person already: its sender passed the same check, asked of GitHub (decideChangesRequested, the
 * commands' check for `/retry`). Its body, the kept comments and `text` (the `/retry` feedback)
 * keep only the quotes found in writers' words or the threads' diff (core's quoted-text.ts).
 * With no PR (`/retry` of a task that has none) nothing is read, and `text` is vetted alone.
 */
export async function reviewFeedbackOf(
  engine: Engine,
  scope: RunScope,
  prNumber: number | null,
  review: { reviewer: string; body: string; url: string },
  text = '',
): Promise<{ review: ReviewFeedback; text: string }> {
  const read =
    prNumber === null
      ? { threads: [], leftOut: 0, unread: 0 }
      : await scope.port.reviewThreads(scope.repo, prNumber, { limit: THREADS_READ });
  if (read.unread > 0)
    engine.log.warn(
      { run: scope.run.id, pr: prNumber, read: read.threads.length, unread: read.unread },
      'review threads past the most read were not read; the feedback says how many',
    );
  // A thread whose first comment GitHub does not name cannot be answered: counted, not sent.
  const answerable = read.threads.filter(
    (t): t is ReviewThreadInfo & { firstCommentId: number } =>
      t.firstCommentId !== null && t.firstCommentId > 0 && t.comments.length > 0,
  );
  const writers = new Set([review.reviewer.toLowerCase()]);
  const asked = new Set(writers);
  // Each asked of GitHub now, once, but the reviewer, whose write access was asked just before.
  const vet = async (threads: ReadonlyArray<{ comments: readonly VettableComment[] }>) => {
    const logins = loginsToVet(threads).filter((login) => !asked.has(login.toLowerCase()));
    for (const login of logins) asked.add(login.toLowerCase());
    const more = await writersAmong(engine, scope.port, scope.repo, logins, { fresh: true });
    for (const writer of more) writers.add(writer);
  };
  await vet(answerable);
  const pages = laterCommentPages(answerable, writers, {
    budget: REVIEW_THREAD_COMMENT_PAGES_MAX,
    pageSize: REVIEW_THREAD_COMMENT_PAGE,
  });
  const whole: typeof answerable = [];
  for (const thread of answerable) {
    const n = pages.get(thread);
    whole.push(n ? { ...thread, ...(await scope.port.laterReviewComments(thread, n)) } : thread);
  }
  await vet(whole);
  const vetted = vetFeedback(whole, writers, [review.body, text]);
  return {
    review: boundReview({
      ...review,
      body: vetted.texts[0]!,
      threads: vetted.threads.map(toThread),
      omittedThreads: read.leftOut + (read.threads.length - answerable.length),
      omittedComments: vetted.omittedComments,
      ...(read.unread > 0 ? { unreadThreads: read.unread } : {}),
    }),
    text: vetted.texts[1]!,
  };
}

/**
 * What each failing check says of itself, for the worker (docs/lifecycle.md, "Failing
 * checks"): its title and summary, its annotations, and for an Actions job the end of its
 * failed step's log. Evidence GitHub will not give is left out; it never holds the send-back up.
 */
export async function checksFeedbackOf(
  engine: Engine,
  scope: RunScope,
  failing: readonly CheckInfo[],
): Promise<CheckFeedback[]> {
  const checks: CheckFeedback[] = [];
  for (const check of failing.slice(0, FEEDBACK_LIMITS.checks)) {
    const annotations =
      check.checkRunId === null
        ? []
        : await evidence(engine, scope, check, 'annotations', () =>
            scope.port.checkRunAnnotations(scope.repo, check.checkRunId!, {
              limit: FEEDBACK_LIMITS.annotationsPerCheck,
            }),
          );
    const tail = check.actionsJob
      ? await evidence(engine, scope, check, 'log', () =>
          scope.port.jobLogTail(scope.repo, check.actionsJob!.jobId, LOG_TAIL_LINES),
        )
      : null;
    checks.push({
      name: check.name,
      title: check.title,
      summary: check.summary,
      annotations: (annotations ?? []).map((a) => ({
        path: a.path,
        startLine: a.startLine,
        endLine: a.endLine,
        level: a.level,
        message: a.title && a.title !== a.message ? `${a.title}: ${a.message}` : a.message,
      })),
      logTail: tail ? logText(tail) : null,
      url: check.detailsUrl,
    });
  }
  return boundChecks(checks);
}

function logText(tail: { lines: string[]; step: string | null; linesLeftOut: number }): string {
  const head = [
    ...(tail.step ? [`(step: ${tail.step})`] : []),
    ...(tail.linesLeftOut > 0 ? [`(${tail.linesLeftOut} earlier lines left out)`] : []),
  ];
  return [...head, ...tail.lines].join('\n');
}

async function evidence<T>(
  engine: Engine,
  scope: RunScope,
  check: CheckInfo,
  what: string,
  read: () => Promise<T>,
): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    engine.log.warn(
      { run: scope.run.id, check: check.name, err: error },
      `could not read the failing check's ${what}; sending it back without`,
    );
    return null;
  }
}

/**
 * A fix attempt given a "changes requested" review pushed its work: the reviewer is asked for
 * a review again (`POST /pulls/{n}/requested_reviewers`), as a person would. Called once, when
 * the attempt moves the task into review; GitHub's refusal is logged, never an error.
 */
export async function requestReviewAgain(
  engine: Engine,
  scope: RunScope,
  stored: unknown,
  prNumber: number,
): Promise<void> {
  const parsed = storedFeedbackSchema.safeParse(stored);
  const reviewer = parsed.success ? parsed.data.requestReviewFrom : undefined;
  if (!reviewer) return;
  const log = engine.log.child({ run: scope.run.id, pr: prNumber, reviewer });
  try {
    const outcome = await scope.port.requestReviewers(scope.repo, prNumber, [reviewer]);
    if (outcome.ok) log.info('review requested again from the reviewer who asked for changes');
    else log.warn({ status: outcome.status, message: outcome.message }, 'review request refused');
  } catch (error) {
    log.warn({ err: error }, 'could not request the review again');
  }
}
