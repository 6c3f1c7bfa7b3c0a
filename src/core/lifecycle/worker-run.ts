import type { TaskMove } from '../transitions.js';
import { chargesRerun } from './facts.js';

/**
 * Conclusions of a worker's workflow run that fail its attempt (docs/lifecycle.md "Failures").
 * `neutral` and `skipped` fail it too: the worker reports success only by concluding `success`.
 */
const FAILING_CONCLUSIONS: ReadonlySet<string> = new Set([
  'failure',
  'timed_out',
  'startup_failure',
  'cancelled',
  'action_required',
  'stale',
  'neutral',
  'skipped',
]);

/** What the coordinator knows of the attempt a workflow run belongs to. */
export interface WorkerRunSnapshot {
  /** `intent`, `dispatched`, `running` or `completed` (the attempts table's phase). */
  phase: string;
  /** The planner's attempt: it has no PR and is never retried. */
  planner: boolean;
  /** Completed before its run ended and charged nothing (facts.ts, awaitsSpendOfItsRun). */
  awaitsSpend?: boolean;
  /** The re-runs of its run whose spend it has been charged (facts.ts, chargesRerun). */
  chargedRunAttempts?: readonly number[];
}

/** A `workflow_run` delivery (or the sweep's read of the run), as GitHub reports it. */
export interface WorkerRunEvent {
  status: string;
  conclusion: string | null;
  /** GitHub's `run_attempt`: 2 and on for a re-run of the run's jobs; 1 when not given. */
  runAttempt?: number;
}

export type WorkerRunDecision =
  | { kind: 'ignore'; reason: string }
  | { kind: 'mark_running' }
  /** The planner's one attempt is over; the plan itself comes as its comment. */
  | { kind: 'complete_planner'; conclusion: string; move: TaskMove }
  /** The worker succeeded: its PR (looked up on GitHub) decides between review and `no_changes`. */
  | { kind: 'complete_succeeded' }
  | { kind: 'complete_failed'; conclusion: string }
  /**
   * The run of an attempt completed before it ended (timed out, cancelled) has ended: what its
   * agent job said is charged.
   */
  | { kind: 'charge_after_run' }
  /** A re-run of the completed attempt's run has ended: what its agent job said is charged. */
  | { kind: 'charge_rerun'; runAttempt: number };

/** docs/lifecycle.md steps 5–6: what a worker run's progress does to its attempt. */
export function decideWorkerRun(
  attempt: WorkerRunSnapshot,
  run: WorkerRunEvent,
): WorkerRunDecision {
  if (attempt.phase === 'completed') {
    if (run.status !== 'completed') return { kind: 'ignore', reason: 'attempt already completed' };
    const runAttempt = run.runAttempt ?? 1;
    if (runAttempt > 1)
      return chargesRerun(
        { ...attempt, chargedRunAttempts: attempt.chargedRunAttempts ?? [] },
        runAttempt,
      )
        ? { kind: 'charge_rerun', runAttempt }
        : { kind: 'ignore', reason: 'that re-run was charged already' };
    if (attempt.awaitsSpend) return { kind: 'charge_after_run' };
    return { kind: 'ignore', reason: 'attempt already completed' };
  }
  if (run.status !== 'completed') {
    return attempt.phase === 'running'
      ? { kind: 'ignore', reason: 'attempt already running' }
      : { kind: 'mark_running' };
  }
  // A completed run without a conclusion is one GitHub could not finish: a failure.
  const conclusion = run.conclusion ?? 'failure';
  if (attempt.planner) {
    return { kind: 'complete_planner', conclusion, move: plannerMoveAfter(conclusion) };
  }
  if (conclusion === 'success') return { kind: 'complete_succeeded' };
  if (FAILING_CONCLUSIONS.has(conclusion)) return { kind: 'complete_failed', conclusion };
  return { kind: 'ignore', reason: `conclusion "${conclusion}" is not one GitHub ends a run with` };
}

/** A planner task ends with its one attempt: `merged` stands for "planned" (it has no PR). */
export function plannerMoveAfter(conclusion: string): TaskMove {
  if (conclusion === 'success') return 'merged';
  return conclusion === 'cancelled' ? 'cancelled' : 'failed';
}
