import { z } from 'zod';

/**
 * The review and the failing checks a `fix` attempt is given, as the assignment carries them
 * (docs/worker.md, "Review feedback"): what a person reads in GitHub's review and checks
 * tabs, bounded so one long log or a review with a hundred threads cannot crowd out the
 * task. The coordinator bounds what it reads with `boundReview` and `boundChecks`; the
 * worker refuses anything past the bounds, as it refuses any other malformed assignment.
 */
export const FEEDBACK_LIMITS = {
  reviewBodyChars: 8_000,
  /** Newest first: the rest are counted in `omittedThreads`. */
  threads: 20,
  commentsPerThread: 10,
  commentChars: 4_000,
  /** The end of GitHub's `diff_hunk`, where the commented line is. */
  hunkChars: 3_000,
  checks: 10,
  annotationsPerCheck: 20,
  annotationChars: 1_000,
  checkTitleChars: 500,
  checkSummaryChars: 4_000,
  /** The last characters of the failed step's log. */
  logTailChars: 8_000,
} as const;

const L = FEEDBACK_LIMITS;
const login = z.string().max(100);
const url = z.string().max(2_000);
const path = z.string().min(1).max(1_000);
const lineNumber = z.number().int().nonnegative();

export const reviewCommentSchema = z.object({
  author: login,
  body: z.string().max(L.commentChars),
});

export const reviewThreadSchema = z.object({
  /** The thread's GraphQL node id (`PullRequestReviewThread.id`). */
  id: z.string().min(1).max(200),
  /**
   * The REST id of the thread's first comment, which a reply names: `in_reply_to` of
   * `POST /repos/{owner}/{repo}/pulls/{pull_number}/comments` (docs/worker.md, "Answering
   * the review").
   */
  replyToCommentId: z.number().int().positive(),
  url,
  path,
  /** The last line the thread is on; null on an outdated thread GitHub no longer places. */
  line: lineNumber.nullable(),
  /** The first line of a multi-line comment; null for a single line. */
  startLine: lineNumber.nullable(),
  outdated: z.boolean(),
  diffHunk: z.string().max(L.hunkChars),
  comments: z.array(reviewCommentSchema).min(1).max(L.commentsPerThread),
});

export const reviewFeedbackSchema = z.object({
  reviewer: login,
  body: z.string().max(L.reviewBodyChars),
  url,
  threads: z.array(reviewThreadSchema).max(L.threads),
  /** Unresolved threads left out past the bound, and those not read (`unreadThreads`). */
  omittedThreads: z.number().int().nonnegative(),
  /**
   * Of `omittedThreads`, the older threads the coordinator did not read at all: the PR has more
   * than it reads, and a thread of a person with write access may be among them. Optional: a
   * coordinator that leaves it out read every thread it counts.
   */
  unreadThreads: z.number().int().nonnegative().optional(),
  /**
   * Comments in the threads read that were left out because no person with write access wrote
   * them (src/core/review-vetting.ts). Optional: a coordinator that leaves it out vetted nothing.
   */
  omittedComments: z.number().int().nonnegative().optional(),
});

export const checkAnnotationSchema = z.object({
  path: z.string().max(1_000),
  startLine: lineNumber,
  endLine: lineNumber,
  level: z.enum(['notice', 'warning', 'failure']),
  message: z.string().max(L.annotationChars),
});

export const checkFeedbackSchema = z.object({
  name: z.string().min(1).max(200),
  title: z.string().max(L.checkTitleChars).nullable(),
  summary: z.string().max(L.checkSummaryChars).nullable(),
  annotations: z.array(checkAnnotationSchema).max(L.annotationsPerCheck),
  logTail: z.string().max(L.logTailChars).nullable(),
  url: url.nullable(),
});

export const checksFeedbackSchema = z.array(checkFeedbackSchema).max(L.checks);

export type ReviewThread = z.infer<typeof reviewThreadSchema>;
export type ReviewFeedback = z.infer<typeof reviewFeedbackSchema>;
export type CheckAnnotation = z.infer<typeof checkAnnotationSchema>;
export type CheckFeedback = z.infer<typeof checkFeedbackSchema>;

/** What a task carries to its next attempt beside the text feedback (tasks.pending_review). */
export const structuredFeedbackSchema = z.object({
  review: reviewFeedbackSchema.nullable().optional(),
  checks: checksFeedbackSchema.nullable().optional(),
});

const CUT = '… (cut)';

/** At most `max` characters, the start kept. */
export function clipStart(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - CUT.length - 1)}\n${CUT}`;
}

/** At most `max` characters, the end kept (a log's tail, a hunk's commented line). */
export function clipEnd(text: string, max: number): string {
  return text.length <= max ? text : `${CUT}\n${text.slice(text.length - max + CUT.length + 1)}`;
}

/** A review within FEEDBACK_LIMITS; `threads` newest first, as the coordinator reads them. */
export function boundReview(review: ReviewFeedback): ReviewFeedback {
  const kept = review.threads.slice(0, L.threads);
  return {
    reviewer: review.reviewer.slice(0, 100),
    body: clipStart(review.body, L.reviewBodyChars),
    url: review.url.slice(0, 2_000),
    threads: kept.map((t) => ({
      ...t,
      diffHunk: clipEnd(t.diffHunk, L.hunkChars),
      comments: t.comments.slice(0, L.commentsPerThread).map((c) => ({
        author: c.author.slice(0, 100),
        body: clipStart(c.body, L.commentChars),
      })),
    })),
    omittedThreads: review.omittedThreads + (review.threads.length - kept.length),
    omittedComments: review.omittedComments ?? 0,
    ...(review.unreadThreads ? { unreadThreads: review.unreadThreads } : {}),
  };
}

/** Failing checks within FEEDBACK_LIMITS. */
export function boundChecks(checks: CheckFeedback[]): CheckFeedback[] {
  return checks.slice(0, L.checks).map((c) => ({
    ...c,
    name: c.name.slice(0, 200),
    title: c.title === null ? null : clipStart(c.title, L.checkTitleChars),
    summary: c.summary === null ? null : clipStart(c.summary, L.checkSummaryChars),
    annotations: c.annotations.slice(0, L.annotationsPerCheck).map((a) => ({
      ...a,
      message: clipStart(a.message, L.annotationChars),
    })),
    logTail: c.logTail === null ? null : clipEnd(c.logTail, L.logTailChars),
  }));
}
