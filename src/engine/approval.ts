import type { TaskState } from '../core/states.js';
import { canMoveTask } from '../core/transitions.js';
import type { TaskRow } from '../store/runs.js';
import type { Engine } from './context.js';

/**
 * Where an approval is recorded. It is for a head SHA, not for a phase: a PR approved while
 * its worker's run is still finishing (GitHub delivers the run's completion late, or after the
 * approval) keeps the approval once the task reaches review, as long as the head is the one
 * approved. New work pushed later is a new head and needs approval again.
 */
export const APPROVABLE: readonly TaskState[] = [
  'pending',
  'dispatched',
  'running',
  'in_review',
  'approved',
];

/**
 * Record an approval of `sha` (by `/approve`: the PR's head; by a review: the reviewed commit)
 * given the head GitHub shows now. A late approval of an older commit never replaces one of the
 * current head, so the outcome does not depend on which of the two was handled first.
 * Returns the task as it is afterwards, or undefined when it is in no state to approve.
 */
export async function recordApproval(
  engine: Engine,
  task: TaskRow,
  approval: { sha: string; by: string; currentHead: string },
): Promise<TaskRow | undefined> {
  if (!APPROVABLE.includes(task.state)) return undefined;
  const { sha, by, currentHead } = approval;
  if (sha !== currentHead && task.approvedSha === currentHead) return task;
  const values = { approvedSha: sha, approvedBy: by };
  // Only if the task is still as read: a concurrent approval of the head must not be replaced.
  const expected = { expected: task.state };
  // Before review the approval waits on the task (enterReview applies it); in review it decides.
  if (!canMoveTask(task.state, 'approved'))
    return engine.store.runs.updateTaskFields(task.id, values, expected);
  const event = sha === currentHead ? 'approved' : 'older head approved';
  return engine.store.runs.transitionTask(task.id, event, values, expected);
}
