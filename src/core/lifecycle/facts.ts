import type { Usage } from '../../protocol/markers.js';
import type { TaskMove } from '../transitions.js';
import { AWAITING_MERGE_TASK_STATES, type TaskState } from '../states.js';

/**
 * The small rules the engine asks about a row as it goes: one home each, named for what they
 * mean (docs/lifecycle.md), so that no state or conclusion is compared outside core.
 */

/** A pull request GitHub still shows open (a merged PR is closed too). */
export function isOpenPull(pull: { state: string; merged?: boolean }): boolean {
  return pull.state === 'open' && pull.merged !== true;
}

/** Every task merged and the run closing out (its label and close may still be due). */
export function isRunDone(state: string): boolean {
  return state === 'done';
}

/** Cancelled (`/cancel`, the label removed, the issue closed): what the cancel does may be left. */
export function isRunCancelled(state: string): boolean {
  return state === 'cancelled';
}

/** Cancelled (`/cancel` on its PR, or with its run): an attempt still open of it is to end. */
export function isTaskCancelled(state: string): boolean {
  return state === 'cancelled';
}

/** The run still waits for a plan: a planner is wanted, and a plan may be stored. */
export function awaitsPlan(state: string): boolean {
  return state === 'planning';
}

export function isTaskMerged(state: TaskState): boolean {
  return state === 'merged';
}

/**
 * Neither awaiting its merge nor merged: being reworked, or ended unmerged (vetoed, cancelled,
 * failed, blocked). The coordinator would not merge it now, so neither its order check nor a
 * merge group holding its PR passes.
 */
export function awaitsNoMerge(state: TaskState): boolean {
  return !AWAITING_MERGE_TASK_STATES.has(state) && !isTaskMerged(state);
}

/** A merge the coordinator claimed (a direct merge in flight, or its PR in the merge queue). */
export function isMergeClaimed(state: TaskState): boolean {
  return state === 'merging';
}

/**
 * The PR of a task whose merge was handed to GitHub's merge queue: in `merging`, or no longer
 * awaiting its merge since (cancelled, vetoed, failed, or sent back to its worker by a review
 * asking for changes), when it stays in the queue until taken out: GitHub's queue lands it on its
 * merge group's checks alone, whatever became of the task (docs/lifecycle.md, "Reviews").
 */
export function inMergeQueue(state: TaskState, enqueuedAt: Date | null): boolean {
  return enqueuedAt !== null && (isMergeClaimed(state) || awaitsNoMerge(state));
}

/**
 * A merge claim given back: the task waits approved when it still holds an approval, in review
 * otherwise: an approval withdrawn while the merge was claimed (a dismissed review, docs/lifecycle.md
 * "Reviews") leaves the fields empty and the state `merging`.
 */
export function mergeReleased(task: {
  state: TaskState;
  approvedSha?: string | null | undefined;
}): TaskMove {
  const approved = task.state !== 'in_review' && !!task.approvedSha;
  return { event: 'merge released', to: approved ? 'approved' : 'in_review' };
}

/** An attempt whose worker may still be out: its run can be cancelled. */
export function isAttemptOpen(phase: string): boolean {
  return phase !== 'completed';
}

/** The phase an attempt moves to once its workflow run is known. */
export function phaseWithRun(phase: string): string {
  return phase === 'intent' ? 'dispatched' : phase;
}

/** The worker succeeded and reported no failure of its own: its PR goes into review. */
export function attemptSucceeded(attempt: {
  conclusion: string | null;
  failureReason: string | null;
}): boolean {
  return attempt.conclusion === 'success' && attempt.failureReason === null;
}

/**
 * The conclusions the coordinator completes an attempt with before its workflow run has ended: at
 * its timeout (the sweep cancels its run and records `timed_out`) and when it cancels it (`/cancel`
 * of the run or the task, a stacked task whose parent will not merge). The run goes on meanwhile:
 * its agent job says what the agent spent once the agent has ended, stopped a grace margin before
 * the timeout or at the cancel's signal (docs/worker.md, "What the agent spent"), and what the
 * agent left can hold the job past the timeout.
 */
export const COMPLETED_BEFORE_ITS_RUN: readonly string[] = ['timed_out', 'cancelled'];

/**
 * An attempt completed before its run ended and charged nothing: its run's end may say what its
 * agent spent, which is charged then, once.
 */
export function awaitsSpendOfItsRun(attempt: {
  phase: string;
  conclusion: string | null;
  costUsd: number | null;
}): boolean {
  return (
    attempt.phase === 'completed' &&
    attempt.conclusion !== null &&
    COMPLETED_BEFORE_ITS_RUN.includes(attempt.conclusion) &&
    attempt.costUsd === null
  );
}

/**
 * A re-run of the attempt's workflow run (`run_attempt` 2 and on: anyone with write access may
 * re-run its jobs, and within its timeout the agent job runs the agent again) whose spend the
 * attempt has not been charged yet. Each re-run is charged once, as it ends.
 */
export function chargesRerun(
  attempt: { phase: string; chargedRunAttempts: readonly number[] },
  runAttempt: number,
): boolean {
  return (
    attempt.phase === 'completed' &&
    runAttempt > 1 &&
    !attempt.chargedRunAttempts.includes(runAttempt)
  );
}

/**
 * What the attempt is charged already: its worker's publish job said what the agent spent with
 * its request for a token (docs/worker.md, "What the agent spent"), before the attempt ended.
 */
export function chargedUsage(attempt: {
  costUsd: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
}): Usage | undefined {
  if (attempt.costUsd === null) return undefined;
  return {
    costUsd: attempt.costUsd,
    inputTokens: attempt.inputTokens ?? 0,
    outputTokens: attempt.outputTokens ?? 0,
  };
}

/** What an attempt ending with this conclusion records as its failure, if any. */
export function failureOf(conclusion: string): string | null {
  return conclusion === 'success' ? null : conclusion;
}

/** A run GitHub could not start: no job ran, so no job left annotations to read. */
export function runNeverStarted(conclusion: string | null): boolean {
  return conclusion === 'startup_failure';
}

/** A check run still queued or in progress. */
export function isCheckPending(check: { status: string }): boolean {
  return check.status !== 'completed';
}

/** The move an approval makes: the head approved, or an older commit (docs/lifecycle.md step 8). */
export function approvalEvent(state: TaskState): 'approved' | 'older head approved' {
  return state === 'approved' ? 'approved' : 'older head approved';
}
