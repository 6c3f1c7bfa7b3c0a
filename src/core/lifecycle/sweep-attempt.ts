import { nothing, type NoEffect } from '../no-effect.js';
import { awaitsPlan, isRunCancelled, isTaskCancelled } from './facts.js';
import { decideWorkerRun, type WorkerRunEvent } from './worker-run.js';

/**
 * An open attempt as the sweep reads it (`attempts.open()` gives it with its task and run), and
 * what GitHub answered, once `decideSweepAttempt` asked for it.
 */
export interface SweepAttemptSnapshot<Run extends WorkerRunEvent = WorkerRunEvent> {
  run: { state: string; finished: boolean };
  task: { state: string; planner: boolean; timeoutMinutes: number | null };
  /** The repository's `worker.timeoutMinutes`: a task's own timeout, when set, wins. */
  workerTimeoutMinutes: number;
  attempt: {
    phase: string;
    workflowRunId: number | null;
    /** When it was dispatched, or its intent recorded when it was not (ms, the engine's clock). */
    startedAt: number;
  };
  /**
   * The attempt's workflow run as GitHub shows it, once read: found by its run-name when the
   * attempt knows no run id (`dispatchedRun`), read by its id otherwise (`trackedRun`); null
   * when GitHub has none.
   */
  workflowRun?: Run | null;
  /** Whether the coordinator's public URL is known (every dispatch carries it), once read. */
  canDispatch?: boolean;
}

/** What the sweep reads before it decides again: only what the decision needs, when it does. */
export type SweepAttemptRead =
  | { fact: 'dispatchedRun' }
  | { fact: 'trackedRun'; workflowRunId: number }
  | { fact: 'coordinatorUrl' };

/**
 * Carried out in order. The completions are guarded writes: when one does not take (the
 * attempt completed meanwhile), the effects after it are not carried out.
 */
export type SweepAttemptEffect<Run extends WorkerRunEvent = WorkerRunEvent> =
  | NoEffect
  /** Read this fact into the snapshot and decide again; it is the only effect then. */
  | ({ kind: 'read' } & SweepAttemptRead)
  /** The run a dispatch started without its id recorded: handled as its webhook would be. */
  | { kind: 'adopt'; run: Run }
  /** The planner's attempt never went out and no planner is wanted any more. */
  | { kind: 'completePlanner'; conclusion: 'not_dispatched' }
  /** GitHub has no run for the attempt: the dispatch never happened, so it is made again. */
  | { kind: 'redispatch' }
  /**
   * Its task or run was cancelled and the cancel's call to GitHub failed: GitHub's run is
   * cancelled when its id is known, then the attempt ends `cancelled`, as the cancel does it.
   */
  | { kind: 'cancelAttempt'; why: string }
  | { kind: 'cancelRun'; workflowRunId: number }
  /** The planner's attempt completes `timed_out`; nothing retries a planner. */
  | { kind: 'timeOutPlanner'; timeoutMs: number }
  /** The worker's attempt completes `timed_out`, and is retried or fails its task (`why`). */
  | { kind: 'timeOutWorker'; timeoutMs: number; why: string }
  /** The run changed unseen (a missed webhook): handled as its webhook would be. */
  | { kind: 'reconcile'; run: Run };

/**
 * docs/running.md "The sweep": what the sweep does with an open attempt at `now`. The attempt of
 * a cancelled task or run ends as the cancel ends it, its run cancelled first. A dispatch
 * with no run yet is left alone for `graceMs` (GitHub lists a run a little after the dispatch),
 * then looked up by name: adopted when found; when not, a planner no longer wanted completes
 * `not_dispatched`, and the attempt of a run not finished is dispatched again once the public URL
 * is known. A tracked run past its timeout is cancelled and its attempt times out; otherwise it
 * is read and reconciled when `decideWorkerRun` says its webhook would have changed something.
 */
export function decideSweepAttempt<Run extends WorkerRunEvent>(
  snapshot: SweepAttemptSnapshot<Run>,
  now: number,
  graceMs: number,
): SweepAttemptEffect<Run>[] {
  const { attempt, task, workflowRun } = snapshot;
  if (isRunCancelled(snapshot.run.state))
    return [{ kind: 'cancelAttempt', why: 'the run was cancelled' }];
  if (isTaskCancelled(task.state))
    return [{ kind: 'cancelAttempt', why: 'the task was cancelled' }];
  const age = now - attempt.startedAt;
  if (attempt.workflowRunId === null) {
    if (age < graceMs)
      return nothing(`dispatched ${seconds(age)} ago, within the ${seconds(graceMs)} grace period`);
    if (workflowRun === undefined) return [{ kind: 'read', fact: 'dispatchedRun' }];
    if (workflowRun) return [{ kind: 'adopt', run: workflowRun }];
    // Planned meanwhile (a `/plan`, or the run ended): a planner is no longer wanted.
    if (task.planner && !awaitsPlan(snapshot.run.state))
      return [{ kind: 'completePlanner', conclusion: 'not_dispatched' }];
    if (snapshot.run.finished) return nothing('no workflow run, and the run is finished');
    if (snapshot.canDispatch === undefined) return [{ kind: 'read', fact: 'coordinatorUrl' }];
    if (!snapshot.canDispatch)
      return nothing('no workflow run, and no dispatch goes out while the public URL is unknown');
    return [{ kind: 'redispatch' }];
  }

  const timeoutMs = (task.timeoutMinutes ?? snapshot.workerTimeoutMinutes) * 60_000;
  if (age > timeoutMs) {
    const cancel = { kind: 'cancelRun', workflowRunId: attempt.workflowRunId } as const;
    if (task.planner) return [cancel, { kind: 'timeOutPlanner', timeoutMs }];
    const why = `the worker run passed its ${timeoutMs / 60_000}-minute timeout`;
    return [cancel, { kind: 'timeOutWorker', timeoutMs, why }];
  }
  if (workflowRun === undefined)
    return [{ kind: 'read', fact: 'trackedRun', workflowRunId: attempt.workflowRunId }];
  if (!workflowRun) return nothing('GitHub has no workflow run of this id');
  // The same decision as the run's webhook: only what it would change is reconciled.
  const decided = decideWorkerRun({ phase: attempt.phase, planner: task.planner }, workflowRun);
  if (decided.kind === 'ignore') return nothing(decided.reason);
  return [{ kind: 'reconcile', run: workflowRun }];
}

/** The read a decision asks for before anything else, if any. */
export function sweepAttemptRead(
  effects: readonly SweepAttemptEffect<WorkerRunEvent>[],
): SweepAttemptRead | undefined {
  const [first] = effects;
  return first?.kind === 'read' ? first : undefined;
}

function seconds(ms: number): string {
  return `${Math.floor(ms / 1000)} s`;
}
