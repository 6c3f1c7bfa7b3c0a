import { WRITE_ROLES, type RoleName } from '../roles.js';
import type { TaskState } from '../states.js';
import { canMoveTask } from '../transitions.js';
import { offRunBase } from '../merge/run-base.js';
import { nothing, type NoEffect } from '../no-effect.js';
import { isOpenPull } from './facts.js';
import { isEarlierPull } from './pull-link.js';

/** A `pull_request.closed` delivery of an agent PR. */
export interface PullClosedEvent {
  /** The PR's number. */
  number: number;
  merged: boolean;
  /** The branch the PR targeted when it was closed: where a merge landed. */
  baseRef: string;
  /** Closed by a bot: the coordinator and workers never close agent PRs on purpose. */
  closedByBot: boolean;
  /** The closer's permission on the repository, read when `readsCloserRole` says so. */
  closerRole?: RoleName;
}

/** The PR's task, as linking the PR read it, and the PR as GitHub shows it now. */
export interface PullClosedSnapshot {
  task: { state: TaskState; prNumber: number | null };
  /** The branch the run merges into (engine's `runBaseOf`). */
  runBase: string;
  /**
   * The PR as GitHub shows it now, read with the closer's role (`readsCloserRole`): the delivery
   * may be sent again under a new delivery id, or late, and a person may have opened the PR again
   * since. Undefined when not read.
   */
  now?: { state: string; merged: boolean };
  /**
   * Whether a refused close may still be answered by opening the PR again: the refusal budget
   * (docs/commands.md, "Answers") has room for the closer. Decided as the refused close is
   * recorded, which core's first answer asks for; undefined until then.
   */
  reopenWithinBudget?: boolean;
}

/**
 * Carried out in order. `markMerged` and `reject` are guarded writes: when one does not take
 * (the task moved on meanwhile), the effects after it are not carried out.
 */
export type PullClosedEffect =
  | NoEffect
  /**
   * The task is merged and its dependents freed in one statement; a task seen merged before
   * finishes what a crash may have cut short (the dependents, the run's close-out).
   */
  | { kind: 'markMerged' }
  | { kind: 'reject' }
  /** Every task that depends on this one, directly or not, is blocked. */
  | { kind: 'blockDependents' }
  | { kind: 'requestStatus' }
  /** The run closes out if no task can move any more. */
  | { kind: 'settle' }
  /** Decide the run's merges again. */
  | { kind: 'advance' }
  /** Open the PR again (`PATCH /pulls/{n}` with `state: open`). */
  | { kind: 'reopen' }
  /**
   * The close is refused: recorded, and the closer told why (within the refusal budget), in the
   * words of `closeRefusalReason` for whether the PR could be opened again. `leftClosed`: it was
   * not asked, the budget spent.
   */
  | { kind: 'refuse'; role: RoleName; leftClosed?: true };

/**
 * A merged PR is recorded first by a statement that closes its row only when its task is merged
 * already (the coordinator merged it): nothing else is read or decided then.
 */
export function closedRecordsMergeFirst(event: Pick<PullClosedEvent, 'merged'>): boolean {
  return event.merged;
}

/** A person closed the PR unmerged: whether they may reject its task depends on their role. */
export function readsCloserRole(event: Pick<PullClosedEvent, 'merged' | 'closedByBot'>): boolean {
  return !event.merged && !event.closedByBot;
}

/**
 * docs/lifecycle.md: a merged agent PR (by the coordinator, the queue or a person) merges its
 * task and frees its dependents; one a person with write access closed unmerged rejects the task
 * and blocks what depends on it, as `/veto` would (write access, docs/commands.md). GitHub lets
 * the triage role close any PR: such a close rejects nothing, and the PR is opened again. A PR
 * merged into another branch than the run's ("Which base counts") is closed unmerged as far as
 * the run goes, by someone who could merge it: the task is rejected.
 */
export function decidePullClosed(
  snapshot: PullClosedSnapshot,
  event: PullClosedEvent,
): PullClosedEffect[] {
  if (event.merged && offRunBase({ baseRef: event.baseRef }, snapshot.runBase) === undefined)
    return [{ kind: 'markMerged' }, { kind: 'advance' }];
  if (event.merged) {
    const { state } = snapshot.task;
    if (!canMoveTask(state, 'rejected'))
      return nothing(`merged into ${event.baseRef}, and the task is ${state}: nothing to reject`);
    return rejected();
  }
  if (event.closedByBot)
    return nothing('closed by a bot: the coordinator and workers never close agent PRs on purpose');
  if (snapshot.now && isOpenPull(snapshot.now))
    return nothing('GitHub shows the PR open now: opened again since, or the close sent again');
  if (isEarlierPull(snapshot.task, { number: event.number, state: 'closed', merged: false }))
    return nothing(
      `the task's PR is #${snapshot.task.prNumber} now: this close is of an earlier one`,
    );
  const { state } = snapshot.task;
  if (!canMoveTask(state, 'rejected'))
    return nothing(`the task is ${state}: it cannot be rejected`);
  const role = event.closerRole ?? 'none';
  // Each reopen is a write of the installation's and a `reopened` event that runs the
  // repository's PR workflows again as the App's: as many as the refusal budget answers, no more.
  if (!WRITE_ROLES.has(role) && snapshot.reopenWithinBudget === false)
    return [{ kind: 'refuse', role, leftClosed: true }];
  if (!WRITE_ROLES.has(role)) return [{ kind: 'reopen' }, { kind: 'refuse', role }];
  return rejected();
}

/** Fresh each time: callers own the effects they are given. */
const rejected = (): PullClosedEffect[] => [
  { kind: 'reject' },
  { kind: 'blockDependents' },
  // Its head's order check, passing if it was approved, must stop passing: reopened, the PR
  // would merge by it (core's closedPullKeepsOrderCheck).
  { kind: 'advance' },
  { kind: 'requestStatus' },
  { kind: 'settle' },
];

/**
 * What a refused close is answered. GitHub may refuse to open the PR again (its head branch is
 * gone, or another open PR has the same head and base), or the refusal budget left it closed:
 * then the task waits, closed, for someone with write access to open it again or to `/veto` it.
 */
export function closeRefusalReason(
  role: RoleName,
  reopen: 'reopened' | 'refused_by_github' | 'left_closed',
): string {
  const refused = `closing the pull request does not reject its agent-coordinator task: only people with write access can (your role: ${role})`;
  switch (reopen) {
    case 'reopened':
      return `${refused}; it was reopened`;
    case 'refused_by_github':
      return `${refused}; GitHub refused to open it again, so it waits for someone with write access`;
    case 'left_closed':
      return `${refused}; it was reopened for you within the hour already, so it waits, closed, for someone with write access`;
  }
}
