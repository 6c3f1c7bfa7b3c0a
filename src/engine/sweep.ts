import type { RepoConfig } from '../config/schema.js';
import {
  awaitsPlan,
  decideSettle,
  decideStalledTask,
  decideWorkerRun,
  hasOpenPull,
  mergeReleased,
  missesChangedFiles,
  readsLatestAttempt,
  readsPullRow,
  sweepRunAction,
} from '../core/lifecycle/index.js';
import type { PullRow } from '../store/pulls.js';
import type { RunRow, TaskRow } from '../store/runs.js';
import { loadRunScope, type Engine, type RunScope } from './context.js';
import { findDispatchedRun } from './match-run.js';
import { performDispatch, scheduleRepository } from './dispatch.js';
import { recordFailedAttempt } from './failures.js';
import { settleRun } from './finish.js';
import { advanceRun } from './merge/index.js';
import { completePlannerAttempt, isPlannerTask } from './planner.js';
import { recordChangedFiles } from './changed-files.js';
import { refreshStatus } from './status.js';
import { moveOnFromAttempt, onWorkflowRun } from './track.js';
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
  };
  const repositories = new Set<number>();
  // One read of each repository and one port per installation, however many of its runs and
  // attempts the sweep looks at, and only for those that need GitHub. Each scope carries the
  // run as the sweep read it last.
  const bases = new Map<number, Promise<RunScope>>();
  const scopeOf = async (run: RunRow): Promise<RunScope> => {
    let base = bases.get(run.repositoryId);
    if (!base) bases.set(run.repositoryId, (base = loadRunScope(engine, run)));
    const { port, repository } = await base;
    return loadRunScope(engine, run, port, repository);
  };

  for (const open of await engine.store.attempts.open()) {
    const { attempt, task, run } = open;
    repositories.add(run.repositoryId);
    const log = engine.log.child({
      run: run.id,
      issue: run.issueNumber,
      task: task.taskKey,
      attempt: attempt.attempt,
    });
    try {
      const config = run.config as RepoConfig;
      const startedAt = attempt.dispatchedAt ?? attempt.intentAt;
      const timeoutMs = (task.timeoutMinutes ?? config.worker.timeoutMinutes) * 60_000;

      if (attempt.workflowRunId === null) {
        if (now.getTime() - startedAt.getTime() < graceMs) continue;
        const scope = await scopeOf(run);
        const found = await findDispatchedRun(scope, {
          issueNumber: run.issueNumber,
          taskKey: task.taskKey,
          attempt: attempt.attempt,
          intentAt: attempt.intentAt,
        });
        if (found) {
          crashPoint('sweep.before-adopt');
          await onWorkflowRun(engine, scope.repositoryId, found, scope);
          report.adopted++;
        } else if (isPlannerTask(task) && !awaitsPlan(run.state)) {
          // Planned meanwhile (a `/plan`, or the run ended): a planner is no longer wanted.
          await completePlannerAttempt(engine, task, attempt, 'not_dispatched');
        } else if (!run.finishedAt && (await engine.coordinatorUrl())) {
          // GitHub confirms no run exists for this attempt: the dispatch never happened.
          log.warn('no workflow run for this dispatch; dispatching again');
          crashPoint('sweep.before-redispatch');
          await performDispatch(engine, { attempt, task, run }, scope);
          report.redispatched++;
        }
        continue;
      }

      const scope = await scopeOf(run);
      if (now.getTime() - startedAt.getTime() > timeoutMs) {
        await scope.port.cancelWorkflowRun(scope.repo, attempt.workflowRunId);
        if (isPlannerTask(task)) {
          // Its assignment gave it the worker timeout too; nothing retries a planner.
          if (await completePlannerAttempt(engine, task, attempt, 'timed_out')) {
            log.warn({ timeoutMs }, 'planner run timed out; cancelled');
            report.timedOut++;
          }
          continue;
        }
        const done = await engine.store.attempts.complete(attempt.id, {
          conclusion: 'timed_out',
          failureReason: 'timed_out',
        });
        if (done) {
          log.warn({ timeoutMs }, 'worker run timed out; cancelled');
          await recordFailedAttempt(
            engine,
            scope,
            task,
            done,
            `the worker run passed its ${timeoutMs / 60_000}-minute timeout`,
          );
          report.timedOut++;
        }
        continue;
      }

      const current = await scope.port.workflowRun(scope.repo, attempt.workflowRunId);
      // The same decision as the run's webhook: only what it would change is reconciled.
      if (
        current &&
        decideWorkerRun({ phase: attempt.phase, planner: isPlannerTask(task) }, current).kind !==
          'ignore'
      ) {
        await onWorkflowRun(engine, scope.repositoryId, current, scope);
        report.reconciled++;
      }
    } catch (error) {
      log.error({ err: error }, 'sweep could not check this attempt');
    }
  }

  // Merges whose events were missed (checks, reviews, statuses, which have no event here).
  for (const run of await engine.store.runs.activeRuns()) {
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
      // A PR whose opening was not delivered: its real files replace the declaration now.
      for (const task of tasks.filter(missesChangedFiles)) {
        const scope = await scopeOf(run);
        await recordChangedFiles(
          engine,
          scope.port,
          scope.repo,
          run.repositoryId,
          task,
          task.prNumber!,
        );
      }
      if (hasOpenPull(await engine.store.pulls.ofRun(run.id)))
        await advanceRun(engine, await scopeOf(run));
    } catch (error) {
      engine.log.error({ err: error, run: run.id }, 'sweep could not advance merges');
    }
  }

  for (const repositoryId of repositories) {
    try {
      // A scope that could not be built (no token) leaves the pass to read the repository.
      const known = await bases.get(repositoryId)?.catch(() => undefined);
      report.scheduled += await scheduleRepository(engine, repositoryId, known?.repository);
    } catch (error) {
      engine.log.error({ err: error, repository: repositoryId }, 'sweep could not schedule');
    }
  }

  for (const runId of await engine.store.runs.runsNeedingStatus()) {
    try {
      if (await refreshStatus(engine, runId, scopeOf)) report.statusWrites++;
    } catch (error) {
      engine.log.error({ err: error, run: runId }, 'sweep could not refresh a status comment');
    }
  }
  return report;
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
  // Compared with timestamps the process clock wrote (completedAt, updatedAt).
  const staleBefore = Date.now() - graceMs;
  let scope: RunScope | undefined;
  let pulls: PullRow[] | undefined;
  let resumed = 0;
  // Every task ended but the run was not closed out: the process died after the last merge.
  if (decideSettle(tasks).kind !== 'not_yet') {
    await settleRun(engine, await loadRunScope(engine, run));
    return 1;
  }
  for (const task of tasks) {
    const latest = readsLatestAttempt(task.state)
      ? await engine.store.attempts.latestOf(task.id)
      : undefined;
    if (readsPullRow(task.state)) pulls ??= await engine.store.pulls.ofRun(run.id);
    const pull = pulls?.find((p) => p.taskId === task.id && p.number === task.prNumber);
    const decision = decideStalledTask(
      {
        state: task.state,
        attemptCount: task.attemptCount,
        updatedAt: task.updatedAt.getTime(),
        latestAttempt: latest && {
          phase: latest.phase,
          attempt: latest.attempt,
          completedAt: latest.completedAt?.getTime() ?? null,
        },
        inMergeQueue: pull?.enqueuedAt != null,
      },
      staleBefore,
    );
    if (decision.kind === 'move_on') {
      scope ??= await scopeOf(run);
      await moveOnFromAttempt(engine, scope, task, latest!);
      resumed++;
    } else if (decision.kind === 'release_merge') {
      engine.log.warn({ run: run.id, task: task.taskKey }, 'stale merge claim released');
      if (await engine.store.runs.transitionTask(task.id, mergeReleased(task.state))) resumed++;
    }
  }
  return resumed;
}
