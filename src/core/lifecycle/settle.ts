import { TERMINAL_TASK_STATES, type TaskState } from '../states.js';
import { isTaskMerged } from './facts.js';

export type SettleDecision =
  | { kind: 'not_yet'; reason: string }
  /** Every task merged: label `agent:done`, close the issue when configured, finish. */
  | { kind: 'done' }
  /** Every task ended, some unmerged (failed, vetoed, rejected, blocked, cancelled). */
  | { kind: 'failed' };

/** docs/lifecycle.md step 11: a run closes out once no task of its graph can move any more. */
export function decideSettle(tasks: readonly { state: TaskState }[]): SettleDecision {
  if (tasks.length === 0) return { kind: 'not_yet', reason: 'no tasks yet' };
  const open = tasks.filter((t) => !TERMINAL_TASK_STATES.has(t.state)).length;
  if (open > 0) return { kind: 'not_yet', reason: `${open} task(s) can still move` };
  return tasks.every((t) => isTaskMerged(t.state)) ? { kind: 'done' } : { kind: 'failed' };
}

/** The tasks a cancelled run cancels: every one that has not ended. */
export function tasksToCancel<T extends { state: TaskState }>(tasks: readonly T[]): T[] {
  return tasks.filter((t) => !TERMINAL_TASK_STATES.has(t.state));
}
