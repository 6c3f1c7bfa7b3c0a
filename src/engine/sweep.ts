import type { RepoConfig } from '../config/schema.js';
import {
  decideStalledRun,
  decideSweepAttempt,
  hasOpenPull,
  missesChangedFiles,
  readsLatestAttempt,
  readsPullRow,
  sweepAttemptRead,
  sweepRunAction,
  unreachableBecause,
  type StalledRunTask,
  type Unreachable,
  type SweepAttemptRead,
  type SweepAttemptSnapshot,
} from '../core/lifecycle/index.js';
import type { WorkflowRunInfo } from '../github/port.js';
import type { AttemptRow } from '../store/attempt-row.js';
import type { RunRow, TaskRow } from '../store/runs.js';
import { loadRunScope, type Engine, type RunScope } from './context.js';
import { findDispatchedRun } from './match-run.js';
import { performDispatch, scheduleRepository } from './dispatch.js';
import { recordFailedAttempt } from './failures.js';
import { settleRun } from './finish.js';
import { advanceRun } from './merge/index.js';
import { completePlannerAttempt, isPlannerTask } from './planner.js';
import { cancelAttempt } from './cancel-attempt.js';
import { recordChangedFiles } from './changed-files.js';
import { refreshStatus } from './status.js';
import type { BaseHeads } from './overlap.js';
import { moveOnFromAttempt, onWorkflowRun } from './track.js';
import { endUnreachableRun, type OpenAttempt } from './unreachable.js';
import { crashPoint } from '../crash-points.js';

export interface SweepOptions {
  /** How long a dispatch may go without a known workflow run before GitHub is asked. */
  graceMs?: number;
}

export interface SweepReport {
  adopted: number;
  redispatched: number;
  timedOut: number;
  reconciled: number;
  scheduled: number;
  statusWrites: number;
  /** Runs of repositories the App can no longer reach, ended here (docs/running.md). */
  ended: number;
}

/**
 * Repair what missed webhooks and crashes left behind, using the same decision code as the
 * webhook path: dispatches with no run, runs that ended unseen, timeouts, due retries.
 */
export async function sweep(engine: Engine, options: SweepOptions = {}): Promise<SweepReport> {
  const graceMs = options.graceMs ?? 60_000;
  const now = engine.now();
  const report: SweepReport = {
    adopted: 0,
    redispatched: 0,
    timedOut: 0,
    reconciled: 0,
    scheduled: 0,
    statusWrites: 0,
    ended: 0,
  };
  const repositories = new Set<number>();
  // One read of each repository and one port per installation, however many of its runs and
  // attempts the sweep looks at, and only for those that need GitHub. Each scope carries the
  // run as the sweep read it last.
  const bases = new Map<number, Promise<RunScope>>();
  // The heads of each repository's base branches, read once in the sweep: by its scheduling
  // pass (a branch for a dispatch, the tree for overlapping files) and its status refreshes.
  const baseHeads = new Map<number, BaseHeads>();
  const baseHeadsOf = (repositoryId: number): BaseHeads => {
    let heads = baseHeads.get(repositoryId);
    if (!heads) baseHeads.set(repositoryId, (heads = new Map()));
    return heads;
  };
  const scopeOf = async (run: RunRow): Promise<RunScope> => {
    let base = bases.get(run.repositoryId);
    if (!base) bases.set(run.repositoryId, (base = loadRunScope(engine, run)));
    const { port, repository } = await base;
    return loadRunScope(engine, run, port, repository);
  };

  // Repositories the App can no longer reach (docs/running.md, "Removing the App"): GitHub would
  // refuse every call for them, so none is made; their runs end, as the installation event that
  // recorded it ended them, in case its handling was cut short.
  const unreachable = new Map<number, Unreachable>();
  for (const row of await engine.store.repositories.unreachable()) {
    const why = unreachableBecause(row);
    if (why) unreachable.set(row.id, why);
  }
  const toEnd = new Map<number, { run: RunRow; open: OpenAttempt[] }>();
  const endLater = (run: RunRow) => {
    let entry = toEnd.get(run.id);
    if (!entry) toEnd.set(run.id, (entry = { run, open: [] }));
    return entry;
  };

  for (const open of await engine.store.attempts.open()) {
    if (unreachable.has(open.run.repositoryId)) {
      endLater(open.run).open.push(open);
      continue;
    }
    repositories.add(open.run.repositoryId);
    try {
      await sweepAttempt(engine, open, { now, graceMs, report, scopeOf });
    } catch (error) {
      engine.log.error(
        {
          err: error,
          run: open.run.id,
          issue: open.run.issueNumber,
          task: open.task.taskKey,
          attempt: open.attempt.attempt,
        },
        'sweep could not check this attempt',
      );
    }
  }

  // Merges whose events were missed (checks, reviews, statuses, which have no event here).
  for (const run of await engine.store.runs.activeRuns()) {
    if (unreachable.has(run.repositoryId)) {
      endLater(run);
      continue;
    }
    repositories.add(run.repositoryId);
    const action = sweepRunAction(run.state);
    if (action === 'settle') {
      // Every task merged, but labelling or closing the issue failed and nothing retried it.
      try {
        await settleRun(engine, await scopeOf(run));
      } catch (error) {
        engine.log.error({ err: error, run: run.id }, 'sweep could not close out a done run');
      }
      continue;
    }
    if (action === 'skip') continue;
    try {
      const tasks = await engine.store.runs.tasksOf(run.id);
      report.reconciled += await resumeStalled(engine, run, tasks, graceMs, scopeOf);
      const pulls = await engine.store.pulls.ofRun(run.id);
      // A PR whose opening or latest push was not delivered: its real files, at the head its row
      // holds (the worker's completion, or a merge decision's read of the PR, recorded it),
      // replace the declaration or the files of an earlier head now.
      for (const task of tasks) {
        const head =
          pulls.find((p) => p.taskId === task.id && p.number === task.prNumber)?.headSha ?? null;
        if (!missesChangedFiles(task, head)) continue;
        const scope = await scopeOf(run);
        await recordChangedFiles(engine, scope.port, scope.repo, run.repositoryId, task, {
          number: task.prNumber!,
          head,
        });
      }
      if (hasOpenPull(pulls)) await advanceRun(engine, await scopeOf(run));
    } catch (error) {
      engine.log.error({ err: error, run: run.id }, 'sweep could not advance merges');
    }
  }

  for (const { run, open } of toEnd.values()) {
    try {
      if (await endUnreachableRun(engine, run, open, unreachable.get(run.repositoryId)!))
        report.ended++;
    } catch (error) {
      engine.log.error({ err: error, run: run.id }, 'sweep could not end a run it cannot reach');
    }
  }

  for (const repositoryId of repositories) {
    try {
      // A scope that could not be built (no token) leaves the pass to read the repository.
      const known = await bases.get(repositoryId)?.catch(() => undefined);
      report.scheduled += await scheduleRepository(
        engine,
        repositoryId,
        known?.repository,
        baseHeadsOf(repositoryId),
      );
    } catch (error) {
      engine.log.error({ err: error, repository: repositoryId }, 'sweep could not schedule');
    }
  }

  for (const { id: runId, repositoryId } of await engine.store.runs.runsNeedingStatus()) {
    // Its comment shows the run's end once the App can reach the repository again.
    if (unreachable.has(repositoryId)) continue;
    try {
      if (await refreshStatus(engine, runId, { scopeOf, baseHeadsOf })) report.statusWrites++;
    } catch (error) {
      engine.log.error({ err: error, run: runId }, 'sweep could not refresh a status comment');
    }
  }
  return report;
}

interface AttemptSweep {
  now: Date;
  graceMs: number;
  report: SweepReport;
  scopeOf: (run: RunRow) => Promise<RunScope>;
}

/**
 * One open attempt: core's `decideSweepAttempt` decides, asking for each GitHub read it needs
 * (the run found by name, the tracked run, the public URL) before it decides again; its effects
 * are applied in order.
 */
async function sweepAttempt(
  engine: Engine,
  open: OpenAttempt,
  { now, graceMs, report, scopeOf }: AttemptSweep,
): Promise<void> {
  const { attempt, task, run } = open;
  const log = engine.log.child({
    run: run.id,
    issue: run.issueNumber,
    task: task.taskKey,
    attempt: attempt.attempt,
  });
  let snapshot: SweepAttemptSnapshot<WorkflowRunInfo> = {
    run: { state: run.state, finished: run.finishedAt !== null },
    task: { state: task.state, planner: isPlannerTask(task), timeoutMinutes: task.timeoutMinutes },
    workerTimeoutMinutes: (run.config as RepoConfig).worker.timeoutMinutes,
    attempt: {
      phase: attempt.phase,
      workflowRunId: attempt.workflowRunId,
      startedAt: (attempt.dispatchedAt ?? attempt.intentAt).getTime(),
    },
  };
  let effects = decideSweepAttempt(snapshot, now.getTime(), graceMs);
  // Each fact is read once: a decision asking again would otherwise loop.
  const taken = new Set<string>();
  for (let read = sweepAttemptRead(effects); read; read = sweepAttemptRead(effects)) {
    if (taken.has(read.fact)) throw new Error(`sweep asked to read ${read.fact} twice`);
    taken.add(read.fact);
    snapshot = { ...snapshot, ...(await readForSweep(engine, open, read, scopeOf)) };
    effects = decideSweepAttempt(snapshot, now.getTime(), graceMs);
  }

  for (const effect of effects) {
    switch (effect.kind) {
      case 'none':
        log.debug({ why: effect.reason }, 'sweep: nothing to do for this attempt');
        break;
      case 'read':
        // sweepAttemptRead took every read above.
        throw new Error(`sweep read of ${effect.fact} not taken`);
      case 'adopt': {
        const scope = await scopeOf(run);
        crashPoint('sweep.before-adopt');
        await onWorkflowRun(engine, scope.repositoryId, effect.run, scope);
        report.adopted++;
        break;
      }
      case 'completePlanner':
        await completePlannerAttempt(engine, task, attempt, effect.conclusion);
        break;
      case 'redispatch': {
        const scope = await scopeOf(run);
        // GitHub confirms no run exists for this attempt: the dispatch never happened.
        log.warn('no workflow run for this dispatch; dispatching again');
        crashPoint('sweep.before-redispatch');
        await performDispatch(engine, { attempt, task, run }, scope);
        report.redispatched++;
        break;
      }
      case 'cancelAttempt':
        if (await cancelAttempt(engine, await scopeOf(run), task, attempt, effect.why))
          log.warn({ why: effect.why }, 'attempt of a cancel that was cut short: cancelled');
        break;
      case 'cancelRun': {
        const scope = await scopeOf(run);
        await scope.port.cancelWorkflowRun(scope.repo, effect.workflowRunId);
        break;
      }
      case 'timeOutPlanner':
        if (!(await completePlannerAttempt(engine, task, attempt, 'timed_out'))) return;
        log.warn({ timeoutMs: effect.timeoutMs }, 'planner run timed out; cancelled');
        report.timedOut++;
        break;
      case 'timeOutWorker': {
        const done = await engine.store.attempts.complete(attempt.id, {
          conclusion: 'timed_out',
          failureReason: 'timed_out',
        });
        if (!done) return;
        log.warn({ timeoutMs: effect.timeoutMs }, 'worker run timed out; cancelled');
        await recordFailedAttempt(engine, await scopeOf(run), task, done, effect.why);
        report.timedOut++;
        break;
      }
      case 'reconcile': {
        const scope = await scopeOf(run);
        await onWorkflowRun(engine, scope.repositoryId, effect.run, scope);
        report.reconciled++;
        break;
      }
    }
  }
}

/** What GitHub (or the public URL) answers for one read `decideSweepAttempt` asked for. */
async function readForSweep(
  engine: Engine,
  { attempt, task, run }: OpenAttempt,
  read: SweepAttemptRead,
  scopeOf: (run: RunRow) => Promise<RunScope>,
): Promise<Partial<SweepAttemptSnapshot<WorkflowRunInfo>>> {
  switch (read.fact) {
    case 'dispatchedRun': {
      const found = await findDispatchedRun(await scopeOf(run), {
        issueNumber: run.issueNumber,
        taskKey: task.taskKey,
        attempt: attempt.attempt,
        intentAt: attempt.intentAt,
      });
      return { workflowRun: found ?? null };
    }
    case 'trackedRun': {
      const scope = await scopeOf(run);
      return { workflowRun: await scope.port.workflowRun(scope.repo, read.workflowRunId) };
    }
    case 'coordinatorUrl':
      return { canDispatch: Boolean(await engine.coordinatorUrl()) };
  }
}

/**
 * What a process that died mid-step leaves behind in a run, once older than the grace period:
 * a task still dispatched or running after its attempt completed moves on; a `merging` claim
 * whose merge call never came back (and that no merge queue holds) is released, so the merge is
 * decided again from GitHub's current state.
 */
async function resumeStalled(
  engine: Engine,
  run: RunRow,
  tasks: readonly TaskRow[],
  graceMs: number,
  scopeOf: (run: RunRow) => Promise<RunScope>,
): Promise<number> {
  const pulls = tasks.some((task) => readsPullRow(task.state))
    ? await engine.store.pulls.ofRun(run.id)
    : [];
  const latestOf = new Map<string, AttemptRow>();
  const views: StalledRunTask[] = [];
  for (const task of tasks) {
    const latest = readsLatestAttempt(task.state)
      ? await engine.store.attempts.latestOf(task.id)
      : undefined;
    if (latest) latestOf.set(task.taskKey, latest);
    const pull = pulls.find((p) => p.taskId === task.id && p.number === task.prNumber);
    views.push({
      key: task.taskKey,
      state: task.state,
      approvedSha: task.approvedSha,
      attemptCount: task.attemptCount,
      updatedAt: task.updatedAt.getTime(),
      latestAttempt: latest && {
        phase: latest.phase,
        attempt: latest.attempt,
        completedAt: latest.completedAt?.getTime() ?? null,
      },
      inMergeQueue: pull?.enqueuedAt != null,
    });
  }
  // The rows' times (completedAt, updatedAt) are the process clock's.
  const effects = decideStalledRun(views, Date.now(), graceMs);
  const taskOf = (key: string): TaskRow => {
    const task = tasks.find((t) => t.taskKey === key);
    // decideStalledRun only names tasks it was shown.
    if (!task) throw new Error(`no task ${key} in run ${run.id}`);
    return task;
  };
  let scope: RunScope | undefined;
  let resumed = 0;
  for (const effect of effects) {
    switch (effect.kind) {
      case 'none':
        engine.log.debug({ run: run.id, why: effect.reason }, 'sweep: nothing stalled');
        break;
      case 'settle':
        await settleRun(engine, await loadRunScope(engine, run));
        resumed++;
        break;
      case 'moveOn': {
        const latest = latestOf.get(effect.task);
        // decideStalledRun moves a task on only from the attempt it was shown.
        if (!latest) throw new Error(`no attempt of task ${effect.task} in run ${run.id}`);
        scope ??= await scopeOf(run);
        await moveOnFromAttempt(engine, scope, taskOf(effect.task), latest);
        resumed++;
        break;
      }
      case 'releaseMerge':
        engine.log.warn({ run: run.id, task: effect.task }, 'stale merge claim released');
        if (await engine.store.runs.transitionTask(taskOf(effect.task).id, effect.move)) resumed++;
        break;
    }
  }
  return resumed;
}
