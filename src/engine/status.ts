import { LOCK_KEYS } from '../store/lock-keys.js';
import type { RepoConfig } from '../config/schema.js';
import { explainRun, formatWaitReason, selectDispatches } from '../core/scheduler/index.js';
import type { RunState } from '../core/states.js';
import { renderStatusComment, STATUS_MARKER, type StatusTaskView } from '../core/status/index.js';
import type { RunRow } from '../store/runs.js';
import { loadRunScope, type Engine, type RunScope } from './context.js';
import { crashPoint } from '../crash-points.js';

const IN_REVIEW: ReadonlySet<string> = new Set(['in_review', 'approved']);

/** Render the run's status comment from the database. */
export async function renderRunStatus(
  engine: Engine,
  run: RunRow,
  installationId?: number,
): Promise<string> {
  const [{ tasks, depsOf: deps }, attempts, spent, inflight, pulls] = await Promise.all([
    engine.store.runs.graphOf(run.id),
    engine.store.attempts.ofRun(run.id),
    engine.store.attempts.spentByRun(run.id),
    engine.store.attempts.inflightCounts(run.repositoryId),
    engine.store.pulls.ofRun(run.id),
  ]);
  // Failing checks given another chance before the task goes back (docs/configuration.md).
  const rerunning = new Map<number, string>();
  // The agent configuration each task's PR changes, as its body says (by task and PR number:
  // an earlier PR of the task, closed since, is not its PR any more).
  const agentConfig = new Map<string, string[]>();
  for (const p of pulls) {
    if (p.taskId !== null && p.checksRerunning && p.checksRerunSha === p.headSha)
      rerunning.set(p.taskId, `re-running ${p.checksRerunning} (flaky?)`);
    if (p.taskId !== null && p.agentConfigChanged.length > 0)
      agentConfig.set(`${p.taskId}#${p.number}`, p.agentConfigChanged);
  }
  const cost = new Map<number, number>();
  // Why each task's latest failed attempt failed (the worker's own reason when it gave one).
  const lastFailure = new Map<number, { attempt: number; reason: string }>();
  for (const a of attempts) {
    if (a.costUsd) cost.set(a.taskId, (cost.get(a.taskId) ?? 0) + a.costUsd);
    const known = lastFailure.get(a.taskId);
    if (a.failureReason && (!known || known.attempt < a.attempt))
      lastFailure.set(a.taskId, { attempt: a.attempt, reason: a.failureReason });
  }
  const now = engine.now().getTime();
  const config = run.config as RepoConfig;
  // Ready tasks that are not running wait on a concurrency limit: say which one.
  const decision =
    run.state === 'running'
      ? selectDispatches({
          now,
          candidates: tasks
            .filter((t) => t.state === 'pending' && t.unmetDeps === 0)
            .map((t) => ({
              runId: String(run.id),
              taskId: t.taskKey,
              priority: t.priority,
              order: t.planIndex,
              backoffUntil: t.nextAttemptAt?.getTime(),
            })),
          repoInflight: inflight.repository,
          repoLimit: config.concurrency.maxParallel,
          globalInflight: inflight.global,
          globalLimit: engine.maxParallel,
          heldRuns: new Set(),
          budgetExhaustedRuns: new Set(),
        })
      : undefined;
  const why = explainRun({
    decision,
    now,
    runId: String(run.id),
    tasks: tasks.map((t) => ({
      id: t.taskKey,
      deps: deps.get(t.taskKey) ?? [],
      state: t.state,
      prNumber: t.prNumber ?? undefined,
      backoffUntil: t.nextAttemptAt?.getTime(),
      held: t.held,
    })),
    runHeld: run.state === 'held',
    budgetExhausted: !run.budgetWaived && spent >= config.budget.maxCostUsdPerRun,
  });
  const views: StatusTaskView[] = tasks.map((t) => {
    const reason = why.get(t.taskKey);
    const failure = t.state === 'failed' ? lastFailure.get(t.id)?.reason : undefined;
    return {
      id: t.taskKey,
      title: t.title,
      deps: deps.get(t.taskKey) ?? [],
      state: t.state,
      attempts: t.attemptCount,
      prNumber: t.prNumber ?? undefined,
      costUsd: cost.get(t.id),
      agentConfigChanged: agentConfig.get(`${t.id}#${t.prNumber}`),
      waiting:
        (IN_REVIEW.has(t.state) ? rerunning.get(t.id) : undefined) ??
        (reason ? formatWaitReason(reason) : failure),
    };
  });
  const notes: string[] = [];
  if (run.state === 'planning') notes.push('Planning: waiting for the planner job to post a plan.');
  if (run.state === 'awaiting_approval')
    notes.push('Waiting for `/approve` on this issue to start.');
  const writeWait =
    installationId === undefined
      ? undefined
      : await engine.writeBudget?.nextWriteInSeconds(installationId);
  if (writeWait !== undefined) notes.push(`GitHub write budget: next write in ${writeWait} s`);
  return renderStatusComment({
    runState: run.state as RunState,
    issueNumber: run.issueNumber,
    tasks: views,
    spentUsd: spent,
    budgetUsd: config.budget.maxCostUsdPerRun,
    planErrors: run.planError ?? undefined,
    notes,
    holdReason: run.state === 'held' ? (run.holdReason ?? undefined) : undefined,
    updatedAt: engine.now().toISOString(),
  });
}

/**
 * Write the status comment if it is behind. One writer per run at a time across processes (an
 * advisory lock; when another process holds it, the next sweep writes what is left), since two
 * writers could each find no comment and both create one. Within a process refreshes take turns:
 * GitHub's write throttle serializes them anyway, and each lock holds a pooled connection. The
 * version is recorded as rendered only after the write, so a failed write or a crash leaves it due.
 */
export async function refreshStatus(
  engine: Engine,
  runId: number,
  /** How the caller builds scopes (the sweep shares one repository read among its runs). */
  scopeOf: (run: RunRow) => Promise<RunScope> = (run) => loadRunScope(engine, run),
): Promise<boolean> {
  const written = await engine.memory.statusTurns.run('all', () =>
    engine.store.handle.tryExclusive(LOCK_KEYS.runStatus(runId), async () => {
      const run = await engine.store.runs.getRun(runId);
      if (!run || run.statusVersionRendered >= run.statusVersionWanted) return false;
      crashPoint('status.claimed');
      const scope = await scopeOf(run);
      await writeStatusComment(
        engine,
        scope,
        await renderRunStatus(engine, run, scope.installationId),
      );
      await engine.store.runs.markStatusRendered(runId, run.statusVersionWanted);
      return true;
    }),
  );
  return written === true;
}

/** Edit the issue's one status comment in place; find it by its marker after a crash; create it last. */
export async function writeStatusComment(
  engine: Engine,
  scope: RunScope,
  body: string,
): Promise<void> {
  const { run, port, repo } = scope;
  if (
    run.statusCommentId !== null &&
    (await port.updateIssueComment(repo, run.statusCommentId, body))
  )
    return;
  const found = await port.findAppComment(repo, run.issueNumber, STATUS_MARKER);
  if (found) {
    await port.updateIssueComment(repo, found.id, body);
    await engine.store.runs.setStatusComment(run.id, found.id);
    return;
  }
  const created = await port.createIssueComment(repo, run.issueNumber, body);
  crashPoint('status.comment-created');
  await engine.store.runs.setStatusComment(run.id, created.id);
}

/** Coalesces status writes: many changes to a run between flushes make one edit. */
export class StatusQueue {
  private readonly pending = new Set<number>();

  constructor(private readonly refresh: (runId: number) => Promise<unknown>) {}

  request(runId: number): void {
    this.pending.add(runId);
  }

  get size(): number {
    return this.pending.size;
  }

  async flush(onError: (runId: number, error: unknown) => void): Promise<void> {
    const runIds = [...this.pending];
    this.pending.clear();
    await Promise.all(
      runIds.map((id) =>
        this.refresh(id).catch((error: unknown) => {
          onError(id, error);
        }),
      ),
    );
  }
}
