import { inertInline } from '../core/inert-markdown.js';
import { PLAN_TASK_KEY } from '../core/plan/index.js';
import { plannerMoveAfter } from '../core/lifecycle/index.js';
import type { GitHubPort, RepoCoords } from '../github/port.js';
import type { AttemptRow } from '../store/attempts.js';
import type { RunRow, TaskRow } from '../store/runs.js';
import { loadRunScope, type Engine, type RunScope } from './context.js';
import { performDispatch } from './dispatch.js';
import { applyPlan } from './start-run.js';
import { onWorkflowRun } from './track.js';

/**
 * The planner job is the run's reserved task `plan` (docs/lifecycle.md step 2): dispatched,
 * tracked, swept and cancelled as any task's attempts are, but no part of the plan's graph
 * (src/store/runs.ts `graphTask`). Only what differs lives here: its claim, what its runs
 * conclude, and the plan comment it answers with.
 */
export function isPlannerTask(task: Pick<TaskRow, 'taskKey'>): boolean {
  return task.taskKey === PLAN_TASK_KEY;
}

/** No tasks block: the planner job (mode=plan) on `agent/<issue>/plan` writes one. */
export async function dispatchPlanner(engine: Engine, scope: RunScope): Promise<void> {
  const intent = await engine.store.attempts.claimPlanner(scope.run);
  if (!intent) return;
  await performDispatch(engine, intent, scope);
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
): Promise<boolean> {
  const done = await engine.store.attempts.complete(attempt.id, {
    conclusion,
    failureReason: conclusion === 'success' ? null : conclusion,
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

export interface PlanComment {
  port: GitHubPort;
  repo: RepoCoords;
  repositoryId: number;
  run: RunRow;
  /** The workflow run the comment's plan marker names. */
  workflowRunId: number;
  body: string;
}

/**
 * The planner's plan comment: applied only when its marker names a run of this run's planner
 * task (docs/lifecycle.md step 2). Returns false when it names a run we did not dispatch.
 */
export async function acceptPlanComment(engine: Engine, comment: PlanComment): Promise<boolean> {
  const { store } = engine;
  const planner = await store.runs.task(comment.run.id, PLAN_TASK_KEY);
  if (!planner) return false;
  const ours = async () =>
    (await store.attempts.byWorkflowRun(comment.workflowRunId))?.taskId === planner.id;
  let accepted = await ours();
  if (
    !accepted &&
    (await store.attempts.ofTask(planner.id)).some((a) => a.workflowRunId === null)
  ) {
    // A dispatch that reached GitHub but not our records (the process died in between):
    // adopted when GitHub's run carries that attempt's run-name on the plan branch.
    const wr = await comment.port.workflowRun(comment.repo, comment.workflowRunId);
    if (wr) await onWorkflowRun(engine, comment.repositoryId, wr);
    accepted = await ours();
  }
  if (!accepted) return false;
  await applyPlan(
    engine,
    await loadRunScope(engine, comment.run, comment.port),
    comment.body,
    'planner',
  );
  return true;
}
