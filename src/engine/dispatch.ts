import { AsyncLocalStorage } from 'node:async_hooks';
import { statusOf } from '../github/port.js';
import { WORKER_MODES, type WorkerMode } from '../protocol/assignment.js';
import type { DispatchIntent } from '../store/attempts.js';
import type { RepositoryRow } from '../store/repositories.js';
import { buildDispatchInputs } from '../protocol/assignment.js';
import { taskBranch } from '../protocol/branch.js';
import { runName } from '../protocol/run-name.js';
import { loadRunScope, runBaseOf, timeDecision, type Engine, type RunScope } from './context.js';
import { failTaskForGood } from './failures.js';
import { isPlannerTask, plannerRefused } from './planner.js';
import { crashPoint } from '../crash-points.js';
import { stackedBase, stackedPull } from '../core/stack/index.js';
import { decideDispatchFailure, unreachableBecause } from '../core/lifecycle/index.js';
import { overlapDecision, type BaseHeads } from './overlap.js';
import { shareDecision } from './fair-share.js';

/**
 * Dispatch what is ready in one repository. Intents are recorded first (under the repository
 * lock), then GitHub is called, then the run id is recorded: a crash in between leaves an
 * intent that the sweep resolves against GitHub, never a second dispatch.
 */
export function scheduleRepository(
  engine: Engine,
  repositoryId: number,
  /** The repository's row, when the caller read it with its run: its limit is not read again. */
  known?: RepositoryRow,
  /** The heads of its base branches as the caller's turn read them (the sweep's), or reads. */
  baseHeads?: BaseHeads,
): Promise<number> {
  // Inside one delivery's handling every pass it asks for is one pass, at the end.
  if (deferSchedule(repositoryId, known)) return Promise.resolve(0);
  return scheduleAndHandOff(engine, repositoryId, known, baseHeads);
}

/**
 * A pass and the passes it hands off: the repositories of other installations that may start a
 * task now (`shareDecision`), once this one's installation has what its share lets it take. A
 * slot freed in an installation over its share goes to the one that waits at once, not at the
 * next sweep; the passes handed off hand nothing further, and one that fails is the other
 * repository's to retry (the sweep schedules it), not this delivery's.
 */
async function scheduleAndHandOff(
  engine: Engine,
  repositoryId: number,
  known: RepositoryRow | undefined,
  baseHeads?: BaseHeads,
): Promise<number> {
  const handOff: number[] = [];
  let scheduled = await timeDecision(engine, 'schedule', () =>
    schedule(engine, repositoryId, known, baseHeads, handOff),
  );
  for (const other of handOff) {
    try {
      scheduled += await timeDecision(engine, 'schedule', () => schedule(engine, other, undefined));
    } catch (error) {
      engine.log.error(
        { err: error, repository: other },
        'a pass handed a share could not schedule',
      );
    }
  }
  return scheduled;
}

/**
 * Runs `fn` (one delivery's handling) with its scheduling passes deferred to its end and made
 * once per repository: a completion that frees a slot and merges a PR that frees dependents
 * asks for two passes, and the second would find nothing the first did not. When `fn` throws,
 * no pass runs: the retried delivery, or the sweep, schedules.
 */
export async function schedulingOnce<T>(engine: Engine, fn: () => Promise<T>): Promise<T> {
  if (deferred.getStore()) return fn();
  const wanted = new Map<number, RepositoryRow | undefined>();
  const value = await deferred.run(wanted, fn);
  for (const [repositoryId, known] of wanted) await scheduleAndHandOff(engine, repositoryId, known);
  return value;
}

const deferred = new AsyncLocalStorage<Map<number, RepositoryRow | undefined>>();

function deferSchedule(repositoryId: number, known: RepositoryRow | undefined): boolean {
  const wanted = deferred.getStore();
  if (!wanted) return false;
  wanted.set(repositoryId, known ?? wanted.get(repositoryId));
  return true;
}

async function schedule(
  engine: Engine,
  repositoryId: number,
  known: RepositoryRow | undefined,
  baseHeads: BaseHeads = new Map(),
  /** Filled with the repositories core hands the rest of the cap to; left alone: none. */
  handOff?: number[],
): Promise<number> {
  // The repository's limit as its newest run saw the config (written at each run's start).
  const repository = known ?? (await engine.store.repositories.getRepository(repositoryId));
  if (!repository || repository.maxParallel === null) return 0;
  if (unreachableBecause(repository)) {
    // Nothing of it is claimed or read of GitHub (docs/running.md, "Removing the App"), and the
    // claim refuses it too; the slots its ended runs freed go to the repositories waiting.
    handOff?.push(...(await shareDecision(engine, repositoryId)).handOff);
    return 0;
  }
  // A worker that cannot reach the coordinator cannot get its assignment: claim nothing yet
  // (the public URL's own log line says why), and the sweep schedules again.
  if (!(await engine.coordinatorUrl())) return 0;
  // One scope per run and one read of each base branch per pass, however many tasks go out.
  const pass: DispatchPass = { baseHeads };
  const share = await shareDecision(engine, repositoryId);
  handOff?.push(...share.handOff);
  const intents = await engine.store.attempts.claimDispatches(
    repositoryId,
    {
      repoLimit: repository.maxParallel,
      globalLimit: engine.maxParallel,
      installationLimit: share.installation?.ceiling,
      now: engine.now(),
    },
    await overlapDecision(engine, repository, pass.baseHeads),
  );
  for (const intent of intents) engine.requestStatus(intent.run.id);
  const scopes = new Map<number, Promise<RunScope>>();
  await Promise.all(
    intents.map(async (intent) => {
      let scope = scopes.get(intent.run.id);
      if (!scope)
        scopes.set(
          intent.run.id,
          (scope = loadRunScope(engine, intent.run, undefined, repository)),
        );
      await performDispatch(engine, intent, await scope, pass);
    }),
  );
  return intents.length;
}

/** What the dispatches of one scheduling pass share. */
export interface DispatchPass {
  /** Base branch → its head, read once per pass. */
  baseHeads: BaseHeads;
}

/** The worker's mode for an attempt's: `plan` (the planner task), `fix`, or `work`. */
export function workerModeOf(mode: string): WorkerMode {
  return WORKER_MODES.find((m) => m === mode) ?? 'work';
}

/**
 * Create the branch if missing and dispatch the worker; safe to call again for the same intent.
 * The planner task's intent comes here too, from its own claim (start-run.ts, `dispatchPlanner`).
 */
export async function performDispatch(
  engine: Engine,
  intent: DispatchIntent,
  scope?: RunScope,
  pass: DispatchPass = { baseHeads: new Map() },
): Promise<void> {
  const { attempt, task, run } = intent;
  const s = scope ?? (await loadRunScope(engine, run));
  const log = engine.log.child({
    run: run.id,
    issue: run.issueNumber,
    task: task.taskKey,
    attempt: attempt.attempt,
  });
  const branch = taskBranch(run.issueNumber, task.taskKey);
  try {
    crashPoint('dispatch.intent-recorded');
    const coordinatorUrl = await engine.coordinatorUrl();
    if (!coordinatorUrl) throw new Error('the public URL is unknown; nothing is dispatched');
    const base = await runBaseOf(run, s.port, s.repo);
    // A first attempt's branch is new, so it is created without asking first (GitHub's 422
    // says when it exists after all); a retry's branch usually exists, with the PR on it.
    const branchMissing =
      attempt.attempt === 1 || (await s.port.branchHead(s.repo, branch)) === null;
    if (branchMissing) {
      let baseHead = pass.baseHeads.get(base);
      if (!baseHead) pass.baseHeads.set(base, (baseHead = s.port.branchHead(s.repo, base)));
      // dispatch.stack: from the head of the one unmerged dependency's PR it was permitted on.
      const baseSha = stackedBase(run, task) === null ? await baseHead : task.stackParentHead;
      if (baseSha === null)
        throw Object.assign(new Error(`base branch "${base}" does not exist`), { status: 422 });
      await s.port.ensureBranch(s.repo, branch, baseSha);
      crashPoint('dispatch.branch-created');
    }
    // Before the run exists: its first job asks for the assignment as soon as it starts.
    const stackParentPr = stackedPull(task);
    if (stackParentPr !== null) await engine.store.attempts.update(attempt.id, { stackParentPr });
    const inputs = buildDispatchInputs({
      taskKey: task.taskKey,
      issueNumber: run.issueNumber,
      attempt: attempt.attempt,
      mode: workerModeOf(attempt.mode),
      coordinatorUrl,
    });
    const result = await s.port.dispatchWorkflow(s.repo, {
      workflow: s.config.worker.workflow,
      ref: branch,
      inputs,
    });
    crashPoint('dispatch.called');
    const recorded = await engine.store.attempts.recordDispatched(attempt.id, {
      dispatchedAt: engine.now(),
      workflowRunId: result.runId ?? null,
      workflowRunUrl: result.runUrl ?? null,
    });
    if (!recorded) {
      // Its task was cancelled while the dispatch was out (src/engine/cancel-attempt.ts): the
      // attempt stays completed, so the run gets no assignment, and is cancelled once known.
      log.info({ workflowRun: result.runId }, 'attempt ended while its dispatch was out');
      if (result.runId !== undefined) await cancelUnwantedRun(s, result.runId, log);
      return;
    }
    crashPoint('dispatch.run-recorded');
    log.info(
      { workflowRun: result.runId, name: runName(run.issueNumber, task.taskKey, attempt.attempt) },
      'task dispatched',
    );
  } catch (error) {
    const status = statusOf(error);
    const failure = decideDispatchFailure(status, (error as Error).message, isPlannerTask(task));
    if (failure.kind === 'planner_refused') {
      log.error({ err: error }, 'planner dispatch refused');
      await plannerRefused(engine, s, task, attempt, status!, error as Error);
      return;
    }
    if (failure.kind === 'fail_task') {
      log.error({ err: error }, 'dispatch refused');
      await engine.store.attempts.complete(attempt.id, {
        conclusion: 'dispatch_failed',
        failureReason: failure.reason,
      });
      await failTaskForGood(engine, s, task.id, failure.reason, null);
      return;
    }
    log.warn({ err: error }, 'dispatch failed; the sweep will retry it');
  }
}

/**
 * A best effort, and no failure of the dispatch: the run's attempt is completed, so its
 * assignment is refused (`run_finished`) whether or not GitHub cancels it.
 */
async function cancelUnwantedRun(s: RunScope, runId: number, log: Engine['log']): Promise<void> {
  try {
    await s.port.cancelWorkflowRun(s.repo, runId);
  } catch (error) {
    log.warn({ err: error, workflowRun: runId }, 'the run of an ended attempt was not cancelled');
  }
}
