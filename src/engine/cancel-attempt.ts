import { isAttemptOpen } from '../core/lifecycle/index.js';
import type { AttemptRow } from '../store/attempt-row.js';
import type { TaskRow } from '../store/runs.js';
import type { Engine, RunScope } from './context.js';
import { completePlannerAttempt, isPlannerTask } from './planner.js';

/**
 * A cancelled task's open attempt ends, whether or not its workflow run is known yet: the
 * assignment refuses a completed attempt (`run_finished`, src/worker-api/authorize.ts), and a
 * run whose id no delivery has named yet (GitHub Enterprise Server up to 3.19 answers the
 * dispatch without it) would otherwise get its assignment and a push token for a task a person
 * cancelled (docs/commands.md, `/cancel`). GitHub's run is cancelled when its id is known, first,
 * so a failed call leaves the attempt open for the retried delivery or the sweep to end.
 * The planner's attempt moves its task on too. Returns whether this call completed it.
 */
export async function cancelAttempt(
  engine: Engine,
  scope: RunScope,
  task: TaskRow,
  attempt: AttemptRow,
  why: string,
): Promise<boolean> {
  if (!isAttemptOpen(attempt.phase)) return false;
  if (attempt.workflowRunId !== null)
    await scope.port.cancelWorkflowRun(scope.repo, attempt.workflowRunId);
  if (isPlannerTask(task)) return completePlannerAttempt(engine, task, attempt, 'cancelled');
  const done = await engine.store.attempts.complete(attempt.id, {
    conclusion: 'cancelled',
    failureReason: why,
  });
  return done !== undefined;
}

/** The task's latest attempt, if it is still open, ends (`cancelAttempt`). */
export async function cancelLatestAttempt(
  engine: Engine,
  scope: RunScope,
  task: TaskRow,
  why: string,
): Promise<void> {
  const latest = await engine.store.attempts.latestOf(task.id);
  if (latest) await cancelAttempt(engine, scope, task, latest, why);
}
