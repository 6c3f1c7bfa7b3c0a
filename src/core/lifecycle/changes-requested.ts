import { IN_REVIEW_TASK_STATES, type TaskState } from '../states.js';
import { isMergeClaimed } from './facts.js';

/** A submitted pull request review, as the `pull_request_review.submitted` webhook has it. */
export interface SubmittedReview {
  /** Lower case in webhooks: `approved`, `changes_requested`, `commented`, `dismissed`. */
  state: string;
  authorIsBot: boolean;
  /** The author holds write, maintain or admin on the repository (the commands' rule). */
  authorCanWrite: boolean;
}

/** The reviewed PR's task as the store has it. */
export interface ReviewedTask {
  state: TaskState;
  runFinished: boolean;
  reviewAlreadySentBack: boolean;
  /** Its PR was handed to GitHub's merge queue and not seen leaving it (`enqueued_at` set). */
  enqueued: boolean;
}

export type ChangesRequestedVerdict =
  /**
   * `inMergeQueue`: the PR waits in GitHub's merge queue, which a review does not stop
   * (test/github-double/README.md): the coordinator takes it out.
   */
  { kind: 'send_back'; inMergeQueue: boolean } | { kind: 'ignore'; why: string };

/**
 * Whether a "changes requested" review sends the task back to its worker in `mode=fix`
 * (docs/lifecycle.md, "Reviews"). Only a review in that state from a person who may command
 * the PR does, once per review; comments and other reviews never start work, so people can
 * discuss on the PR freely. The retry limit is applied after this (`afterSendBack`).
 */
export function decideChangesRequested(
  review: SubmittedReview,
  task: ReviewedTask,
): ChangesRequestedVerdict {
  if (review.state.toLowerCase() !== 'changes_requested')
    return { kind: 'ignore', why: `a ${review.state} review is no request for changes` };
  if (review.authorIsBot) return { kind: 'ignore', why: 'reviews by bots never start work' };
  if (!review.authorCanWrite)
    return { kind: 'ignore', why: 'the reviewer cannot write to the repository' };
  if (task.runFinished) return { kind: 'ignore', why: 'the run is finished' };
  if (task.reviewAlreadySentBack)
    return { kind: 'ignore', why: 'this review was already sent back to the worker' };
  // GitHub's queue lands a queued PR on its merge group's checks alone: a writer's "no" there
  // must take it out, or the product merges what the reviewer refused.
  const inMergeQueue = isMergeClaimed(task.state) && task.enqueued;
  if (!IN_REVIEW_TASK_STATES.has(task.state) && !inMergeQueue) {
    // A worker already on it, a direct merge in flight, or an ended task: the threads stay open
    // on the PR, and a `/retry` gives them to the next attempt.
    return { kind: 'ignore', why: `the task is ${task.state}, not waiting for review` };
  }
  return { kind: 'send_back', inMergeQueue };
}
