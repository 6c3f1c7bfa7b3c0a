/**
 * Which of an installation's writes to GitHub goes first when its write budget is short. Writes
 * on a run's critical path (a task's branch and its dispatch, a merge, the merge queue, the order
 * check a merge waits for) advance the work; comments, labels and review requests prepare it or
 * answer people; status comment edits and reactions report, and a later write brings them up to
 * date anyway.
 */
export type WritePriority = 'advance' | 'prepare' | 'report';

/** Every kind of write the coordinator sends to GitHub. */
export type GitHubWrite =
  | 'create_branch'
  | 'dispatch_workflow'
  | 'cancel_workflow_run'
  | 'rerun_failed_jobs'
  | 'merge'
  | 'update_branch'
  | 'change_pull_base'
  | 'pull_state'
  | 'enqueue'
  | 'dequeue'
  | 'order_check'
  | 'issue_comment'
  | 'add_labels'
  | 'close_issue'
  | 'request_reviewers'
  | 'status_comment_edit'
  | 'reaction';

const PRIORITY: Record<GitHubWrite, WritePriority> = {
  create_branch: 'advance',
  dispatch_workflow: 'advance',
  cancel_workflow_run: 'advance',
  rerun_failed_jobs: 'advance',
  merge: 'advance',
  update_branch: 'advance',
  // A stacked PR retargeted once its parent merged (docs/stacking.md): its merge waits on it.
  change_pull_base: 'advance',
  // A task's PR closed by someone who may not reject it (the task cannot merge until it is open
  // again), or a look-alike PR squatting on a task branch (the worker cannot open its own).
  pull_state: 'advance',
  enqueue: 'advance',
  dequeue: 'advance',
  order_check: 'advance',
  issue_comment: 'prepare',
  add_labels: 'prepare',
  close_issue: 'prepare',
  request_reviewers: 'prepare',
  status_comment_edit: 'report',
  reaction: 'report',
};

export function writePriorityOf(write: GitHubWrite): WritePriority {
  return PRIORITY[write];
}

const RANK: Record<WritePriority, number> = { advance: 0, prepare: 1, report: 2 };

/** A write waiting for the budget: its priority, and its place in arrival order. */
export interface WaitingWrite {
  priority: WritePriority;
  seq: number;
}

/** Whether `a` is granted before `b` when both wait: by priority, then in arrival order. */
export function grantedBefore(a: WaitingWrite, b: WaitingWrite): boolean {
  const byRank = RANK[a.priority] - RANK[b.priority];
  return byRank !== 0 ? byRank < 0 : a.seq < b.seq;
}

/**
 * Whether a write of this priority is on the critical path: it may take the share of the write
 * window and of the pace's burst that other writes leave (windowLimitFor, decideWriteGrant).
 */
export function isCriticalWrite(priority: WritePriority): boolean {
  return priority === 'advance';
}

/** The share of an installation's write window kept for the critical path. */
const CRITICAL_RESERVE = 0.2;

/**
 * How many writes in the window a write of this priority may join: the critical path may fill
 * it, other writes stop short of its last fifth (at least one). Waiting in order only helps when
 * both wait; without the reserve, a burst of status edits and comments fills the window and a
 * dispatch waits for the oldest of them to leave it, up to a minute.
 */
export function windowLimitFor(priority: WritePriority, perWindow: number): number {
  if (isCriticalWrite(priority)) return perWindow;
  return Math.max(1, perWindow - Math.ceil(perWindow * CRITICAL_RESERVE));
}
