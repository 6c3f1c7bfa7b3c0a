import { decideSettle, isRunDone } from '../core/lifecycle/index.js';
import type { Engine, RunScope } from './context.js';
import { crashPoint } from '../crash-points.js';

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
