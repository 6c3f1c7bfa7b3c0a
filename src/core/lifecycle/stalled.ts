import type { TaskState } from '../states.js';
import type { TaskMove } from '../transitions.js';
import { nothing, type NoEffect } from '../no-effect.js';
import { isMergeClaimed, isOpenPull, isRunDone, mergeReleased } from './facts.js';
import { decideSettle } from './settle.js';

/** A task of a running or held run, with what the sweep reads of it. */
export interface StalledTaskView {
  state: TaskState;
  /** The head the task's approval is for, if it holds one (`merge released` keeps it approved). */
  approvedSha: string | null;
  attemptCount: number;
  /** When the task's row last changed (the process clock). */
  updatedAt: number;
  latestAttempt?: { phase: string; attempt: number; completedAt: number | null };
  /** The task's PR is in GitHub's merge queue: its `merging` is the queue's, not a lost call. */
  inMergeQueue: boolean;
}

export type StalledTaskDecision =
  | NoEffect
  /** Its attempt completed but the task never moved on (the process died in between). */
  | { kind: 'move_on' }
  /** A `merging` claim whose merge call never came back: decide the merge again. */
  | { kind: 'release_merge' };

/**
 * docs/running.md "The sweep": what a process that died mid-step leaves behind, once older than
 * the grace period (`staleBefore`, a time on the same clock as the rows').
 */
export function decideStalledTask(task: StalledTaskView, staleBefore: number): StalledTaskDecision {
  if (readsLatestAttempt(task.state)) {
    const latest = task.latestAttempt;
    const completedLongAgo =
      latest?.phase === 'completed' &&
      latest.attempt === task.attemptCount &&
      (latest.completedAt ?? Number.POSITIVE_INFINITY) <= staleBefore;
    if (completedLongAgo) return { kind: 'move_on' };
    return { kind: 'none', reason: 'its worker is out, or its attempt completed just now' };
  }
  if (readsPullRow(task.state)) {
    if (task.inMergeQueue) return { kind: 'none', reason: "its merge claim is the merge queue's" };
    if (task.updatedAt < staleBefore) return { kind: 'release_merge' };
    return { kind: 'none', reason: 'its merge was claimed just now' };
  }
  return { kind: 'none', reason: `nothing is left half-done in ${task.state}` };
}

/** A task of a running or held run, with its key, as `decideStalledRun` is shown it. */
export interface StalledRunTask extends StalledTaskView {
  key: string;
}

export type StalledRunEffect =
  | NoEffect
  /** Every task ended but the run was not closed out: the process died after the last merge. */
  | { kind: 'settle' }
  /** The task moves on from its latest attempt, completed before the process died. */
  | { kind: 'moveOn'; task: string }
  /** The task's lost merge claim is given back (`move`, a guarded write). */
  | { kind: 'releaseMerge'; task: string; move: TaskMove };

/**
 * docs/running.md "The sweep": what a process that died mid-step left behind in a run, as seen at
 * `now` on the clock that wrote the rows' times: a run whose tasks all ended is closed out;
 * otherwise each task is decided by `decideStalledTask`, once older than `graceMs`.
 */
export function decideStalledRun(
  tasks: readonly StalledRunTask[],
  now: number,
  graceMs: number,
): StalledRunEffect[] {
  if (decideSettle(tasks).kind !== 'not_yet') return [{ kind: 'settle' }];
  const staleBefore = now - graceMs;
  const effects: StalledRunEffect[] = [];
  for (const task of tasks) {
    const decision = decideStalledTask(task, staleBefore);
    if (decision.kind === 'move_on') effects.push({ kind: 'moveOn', task: task.key });
    else if (decision.kind === 'release_merge')
      effects.push({ kind: 'releaseMerge', task: task.key, move: mergeReleased(task) });
  }
  return effects.length > 0 ? effects : nothing('no task was left half-done');
}

/** Whether deciding on the task needs its latest attempt: a worker's run is out for it. */
export function readsLatestAttempt(state: TaskState): boolean {
  return state === 'dispatched' || state === 'running';
}

/** Whether deciding on the task needs its PR's row: a `merging` claim may be the queue's. */
export function readsPullRow(state: TaskState): boolean {
  return isMergeClaimed(state);
}

/** Whether any of the run's PRs is still open: only then can a missed merge event matter. */
export function hasOpenPull(pulls: readonly { state: string }[]): boolean {
  return pulls.some(isOpenPull);
}

/** What the sweep does with an active run: close out a `done` one, look into a live one. */
export function sweepRunAction(state: string): 'settle' | 'resume' | 'skip' {
  if (isRunDone(state)) return 'settle';
  return state === 'running' || state === 'held' ? 'resume' : 'skip';
}
