import { inertInline } from '../core/inert-markdown.js';
import { PLAN_TASK_KEY } from '../core/plan/index.js';
import { failureOf, plannerMoveAfter } from '../core/lifecycle/index.js';
import type { Usage } from '../protocol/markers.js';
import type { AttemptRow } from '../store/attempt-row.js';
import type { TaskRow } from '../store/runs.js';
import type { Engine, RunScope } from './context.js';

/**
 * The planner job is the run's reserved task `plan` (docs/lifecycle.md step 2): dispatched,
 * tracked, swept and cancelled as any task's attempts are, but no part of the plan's graph
 * (src/store/runs.ts `graphTask`). Only what differs lives here: what its runs conclude and a
 * refused dispatch. Its dispatch is start-run.ts's and the plan comment it answers with
 * plan-comment.ts's: both call into dispatch and tracking, which call this module.
 */
export function isPlannerTask(task: Pick<TaskRow, 'taskKey'>): boolean {
  return task.taskKey === PLAN_TASK_KEY;
}

/**
 * A planner attempt is over (its run ended, was cancelled, timed out, or never went out); false
 * when it already was. The plan itself comes as the planner's comment (acceptPlanComment),
 * whenever it is posted.
 */
export async function completePlannerAttempt(
  engine: Engine,
  task: TaskRow,
  attempt: AttemptRow,
  conclusion: string,
  /** What the planner's jobs said it spent (docs/worker.md, "What the agent spent"). */
  usage?: Usage,
): Promise<boolean> {
  const done = await engine.store.attempts.complete(attempt.id, {
    conclusion,
    failureReason: failureOf(conclusion),
    ...usage,
  });
  if (!done) return false;
  await engine.store.runs.transitionTask(task.id, plannerMoveAfter(conclusion));
  return true;
}

/** GitHub refused the planner's dispatch (no workflow, no branch): the status comment says so. */
export async function plannerRefused(
  engine: Engine,
  scope: RunScope,
  task: TaskRow,
  attempt: AttemptRow,
  status: number,
  error: Error,
): Promise<void> {
  await engine.store.runs.setPlanInvalid(
    scope.run.id,
    `- The planner could not be dispatched: GitHub answered ${status} (${inertInline(error.message)}). Check that \`.github/workflows/${scope.config.worker.workflow}\` exists on the default branch, or put a \`tasks\` block in the issue.`,
    'planner',
  );
  await completePlannerAttempt(engine, task, attempt, 'dispatch_failed');
  engine.requestStatus(scope.run.id);
}
