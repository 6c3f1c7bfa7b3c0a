import { decideSettle, isRunDone, tasksToCancel } from '../core/lifecycle/index.js';
import type { Engine, RunScope } from './context.js';
import { crashPoint } from '../crash-points.js';
import { completePlannerAttempt, isPlannerTask } from './planner.js';

export const DONE_LABEL = 'agent:done';

/**
 * Close out a run once no task can move any more: done when all merged, failed otherwise.
 *
 * A done run is marked `done` first, labelled and closed on GitHub, and only then finished: if
 * GitHub fails the label or the close, the run stays active, and the retried event (or the next
 * sweep) lands here again and finishes the close-out. Its own `issues.closed` does not cancel a
 * `done` run. Labelling and closing twice change nothing.
 */
export async function settleRun(engine: Engine, scope: RunScope): Promise<void> {
  const settle = decideSettle(await engine.store.runs.tasksOf(scope.run.id));
  if (settle.kind === 'not_yet') return;
  engine.requestStatus(scope.run.id);
  if (settle.kind === 'failed') {
    await engine.store.runs.finishRun(scope.run.id, 'failed');
    return;
  }
  const run = await engine.store.runs.getRun(scope.run.id);
  if (!run || run.finishedAt) return;
  if (!isRunDone(run.state) && !(await engine.store.runs.transitionRun(run.id, 'all merged')))
    return;
  crashPoint('finish.run-finished');
  await scope.port.addLabels(scope.repo, scope.run.issueNumber, [DONE_LABEL]);
  crashPoint('finish.labelled');
  if (scope.config.closeIssueWhenDone)
    await scope.port.closeIssue(scope.repo, scope.run.issueNumber);
  await engine.store.runs.finishRun(run.id, 'closed out');
}

/** Cancel a run: nothing new is dispatched, running workflow runs are cancelled, PRs stay open. */
export async function cancelRun(engine: Engine, scope: RunScope, why: string): Promise<boolean> {
  // Every task merged, closing out (see settleRun): nothing left to cancel.
  const current = await engine.store.runs.getRun(scope.run.id);
  if (current && isRunDone(current.state)) return false;
  const finished = await engine.store.runs.finishRun(scope.run.id, 'cancelled');
  if (!finished) return false;
  const tasks = await engine.store.runs.tasksOf(scope.run.id);
  for (const task of tasksToCancel(tasks))
    await engine.store.runs.transitionTask(task.id, 'cancelled');
  // The planner's run too, if it is still out: its task is no part of the graph above.
  const open = await engine.store.attempts.open();
  const ofRun = open.filter((o) => o.run.id === scope.run.id && o.attempt.workflowRunId !== null);
  for (const { attempt, task } of ofRun) {
    await scope.port.cancelWorkflowRun(scope.repo, attempt.workflowRunId!);
    if (isPlannerTask(task)) await completePlannerAttempt(engine, task, attempt, 'cancelled');
    else
      await engine.store.attempts.complete(attempt.id, {
        conclusion: 'cancelled',
        failureReason: why,
      });
  }
  engine.log.info({ run: scope.run.id, issue: scope.run.issueNumber, why }, 'run cancelled');
  engine.requestStatus(scope.run.id);
  return true;
}
