import { decideApproval, type Approval } from '../core/lifecycle/index.js';
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
  return engine.store.runs.transitionTask(task.id, [task.state], {
    state: verdict.state,
    approvedSha: verdict.approvedSha,
  });
}
