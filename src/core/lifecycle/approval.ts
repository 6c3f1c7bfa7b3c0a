import type { TaskState } from '../states.js';

/**
 * Where an approval is recorded. It is for a head SHA, not for a phase: a PR approved while
 * its worker's run is still finishing (GitHub delivers the run's completion late, or after the
 * approval) keeps the approval once the task reaches review, as long as the head is the one
 * approved. New work pushed later is a new head and needs approval again.
 */
export const APPROVABLE_TASK_STATES: ReadonlySet<TaskState> = new Set<TaskState>([
  'pending',
  'dispatched',
  'running',
  'in_review',
  'approved',
]);
const IN_REVIEW: ReadonlySet<TaskState> = new Set<TaskState>(['in_review', 'approved']);

export interface Approval {
  /** By `/approve`: the PR's head; by a review: the reviewed commit. */
  sha: string;
  /** The head GitHub shows now. */
  currentHead: string;
}

export type ApprovalVerdict =
  | { kind: 'refuse' }
  /** A late approval of an older commit never replaces one of the current head. */
  | { kind: 'keep' }
  | { kind: 'record'; state: TaskState; approvedSha: string };

/**
 * What an approval does to the task, whichever of two approvals is handled first: the outcome
 * is the same (docs/lifecycle.md).
 */
export function decideApproval(
  task: { state: TaskState; approvedSha: string | null },
  approval: Approval,
): ApprovalVerdict {
  if (!APPROVABLE_TASK_STATES.has(task.state)) return { kind: 'refuse' };
  const { sha, currentHead } = approval;
  if (sha !== currentHead && task.approvedSha === currentHead) return { kind: 'keep' };
  const state = IN_REVIEW.has(task.state)
    ? sha === currentHead
      ? 'approved'
      : 'in_review'
    : task.state;
  return { kind: 'record', state, approvedSha: sha };
}
