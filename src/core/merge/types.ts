import type { TaskState } from '../states.js';

export type MergeMethod = 'merge' | 'squash' | 'rebase';

export interface MergeTask {
  taskId: string;
  deps: readonly string[];
  state: TaskState;
  /** `/hold` on the task's PR. */
  held: boolean;
  vetoReason?: string;
  /**
   * Head SHA that was approved (by `/approve` or an approving review), or the head of the
   * coordinator's own update of that approved head once its push is seen (`decidePush`).
   */
  approvedSha?: string;
  /**
   * The login of who gave the approval (`tasks.approved_by`); absent for an approval recorded
   * before the coordinator recorded its author, which counts as it did (approverCheck).
   */
  approvedBy?: string;
  /** The task's PR, when it has one; lets texts name merged and closed deps' PRs too. */
  prNumber?: number;
  /** Plan title: untrusted, only ever shown in the order check summary. */
  title?: string;
  /** The dependency the task was stacked on (`dispatch.stack`), while it is. */
  stackedOn?: { parent: string; pr: number };
}

/** A check run or commit status on the head. Pass the latest one per name (GitHub's `filter=latest`). */
export interface MergeCheck {
  name: string;
  status: 'queued' | 'in_progress' | 'completed' | 'pending' | 'waiting' | 'requested';
  conclusion: string | null;
}

export interface MergePull {
  taskId: string;
  number: number;
  headSha: string;
  baseRef: string;
  /** GitHub's mergeable_state: 'clean' | 'behind' | 'dirty' | 'blocked' | 'unstable' | 'has_hooks' | 'unknown' | 'draft' */
  mergeableState: string;
  /** null while GitHub computes it. */
  mergeable: boolean | null;
  draft: boolean;
  /** Check runs and commit statuses on the head, EXCLUDING our own `agent-coordinator/order`. */
  checks: readonly MergeCheck[];
  inMergeQueue: boolean;
  /**
   * The head the coordinator last merged the PR's base into (its update of the branch), until new
   * work replaces the update's head (`decidePush`). While it is set the PR's turn on its base
   * branch is not over: its update's push, then its checks, come before any other PR's update.
   */
  updatedByCoordinatorFrom?: string;
  /** The head SHA the task was last sent back to its worker for (conflicts or failing checks). */
  sentBackForSha?: string;
  /**
   * The head GitHub refused to update with a 403 (a merge the App may not push), and GitHub's
   * message: while it is the head, the PR waits for a person (updateRefusedAtHead).
   */
  updateRefusedSha?: string;
  updateRefusedMessage?: string;
}

export interface MergeSnapshot {
  /** The whole run. */
  tasks: readonly MergeTask[];
  /** Open agent PRs of the run. */
  pulls: readonly MergePull[];
  /**
   * The branch the run merges into (`runs.base_branch`). A PR into any other branch never merges
   * or enters a queue: a person retargeted it (a stacked child's own base is its parent's branch
   * until the stack retargets it), and merged there its change would miss the base while its task
   * counted as merged (docs/lifecycle.md, "Which base counts").
   */
  runBase: string;
  /** `/hold` on the issue. The budget hold does NOT stop merges: leave it out. */
  runHeld: boolean;
  /** merge.requireApproval */
  requireApproval: boolean;
  /** The base branch has a merge queue and config says use it (auto/always/never resolved by the caller). */
  mergeQueue: boolean;
  mergeMethod: MergeMethod;
  /**
   * PR numbers with a merge/enqueue already in flight that the task state may not show yet:
   * never act twice. A task in state `merging` counts as in flight on its own.
   */
  inFlightPrs?: readonly number[];
  /**
   * A base branch is one pool per repository, not per run (Tide): PRs of other runs of the
   * repository that hold a base's slot right now — a direct merge in flight, or a branch the
   * coordinator updated that has not merged yet. While one is listed for a base, no PR of this
   * run merges into or updates against that base.
   */
  slotsHeldElsewhere?: readonly HeldSlot[];
  /**
   * What GitHub says now of the permission of the people whose approvals would let PRs merge or
   * enter the queue, by lower-cased login (`approversToRead` says whose). A login not in it has
   * not been read: its PR waits.
   */
  approvers?: ReadonlyMap<string, ApproverStanding>;
}

/**
 * An approver's permission on the repository as GitHub answers it now: write, maintain or admin
 * (`writer`), anything less (`not_writer`), or no answer (`unknown`: the read failed).
 */
export type ApproverStanding = 'writer' | 'not_writer' | 'unknown';

export interface HeldSlot {
  baseRef: string;
  pr: number;
  kind: 'merging' | 'updated';
}

export type WaitReasonKind =
  | 'deps_unmerged'
  | 'not_approved'
  | 'approval_stale'
  // Otherwise ready: whether its approver still has write access is not read yet, or GitHub did
  // not answer.
  | 'approver_unread'
  | 'approver_unknown'
  // The coordinator updated the branch with its base; the update's push is not seen yet.
  | 'update_pending'
  | 'checks_pending'
  | 'checks_failing'
  | 'held'
  | 'run_held'
  | 'vetoed'
  | 'mergeability_unknown'
  | 'draft'
  | 'blocked_by_protection'
  | 'in_queue'
  | 'merging'
  // The task is not awaiting a merge: a new attempt is pending or running on this branch (its
  // push will replace the head), or it ended (failed, rejected, cancelled, …), or the PR is not
  // the task's (unknown task, second PR for one task).
  | 'task_state'
  // Conflicted and already sent back to the worker for this head: wait for its push.
  | 'conflicts'
  // Behind, and GitHub refused the App the update at this head (a workflow file it may not
  // push): a person merges the base into it.
  | 'update_refused'
  // Ready, but another PR of this run takes the base branch's one merge/update slot first.
  | 'waiting_turn'
  // The PR targets a branch other than the run's base (a person retargeted it).
  | 'off_base';

export type MergeDecision =
  | { kind: 'wait'; pr: number; taskId: string; reason: WaitReasonKind; detail: string }
  | { kind: 'update_branch'; pr: number; taskId: string; expectedHeadSha: string }
  | { kind: 'enqueue'; pr: number; taskId: string; expectedHeadOid: string }
  | { kind: 'merge'; pr: number; taskId: string; sha: string; method: MergeMethod }
  | {
      kind: 'send_back_to_worker';
      pr: number;
      taskId: string;
      mode: 'fix';
      feedback: string;
      /** When failing checks are the cause: their names (their evidence goes with the feedback). */
      failingChecks?: string[];
    }
  // In GitHub's merge queue but must not land any more (vetoed, held, cancelled, …):
  // GraphQL `dequeuePullRequest`. `reason`/`detail` say why, as for a wait.
  | { kind: 'dequeue'; pr: number; taskId: string; reason: WaitReasonKind; detail: string }
  /**
   * Otherwise ready, but the approval's author no longer has write access: the PR is told once
   * (`comment`, found again by its marker before it is posted), then the approval is withdrawn
   * (`approval withdrawn`) if the task still holds this one (`approvedSha`, `approvedBy`).
   */
  | {
      kind: 'withdraw_approval';
      pr: number;
      taskId: string;
      approvedSha: string;
      approvedBy: string;
      comment: { marker: string; body: string };
    };
