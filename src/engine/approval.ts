import { decideApproval, type Approval } from '../core/lifecycle/index.js';
import { canMoveTask } from '../core/transitions.js';
import type { TaskRow } from '../store/runs.js';
import type { Engine } from './context.js';

/**
 * Record an approval (core's `decideApproval` says what it does) given the head GitHub shows
 * now. Returns the task as it is afterwards, or undefined when it is in no state to approve.
 */
export async function recordApproval(
  engine: Engine,
  task: TaskRow,
  approval: Approval,
): Promise<TaskRow | undefined> {
  const verdict = decideApproval(task, approval);
  if (verdict.kind === 'refuse') return undefined;
  if (verdict.kind === 'keep') return task;
  const values = { approvedSha: verdict.approvedSha };
  // Only if the task is still as read: a concurrent approval of the head must not be replaced.
  const expected = { expected: task.state };
  // Before review the approval waits on the task (enterReview applies it); in review it decides.
  if (!canMoveTask(task.state, 'approved'))
    return engine.store.runs.updateTaskFields(task.id, values, expected);
  const event = verdict.state === 'approved' ? 'approved' : 'older head approved';
  return engine.store.runs.transitionTask(task.id, event, values, expected);
}
