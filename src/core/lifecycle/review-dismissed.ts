import type { TaskState } from '../states.js';
import { canMoveTask } from '../transitions.js';
import { nothing, type NoEffect } from '../no-effect.js';
import { isTaskMerged } from './facts.js';

/**
 * A `pull_request_review.dismissed` delivery: the review as it was given. Its payload's `state`
 * is `dismissed` whatever the review was, so an approval and a request for changes look alike.
 */
export interface DismissedReview {
  id: number;
  /** Who wrote the review (not who dismissed it). */
  author: string;
  /** The commit the review was of. */
  commitId: string;
}

/** The agent PR's task as the store has it. */
export interface DismissedReviewSnapshot {
  task: {
    state: TaskState;
    approvedSha: string | null;
    approvedBy: string | null;
    /** The commit the approval was given on (null when recorded before it was kept). */
    approvalOriginSha: string | null;
  };
}

export type DismissedReviewEffect =
  | NoEffect
  /**
   * Take the task's approval back (by `move` when the task is in review, as fields otherwise),
   * only if it still holds `approval` (a guarded write); the effects after it are carried out
   * only when it takes.
   */
  | {
      kind: 'withdrawApproval';
      approval: { sha: string; by: string | null };
      move?: 'approval withdrawn';
    }
  /** The run's status comment shows the task back in review. */
  | { kind: 'requestStatus' }
  /**
   * Decide the run's merges again: the order check on the head waits for an approval again, and
   * a PR the merge queue holds leaves it (evaluate-pull.ts).
   */
  | { kind: 'advance' };

/**
 * docs/lifecycle.md "Reviews": a dismissed review no longer approves. The task's approval is
 * withdrawn when it is the review's: given on the review's commit (and carried, maybe, to the
 * head of the coordinator's update of a behind branch) and by its author (logins compare
 * case-insensitively, as GitHub's do). An approval recorded before the coordinator recorded its
 * author is withdrawn at that commit too: it may be the review's, and a withdrawal only asks for
 * approval again. Another person's approval (a `/approve` since, which replaced the author)
 * stands. So does the same person's approval of another commit: a request for changes dismissed
 * on an older commit takes nothing back. Who dismissed it is not asked: GitHub lets only
 * "repository administrators or people with write access" dismiss a review ("Dismissing a pull
 * request review", docs.github.com), and on a protected branch only those it lists.
 */
export function decideReviewDismissed(
  snapshot: DismissedReviewSnapshot | null,
  review: DismissedReview,
): DismissedReviewEffect[] {
  if (!snapshot) return nothing('not an agent PR of a known task');
  const { state, approvedSha, approvedBy, approvalOriginSha } = snapshot.task;
  if (isTaskMerged(state)) return nothing('the task is merged');
  if (approvedSha === null) return nothing('the task holds no approval');
  // Given on the review's commit, wherever the coordinator's updates have carried it since.
  if ((approvalOriginSha ?? approvedSha) !== review.commitId)
    return nothing("the task's approval is of another commit than the review");
  if (approvedBy !== null && approvedBy.toLowerCase() !== review.author.toLowerCase())
    return nothing(`the task's approval is by ${approvedBy}, not the review's author`);
  return [
    {
      kind: 'withdrawApproval',
      approval: { sha: approvedSha, by: approvedBy },
      ...(canMoveTask(state, 'approval withdrawn') ? { move: 'approval withdrawn' as const } : {}),
    },
    { kind: 'requestStatus' },
    { kind: 'advance' },
  ];
}
