import type { RepoConfig } from '../config/schema.js';
import { awaitsPlan } from '../core/lifecycle/index.js';
import {
  boundPlannerPlan,
  extractTasksBlock,
  formatPlanErrors,
  parsePlanMarkdown,
  PLAN_TASK_KEY,
} from '../core/plan/index.js';
import type { GitHubPort, RepoCoords } from '../github/port.js';
import type { RunRow } from '../store/runs.js';
import { loadRunScope, type Engine, type RunScope } from './context.js';
import { enforceBudget } from './budget.js';
import { performDispatch, scheduleRepository } from './dispatch.js';
import { refreshStatus } from './status.js';
import { crashPoint } from '../crash-points.js';

export interface StartRunRequest {
  port: GitHubPort;
  repo: RepoCoords;
  repositoryId: number;
  installationId: number;
  defaultBranch: string;
  issue: { number: number; title: string; body: string | null };
  startedBy: string;
  config: RepoConfig;
  /** The label event's `issue.updated_at`, kept with the run (src/core/lifecycle/label-start.ts). */
  triggerUpdatedAt: Date;
}

/** The label was added by a write+ user: create the run, show its status, and plan it. */
export async function startRun(engine: Engine, request: StartRunRequest): Promise<RunRow> {
  const { run, created } = await engine.store.runs.createRun({
    repositoryId: request.repositoryId,
    issueNumber: request.issue.number,
    config: request.config,
    startedBy: request.startedBy,
    issueTitle: request.issue.title,
    issueBody: request.issue.body ?? '',
    triggerUpdatedAt: request.triggerUpdatedAt,
  });
  // A start that failed part-way (GitHub answered 5xx before the plan was stored or the planner
  // dispatched) is finished by the retried delivery instead of being left planning forever.
  const resumed = !created && (await startInterrupted(engine, run));
  if (!created && !resumed) {
    engine.requestStatus(run.id);
    return run;
  }
  await engine.store.runs.updateRun(run.id, { baseBranch: request.defaultBranch });
  crashPoint('start.run-created');
  const scope: RunScope = {
    ...(await loadRunScope(engine, { ...run, baseBranch: request.defaultBranch }, request.port)),
    // The config as the start read it (the run's row holds the same, defaults filled).
    config: request.config,
  };
  engine.log.info(
    { run: run.id, issue: run.issueNumber, generation: run.generation },
    resumed ? 'finishing an interrupted run start' : 'run started',
  );
  // The status comment exists from the first moment, so people see the run start (written by the
  // refresh, whose writers take turns so that two never both create it). A resumed start leaves
  // it to the coalesced refresh.
  if (resumed) engine.requestStatus(run.id);
  else await refreshStatus(engine, run.id);
  crashPoint('start.status-written');
  const refreshed = (await engine.store.runs.getRun(run.id))!;
  const block = extractTasksBlock(request.issue.body ?? '');
  // First plan only: a resumed start racing the original must not replace a stored plan (that
  // would drop its dispatched attempts); a second planner dispatch is refused by its claim.
  const first = { firstOnly: true };
  if (block.ok)
    await applyPlan(engine, { ...scope, run: refreshed }, request.issue.body ?? '', 'issue', first);
  else if (block.error.code === 'no_tasks_block')
    await dispatchPlanner(engine, { ...scope, run: refreshed });
  else
    await applyPlan(engine, { ...scope, run: refreshed }, request.issue.body ?? '', 'issue', first);
  return refreshed;
}

/** Created, but neither a plan stored (valid or not) nor a planner dispatch attempted. */
async function startInterrupted(engine: Engine, run: RunRow): Promise<boolean> {
  if (!awaitsPlan(run.state) || run.planSource !== null) return false;
  return (await engine.store.runs.task(run.id, PLAN_TASK_KEY)) === undefined;
}

/** Validate a plan (from the issue, the planner or /plan) and store it, or show why it is invalid. */
export async function applyPlan(
  engine: Engine,
  scope: RunScope,
  markdown: string,
  source: string,
  options: {
    firstOnly?: boolean;
    /** The planner's spend was just charged: the budget may hold the run before dispatch. */
    checkBudget?: boolean;
  } = {},
): Promise<boolean> {
  const result = parsePlanMarkdown(markdown, {
    maxTasks: scope.config.plan.maxTasks,
    planner: source === 'planner',
    issue: source === 'issue',
  });
  if (!result.ok) {
    await engine.store.runs.setPlanInvalid(scope.run.id, formatPlanErrors(result.errors), source);
    engine.log.info(
      { run: scope.run.id, errors: result.errors.length, source },
      'plan invalid; nothing dispatched',
    );
    engine.requestStatus(scope.run.id);
    return false;
  }
  const plan =
    source === 'planner'
      ? boundPlannerPlan(result.plan, scope.config.worker.timeoutMinutes)
      : result.plan;
  const stored = await engine.store.runs.setPlan(
    scope.run.id,
    plan,
    source,
    scope.config.plan.requireApproval,
    { firstOnly: options.firstOnly },
  );
  engine.requestStatus(scope.run.id);
  if (!stored) return false;
  crashPoint('plan.stored');
  engine.log.info({ run: scope.run.id, tasks: plan.tasks.length, source }, 'plan accepted');
  if (options.checkBudget) {
    // The run as the plan left it (running, awaiting approval or held): a held run dispatches
    // nothing.
    const run = await engine.store.runs.getRun(scope.run.id);
    if (run) await enforceBudget(engine, { ...scope, run });
  }
  await scheduleRepository(engine, scope.repositoryId, scope.repository);
  return true;
}

/** No tasks block: the planner job (mode=plan) on `agent/<issue>/plan` writes one. */
async function dispatchPlanner(engine: Engine, scope: RunScope): Promise<void> {
  const intent = await engine.store.attempts.claimPlanner(scope.run);
  if (!intent) return;
  await performDispatch(engine, intent, scope);
}
