import type { TaskState } from '../states.js';
import type { TaskMove } from '../transitions.js';

/**
 * Which dependency a task was stacked on (`dispatch.stack`, docs/stacking.md): that task, its PR,
 * and the head of that PR the task's branch was created from or last brought up to date with.
 * Recorded on the task (tasks.stack_parent*); every later decision is derived from it.
 */
export interface StackRecord {
  parent: string;
  pr: number;
  head: string;
}

export interface StackTask {
  taskId: string;
  deps: readonly string[];
  state: TaskState;
  held: boolean;
  /** `/veto` given (the state may still be moving to `vetoed`). */
  vetoed: boolean;
  /** Attempts claimed so far: 0 means the task's branch does not exist yet. */
  attempts: number;
  stackedOn?: StackRecord;
  /** An approval stands for the task's head (`approved_sha`). */
  approved?: boolean;
}

/** An open agent PR of the run, as GitHub last showed it. */
export interface StackPull {
  taskId: string;
  number: number;
  headSha: string;
  baseRef: string;
  /**
   * The coordinator's last update of the branch with the PR's base (`updatedByCoordinatorFrom`,
   * `updatedByCoordinatorTo`): the head it merged the base into, and the merge commit GitHub made.
   * A head that moved from `updatedFrom` to exactly `updatedTo` holds no new work of the task.
   */
  updatedFrom?: string;
  updatedTo?: string;
  /**
   * The head GitHub refused to update with a 403 (a merge the App may not push, such as a
   * workflow file's change): no update is asked for at that head (updateRefusedAtHead).
   */
  updateRefusedSha?: string;
}

export interface StackSnapshot {
  /** The run's base branch: where every PR lands in the end. */
  base: string;
  /** Task → its branch (`agent/<issue>/<task_id>`). */
  branchOf: (taskId: string) => string;
  tasks: readonly StackTask[];
  pulls: readonly StackPull[];
  /**
   * PR heads whose checks all pass (none pending or failing; our order check left out). The
   * engine reads checks only for the heads `stackParentHeads` names.
   */
  greenHeads: ReadonlySet<string>;
  /**
   * Recorded parent heads (`StackRecord.head`) that their parent's current head no longer holds:
   * a person rewrote the parent's branch. The engine reads this only for the moves
   * `parentMovesToCheck` names.
   */
  droppedParentHeads?: ReadonlySet<string>;
  /**
   * Merged task → the head its PR merged at (GitHub's view of the closed PR), and the coordinator's
   * last update of that PR, when its record stands (`updatedFrom`, `updatedTo`, as on StackPull).
   */
  mergedHeads?: ReadonlyMap<string, { head: string; updatedFrom?: string; updatedTo?: string }>;
}

/**
 * The parent's head moved to one that does not hold the head the child last took in (or the
 * parent merged at a head the child never took in, `parentMergedUnseen`): the child
 * still holds commits the parent dropped, and its diff against the parent's branch shows them as
 * its own change. A restack does not take them out, so an approval given before is void.
 */
export interface ParentRewritten {
  /** The parent's head the child last took in, and the parent's head now. */
  from: string;
  to: string;
  /** Take the child's approval back (by `move` when the task is in review, as fields otherwise). */
  withdrawApproval?: { move?: TaskMove };
  /** Told once per parent head: found again by `marker` before it is posted. */
  comment: { marker: string; body: string };
}

export type StackDecision =
  /** A pending task may start on its one unmerged dependency's PR head: record it. */
  | { kind: 'permit'; task: string; on: StackRecord }
  /** A pending task not started yet loses its permit: its parent is no longer ready to stack on. */
  | { kind: 'revoke'; task: string }
  /**
   * The parent's head moved: merge it into the child's branch (the coordinator's update). Not while
   * GitHub refuses that update at the child's head: a person's push moves it.
   */
  | {
      kind: 'restack';
      task: string;
      pr: number;
      expectedHeadSha: string;
      parentHead: string;
      parentRewritten?: ParentRewritten;
    }
  /**
   * The parent's head moved only by the coordinator's own update of it from its base (its own
   * parent merged): no work of the parent to bring in, and the child's PR still shows only its
   * own change against the parent's branch; the new head is recorded, the child left as it is
   * (it takes the base when the parent merges).
   */
  | { kind: 'keep'; task: string; parentHead: string }
  /**
   * Point the child's PR at another branch: the base once the parent merged (`unstacks`: the
   * stack is then forgotten), or the parent's branch again when the child was stacked anew after
   * a cancelled stack had pointed it at the base. `update`: then update it, unless a worker of the
   * child is out, whose push would race the update, or GitHub refused the update at its head.
   */
  | {
      kind: 'retarget';
      task: string;
      pr: number;
      to: string;
      expectedHeadSha: string;
      update: boolean;
      unstacks: boolean;
      /** With `unstacks`: the parent merged at a head the child never took in. */
      parentMergedUnseen?: ParentRewritten;
    }
  /**
   * The parent merged and the child's PR no longer targets the parent's branch (GitHub retargets
   * PRs itself when it deletes the merged head branch): update it from the base
   * (`expectedHeadSha`; none when GitHub refused the update at that head, or the PR targets
   * another branch than the base), and forget the stack. No PR: forget it.
   */
  | {
      kind: 'unstack';
      task: string;
      pr?: number;
      expectedHeadSha?: string;
      /** The parent merged at a head the child never took in. */
      parentMergedUnseen?: ParentRewritten;
    }
  /**
   * The parent will not merge (vetoed, rejected, failed, cancelled, blocked): the child's worker
   * run is cancelled, its PR pointed at the base, the stack forgotten; it waits, blocked, to be
   * dispatched again from the base. `withdrawApproval`: the child's approval is taken back.
   */
  | {
      kind: 'cancel';
      task: string;
      parent: string;
      pr?: number;
      retargetTo?: string;
      withdrawApproval?: true;
    };
