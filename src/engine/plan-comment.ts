import { PLAN_TASK_KEY } from '../core/plan/index.js';
import type { GitHubPort, RepoCoords } from '../github/port.js';
import { parsePlanUsage } from '../protocol/markers.js';
import type { RunRow } from '../store/runs.js';
import { loadRunScope, type Engine } from './context.js';
import { applyPlan } from './start-run.js';
import { onWorkflowRun } from './track.js';

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
  const plannerAttempt = async () => {
    const attempt = await store.attempts.byWorkflowRun(comment.workflowRunId);
    return attempt?.taskId === planner.id ? attempt : undefined;
  };
  let attempt = await plannerAttempt();
  if (!attempt && (await store.attempts.ofTask(planner.id)).some((a) => a.workflowRunId === null)) {
    // A dispatch that reached GitHub but not our records (the process died in between):
    // adopted when GitHub's run carries that attempt's run-name on the plan branch.
    const wr = await comment.port.workflowRun(comment.repo, comment.workflowRunId);
    if (wr) await onWorkflowRun(engine, comment.repositoryId, wr);
    attempt = await plannerAttempt();
  }
  if (!attempt) return false;
  // What the planner spent counts before its plan dispatches anything (docs/worker.md, "What
  // the agent spent"); its run's annotation, read when the run ends, says the same.
  const usage = parsePlanUsage(comment.body);
  if (usage) await store.attempts.update(attempt.id, usage);
  await applyPlan(
    engine,
    await loadRunScope(engine, comment.run, comment.port),
    comment.body,
    'planner',
    { checkBudget: usage !== undefined },
  );
  return true;
}
