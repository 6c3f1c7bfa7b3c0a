import { TERMINAL_TASK_STATES } from '../core/states.js';
import type { Engine, RunScope } from './context.js';

export const DONE_LABEL = 'agent:done';

/** Close out a run once no task can move any more: done when all merged, failed otherwise. */
export async function settleRun(engine: Engine, scope: RunScope): Promise<void> {
  const tasks = await engine.store.runs.tasksOf(scope.run.id);
  if (tasks.length === 0) return;
  if (!tasks.every((t) => TERMINAL_TASK_STATES.has(t.state))) return;
  const allMerged = tasks.every((t) => t.state === 'merged');
  const finished = await engine.store.runs.finishRun(scope.run.id, allMerged ? 'done' : 'failed');
  engine.requestStatus(scope.run.id);
  if (!finished || !allMerged) return;
  await scope.port.addLabels(scope.repo, scope.run.issueNumber, [DONE_LABEL]);
  if (scope.config.closeIssueWhenDone)
    await scope.port.closeIssue(scope.repo, scope.run.issueNumber);
}

/** Cancel a run: nothing new is dispatched, running workflow runs are cancelled, PRs stay open. */
export async function cancelRun(engine: Engine, scope: RunScope, why: string): Promise<boolean> {
  const finished = await engine.store.runs.finishRun(scope.run.id, 'cancelled');
  if (!finished) return false;
  const tasks = await engine.store.runs.tasksOf(scope.run.id);
  for (const task of tasks) {
    if (TERMINAL_TASK_STATES.has(task.state)) continue;
    await engine.store.runs.transitionTask(task.id, [task.state], { state: 'cancelled' });
  }
  const open = await engine.store.attempts.open();
  const ofRun = open.filter((o) => o.run.id === scope.run.id && o.attempt.workflowRunId !== null);
  for (const { attempt } of ofRun) {
    await scope.port.cancelWorkflowRun(scope.repo, attempt.workflowRunId!);
    await engine.store.attempts.complete(attempt.id, {
      conclusion: 'cancelled',
      failureReason: why,
    });
  }
  for (const plan of await engine.store.runs.planAttempts(scope.run.id)) {
    if (plan.phase === 'completed' || plan.workflowRunId === null) continue;
    await scope.port.cancelWorkflowRun(scope.repo, plan.workflowRunId);
    await engine.store.runs.updatePlanAttempt(plan.id, {
      phase: 'completed',
      conclusion: 'cancelled',
      completedAt: engine.now(),
    });
  }
  engine.log.info({ run: scope.run.id, issue: scope.run.issueNumber, why }, 'run cancelled');
  engine.requestStatus(scope.run.id);
  return true;
}
