import { inertInline } from '../core/inert-markdown.js';
import { replyMarker } from '../protocol/markers.js';
import type { ReviewThread } from '../protocol/review-feedback.js';
import { log, type PublishContext } from './steps.js';

/** What answering a review's threads came to. */
export interface ReplyTally {
  replied: number;
  /** Already answered by this attempt (a re-run job). */
  alreadyAnswered: number;
  failed: number;
}

/** The reply a person reads in the thread, and the marker that lets a re-run find it. */
export function replyBody(
  env: Pick<PublishContext['env'], 'taskId' | 'attempt'>,
  thread: Pick<ReviewThread, 'path' | 'replyToCommentId'>,
  commit: string,
  changedPaths: ReadonlySet<string>,
): string {
  const text = changedPaths.has(thread.path)
    ? `Addressed in ${commit}.`
    : `Attempt ${env.attempt} (${commit}) did not change ${inertInline(thread.path)}: the agent left that file as it was. What it did instead is summarised in the pull request description.`;
  return `${text}\n\n${replyMarker(env.taskId, env.attempt, thread.replyToCommentId)}\n`;
}

/**
 * Answer each thread the fix was given (docs/worker.md, "Answering the review"): the commit
 * that addresses it, or that the agent did not touch its file. The PR's review comments are
 * read first, so a re-run job skips the threads this attempt already answered. A reply GitHub
 * refuses is logged and the rest go on: the work is pushed, and an unanswered thread is no
 * reason to throw the attempt away.
 */
export async function answerThreads(
  ctx: PublishContext,
  pull: number,
  threads: readonly ReviewThread[],
  commit: string,
  changedPaths: ReadonlySet<string>,
): Promise<ReplyTally> {
  const tally: ReplyTally = { replied: 0, alreadyAnswered: 0, failed: 0 };
  if (threads.length === 0) return tally;
  await ctx.credentials.ensureFresh();
  let existing;
  try {
    existing = await ctx.github.listReviewComments(pull);
  } catch (error) {
    // Without the thread's replies a re-run could answer twice: better not at all.
    log(
      ctx,
      `could not read the review comments, so no thread is answered: ${(error as Error).message}`,
    );
    return { ...tally, failed: threads.length };
  }
  for (const thread of threads) {
    const marker = replyMarker(ctx.env.taskId, ctx.env.attempt, thread.replyToCommentId);
    if (
      existing.some((c) => c.inReplyToId === thread.replyToCommentId && c.body.includes(marker))
    ) {
      tally.alreadyAnswered++;
      continue;
    }
    try {
      await ctx.github.replyToReviewComment({
        pull,
        commentId: thread.replyToCommentId,
        body: replyBody(ctx.env, thread, commit, changedPaths),
        commitId: commit,
        path: thread.path,
      });
      tally.replied++;
    } catch (error) {
      tally.failed++;
      const status = (error as { status?: unknown }).status;
      log(
        ctx,
        `could not reply in the thread on ${thread.path} (comment ${thread.replyToCommentId}): ${typeof status === 'number' ? `GitHub answered ${status}: ` : ''}${(error as Error).message}`,
      );
    }
  }
  return tally;
}
