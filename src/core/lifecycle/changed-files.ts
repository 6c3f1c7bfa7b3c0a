import { PATH_HOLDING_TASK_STATES, type TaskState } from '../states.js';

/** What is recorded of a task's PR files: null when none were read yet. */
export interface RecordedChangedFiles {
  changedFiles: readonly string[] | null;
  /** The PR head they were read at; null for files recorded before heads were kept. */
  changedFilesHead: string | null;
}

/**
 * Whether the task's recorded changed files are those of its PR at `head` (docs/lifecycle.md,
 * "Overlapping files"): read at that head. None read yet, or read at an earlier head (a push
 * whose delivery was lost, or one not handled yet), are read again: the one rule of both the
 * PR's events (`decidePullChanged`) and the sweep (`missesChangedFiles`).
 */
export function changedFilesCurrent(recorded: RecordedChangedFiles, head: string): boolean {
  return recorded.changedFiles !== null && recorded.changedFilesHead === head;
}

/**
 * Whether the sweep reads the task's PR files: it declares files, its PR is known and it holds
 * paths, and its recorded files are not those of the PR's head as the coordinator knows it
 * (`prHead`, its PR's row): the `pull_request.opened` delivery was lost and the worker's
 * completion linked the PR, or a push's delivery was lost and the completion, or a merge
 * decision's read of the PR, recorded its new head.
 */
export function missesChangedFiles(
  task: RecordedChangedFiles & {
    state: TaskState;
    files: readonly string[] | null;
    prNumber: number | null;
  },
  prHead: string | null,
): boolean {
  return (
    task.files !== null &&
    task.prNumber !== null &&
    // A PR with no row read (none recorded yet) is read once, its head unknown.
    (prHead === null ? task.changedFiles === null : !changedFilesCurrent(task, prHead)) &&
    // A pending task with a PR (a retry waiting out its backoff) holds its paths too.
    (PATH_HOLDING_TASK_STATES.has(task.state) || task.state === 'pending')
  );
}
