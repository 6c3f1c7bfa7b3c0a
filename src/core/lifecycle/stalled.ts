import { PATH_HOLDING_TASK_STATES, type TaskState } from '../states.js';
import { isMergeClaimed, isOpenPull, isRunDone } from './facts.js';

/** A task of a running or held run, with what the sweep reads of it. */
export interface StalledTaskView {
  state: TaskState;
  attemptCount: number;
  /** When the task's row last changed (the process clock). */
  updatedAt: number;
  latestAttempt?: { phase: string; attempt: number; completedAt: number | null };
  /** The task's PR is in GitHub's merge queue: its `merging` is the queue's, not a lost call. */
  inMergeQueue: boolean;
}

export type StalledTaskDecision =
  | { kind: 'none' }
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
    return completedLongAgo ? { kind: 'move_on' } : { kind: 'none' };
  }
  if (readsPullRow(task.state) && task.updatedAt < staleBefore && !task.inMergeQueue)
    return { kind: 'release_merge' };
  return { kind: 'none' };
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

/**
 * Whether the sweep reads the task's PR files (docs/lifecycle.md, "Overlapping files"): it
 * declares files, its PR is known and it holds paths, and no PR event recorded its real files (the
 * `pull_request.opened` delivery was lost and the worker's completion linked the PR).
 */
export function missesChangedFiles(task: {
  state: TaskState;
  files: readonly string[] | null;
  changedFiles: readonly string[] | null;
  prNumber: number | null;
}): boolean {
  return (
    task.files !== null &&
    task.changedFiles === null &&
    task.prNumber !== null &&
    // A pending task with a PR (a retry waiting out its backoff) holds its paths too.
    (PATH_HOLDING_TASK_STATES.has(task.state) || task.state === 'pending')
  );
}
