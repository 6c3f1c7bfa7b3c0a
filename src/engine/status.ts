import { LOCK_KEYS } from '../store/lock-keys.js';
import type { RepoConfig } from '../config/schema.js';
import type { RunState } from '../core/states.js';
import { renderStatusComment, STATUS_MARKER, statusViewOf } from '../core/status/index.js';
import type { RunGraph, RunRow } from '../store/runs.js';
import type { RepositoryRow } from '../store/repositories.js';
import { overlapReasonsOf, type BaseHeads } from './overlap.js';
import { loadRunScope, type Engine, type RunScope } from './context.js';
import { crashPoint } from '../crash-points.js';
import { statusCapacity } from './fair-share.js';

/**
 * Render the run's status comment from one read of the database (core decides what it says).
 * `repository`: its tasks' overlap waits are shown; `graph`: the run's graph as the caller read
 * it, not read again.
 */
export async function renderRunStatus(
  engine: Engine,
  run: RunRow,
  {
    installationId,
    repository,
    graph,
    baseHeads,
  }: StatusReads & {
    installationId?: number;
    repository?: RepositoryRow;
  } = {},
): Promise<string> {
  const [{ tasks, depsOf, pullOf }, attempts, spentUsd, capacity, overlapWaits] = await Promise.all(
    [
      graph ?? engine.store.runs.graphOf(run.id),
      engine.store.attempts.ofRun(run.id),
      engine.store.attempts.spentByRun(run.id),
      statusCapacity(engine, run.repositoryId),
      repository && overlapReasonsOf(engine, repository, run.id, baseHeads),
    ],
  );
  const config = run.config as RepoConfig;
  const nextWriteInSeconds =
    installationId === undefined
      ? undefined
      : await engine.writeBudget?.nextWriteInSeconds(installationId);
  const view = statusViewOf({
    run: {
      id: run.id,
      state: run.state as RunState,
      issueNumber: run.issueNumber,
      planError: run.planError,
      holdReason: run.holdReason,
      endReason: run.endReason,
      budgetWaived: run.budgetWaived,
      maxParallel: config.concurrency.maxParallel,
      maxCostUsdPerRun: config.budget.maxCostUsdPerRun,
      // A run recorded before its base was merges into the default branch (runBaseOf).
      baseBranch: run.baseBranch ?? repository?.defaultBranch ?? null,
    },
    tasks: tasks.map((t) => ({ ...t, nextAttemptAt: t.nextAttemptAt?.getTime() ?? null })),
    depsOf,
    attempts,
    // Each task's PR, as the graph reads it with its task: an earlier PR of the task says nothing.
    pulls: [...pullOf.values()],
    spentUsd,
    inflight: capacity.inflight,
    globalLimit: engine.maxParallel,
    ...(capacity.installation ? { installation: capacity.installation } : {}),
    now: engine.now().getTime(),
    nextWriteInSeconds,
    ...(overlapWaits ? { overlapWaits } : {}),
  });
  return renderStatusComment(view);
}

/** What the caller of a status refresh has read already, and need not be read again. */
interface StatusReads {
  /** The run's graph, when nothing changed it since it was read (a `/status` command). */
  graph?: RunGraph;
  /** The heads of the repository's base branches as the caller's turn read them (the sweep's). */
  baseHeads?: BaseHeads;
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
  {
    scopeOf = (run) => loadRunScope(engine, run),
    graph,
    baseHeadsOf,
  }: Omit<StatusReads, 'baseHeads'> & {
    /**
     * How the caller builds scopes (the sweep shares one repository read among its runs; a
     * command has its run's scope already).
     */
    scopeOf?: (run: RunRow) => Promise<RunScope>;
    /** The base heads the caller read for the run's repository (the sweep's, per repository). */
    baseHeadsOf?: (repositoryId: number) => BaseHeads;
  } = {},
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
        await renderRunStatus(engine, run, {
          installationId: scope.installationId,
          repository: scope.repository,
          graph,
          baseHeads: baseHeadsOf?.(run.repositoryId),
        }),
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
