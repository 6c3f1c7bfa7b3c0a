import type { RepoConfig } from '../config/schema.js';
import { inertInline } from '../core/inert-markdown.js';
import { extractTasksBlock, formatPlanErrors, parsePlanMarkdown } from '../core/plan/index.js';
import { statusOf, type GitHubPort, type RepoCoords } from '../github/port.js';
import type { RunRow } from '../store/runs.js';
import { buildDispatchInputs } from '../protocol/assignment.js';
import { taskBranch } from '../protocol/branch.js';
import { runName } from '../protocol/run-name.js';
import type { Engine, RunScope } from './context.js';
import { scheduleRepository } from './dispatch.js';
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
    run: { ...run, baseBranch: request.defaultBranch },
    config: request.config,
    repo: request.repo,
    repositoryId: request.repositoryId,
    installationId: request.installationId,
    port: request.port,
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
  if (run.state !== 'planning' || run.planSource !== null) return false;
  return (await engine.store.runs.planAttempts(run.id)).length === 0;
}

/** Validate a plan (from the issue, the planner or /plan) and store it, or show why it is invalid. */
export async function applyPlan(
  engine: Engine,
  scope: RunScope,
  markdown: string,
  source: string,
  options: { firstOnly?: boolean } = {},
): Promise<boolean> {
  const result = parsePlanMarkdown(markdown, { maxTasks: scope.config.plan.maxTasks });
  if (!result.ok) {
    await engine.store.runs.setPlanInvalid(scope.run.id, formatPlanErrors(result.errors), source);
    engine.log.info(
      { run: scope.run.id, errors: result.errors.length, source },
      'plan invalid; nothing dispatched',
    );
    engine.requestStatus(scope.run.id);
    return false;
  }
  const stored = await engine.store.runs.setPlan(
    scope.run.id,
    result.plan,
    source,
    scope.config.plan.requireApproval,
    options,
  );
  engine.requestStatus(scope.run.id);
  if (!stored) return false;
  crashPoint('plan.stored');
  engine.log.info({ run: scope.run.id, tasks: result.plan.tasks.length, source }, 'plan accepted');
  await scheduleRepository(engine, scope.repositoryId);
  return true;
}

/** No tasks block: the planner job (mode=plan) on `agent/<issue>/plan` writes one. */
export async function dispatchPlanner(engine: Engine, scope: RunScope): Promise<void> {
  const attempt = await engine.store.runs.createPlanAttempt(scope.run.id);
  if (!attempt) return;
  const { run, port, repo, config } = scope;
  const branch = taskBranch(run.issueNumber, 'plan');
  const base = run.baseBranch ?? (await port.defaultBranch(repo));
  try {
    crashPoint('planner.intent-recorded');
    const coordinatorUrl = await engine.coordinatorUrl();
    if (!coordinatorUrl)
      throw new Error('the public URL is unknown; the planner is not dispatched');
    if ((await port.branchHead(repo, branch)) === null) {
      const sha = await port.branchHead(repo, base);
      if (sha === null)
        throw Object.assign(new Error(`base branch "${base}" does not exist`), { status: 422 });
      await port.ensureBranch(repo, branch, sha);
    }
    const inputs = buildDispatchInputs({
      taskKey: 'plan',
      issueNumber: run.issueNumber,
      attempt: attempt.attempt,
      mode: 'plan',
      coordinatorUrl,
    });
    const result = await port.dispatchWorkflow(repo, {
      workflow: config.worker.workflow,
      ref: branch,
      inputs,
    });
    crashPoint('planner.dispatched');
    await engine.store.runs.updatePlanAttempt(attempt.id, {
      phase: 'dispatched',
      dispatchedAt: engine.now(),
      workflowRunId: result.runId ?? null,
      workflowRunUrl: result.runUrl ?? null,
    });
    engine.log.info(
      {
        run: run.id,
        workflowRun: result.runId,
        name: runName(run.issueNumber, 'plan', attempt.attempt),
      },
      'planner dispatched',
    );
  } catch (error) {
    const status = statusOf(error);
    if (status === 404 || status === 422) {
      await engine.store.runs.setPlanInvalid(
        run.id,
        `- The planner could not be dispatched: GitHub answered ${status} (${inertInline((error as Error).message)}). Check that \`.github/workflows/${config.worker.workflow}\` exists on the default branch, or put a \`tasks\` block in the issue.`,
        'planner',
      );
      await engine.store.runs.updatePlanAttempt(attempt.id, {
        phase: 'completed',
        conclusion: 'dispatch_failed',
        completedAt: engine.now(),
      });
      engine.requestStatus(run.id);
      return;
    }
    engine.log.warn(
      { err: error, run: run.id },
      'planner dispatch failed; the sweep will retry it',
    );
  }
}
