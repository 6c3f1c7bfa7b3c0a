import { isRunCancelled, isRunDone, tasksToCancel } from '../core/lifecycle/index.js';
import type { Engine, RunScope } from './context.js';
import { advanceRun } from './merge/index.js';
import { cancelAttempt } from './cancel-attempt.js';

/** Cancel a run: nothing new is dispatched, running workflow runs are cancelled, PRs stay open. */
export async function cancelRun(engine: Engine, scope: RunScope, why: string): Promise<boolean> {
  // Every task merged, closing out (see settleRun): nothing left to cancel.
  const current = await engine.store.runs.getRun(scope.run.id);
  if (current && isRunDone(current.state)) return false;
  const finished = await engine.store.runs.finishRun(scope.run.id, 'cancelled');
  // Cancelled before: this may be the delivery again after GitHub failed a call below (the
  // order check's withdrawal among them), and no one else carries out the rest: the sweep
  // decides the merges of active runs only. Each step below finds done what is done.
  if (!finished && !(current && isRunCancelled(current.state))) return false;
  const tasks = await engine.store.runs.tasksOf(scope.run.id);
  for (const task of tasksToCancel(tasks))
    await engine.store.runs.transitionTask(task.id, 'cancelled');
  // The planner's run too, if it is still out: its task is no part of the graph above. An
  // attempt whose run is not known yet ends as well: left open, the sweep would go on looking
  // for its run, and adopt it (src/engine/cancel-attempt.ts).
  const open = await engine.store.attempts.open();
  for (const { attempt, task } of open.filter((o) => o.run.id === scope.run.id))
    await cancelAttempt(engine, scope, task, attempt, why);
  engine.log.info({ run: scope.run.id, issue: scope.run.issueNumber, why }, 'run cancelled');
  engine.requestStatus(scope.run.id);
  // Its PRs stay open, and a cancelled task awaits no merge: an order check that passed on an
  // approved head must stop passing, or anyone who may merge lands it (docs/security.md).
  await advanceRun(engine, scope);
  return finished;
}
