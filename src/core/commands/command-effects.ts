import type { RunState, TaskState } from '../states.js';
import type { RunMove, TaskMove } from '../transitions.js';

/** What a command reads: the run, its tasks and their deps, as one read of the store gives them. */
export interface CommandSnapshot {
  run: {
    state: RunState;
    held: boolean;
    holdReason: string | null;
    finishedAt: Date | null;
  };
  /** In plan order. */
  tasks: readonly CommandTask[];
  /** Each task's deps by key. */
  deps: ReadonlyMap<string, readonly string[]>;
}

export interface CommandTask {
  taskKey: string;
  state: TaskState;
  prNumber: number | null;
  vetoReason: string | null;
}

export interface CommandTarget {
  /** On an agent PR: the key of its task. Absent on the issue. */
  taskKey?: string;
  actor: string;
  /** The comment's `created_at`: an approval covers only heads pushed before it. */
  writtenAt: Date;
}

/** Task fields a command writes besides the state. */
export interface TaskValues {
  held?: boolean;
  vetoReason?: string | null;
  approvedSha?: string | null;
  approvedAt?: Date | null;
  approvedBy?: string | null;
  approvalOriginSha?: string | null;
  nextMode?: 'work' | 'fix';
  pendingFeedback?: string | null;
  nextAttemptAt?: null;
}

/** Run fields a command writes besides the state. */
export interface RunValues {
  held?: boolean;
  holdReason?: string | null;
  planApproved?: boolean;
  budgetWaived?: boolean;
}

/**
 * One step of an accepted command, carried out in order. An effect with `otherwise` may not
 * take (a guarded write that finds the task or run moved on meanwhile, a plan that does not
 * parse, no PR on GitHub): then the command is refused with that text and the effects after it
 * are not carried out.
 */
export type CommandEffect =
  | { kind: 'reply'; text: string }
  /** Rewrite the status comment now. */
  | { kind: 'refreshStatus' }
  | { kind: 'applyPlan'; body: string; otherwise: string }
  | { kind: 'cancelRun'; why: string; otherwise: string }
  /** The run moves by `move` of the run table (src/core/transitions.ts), guarded by it. */
  | { kind: 'moveRun'; move: RunMove; values?: RunValues; otherwise: string }
  /** A finished run becomes active again, unless another run of the issue is. */
  | { kind: 'reopenRun'; otherwise: string }
  /** The run is held if its spend reached the budget (docs/configuration.md `budget`). */
  | { kind: 'enforceBudget' }
  /**
   * The task moves by `move` of the task table (src/core/transitions.ts), guarded by it. Without
   * `otherwise`, a write that does not take changes nothing and the command goes on.
   */
  | {
      kind: 'transition';
      task: string;
      move: TaskMove;
      values?: TaskValues;
      otherwise?: string;
      /**
       * `values.pendingFeedback` is this person's (`/retry`, docs/commands.md): its quotes are
       * vetted (docs/lifecycle.md, "Vetted feedback"), and the unresolved review threads of the
       * task's PR, when it has one, go to the next attempt with it.
       */
      feedbackFrom?: string;
    }
  /** Fields only, written while the task is still in the state it was read in. */
  | { kind: 'updateTask'; task: string; whileIn: TaskState; values: TaskValues }
  /** The task's latest worker run, if one is still going, is cancelled on GitHub. */
  | { kind: 'cancelAttempt'; task: string; why: string }
  /**
   * Approve the head GitHub shows now, if its author could have seen it (core's
   * `commandApproval`, docs/commands.md): the PR is read from GitHub when this is carried out,
   * and `otherwise` answers when the task has no open PR. `named`: `/approve <sha>`; `by`: the
   * command's author, recorded with the approval.
   */
  | {
      kind: 'approve';
      task: string;
      otherwise: string;
      writtenAt: Date;
      by: string;
      named?: string;
    }
  | { kind: 'requestStatus' }
  /** Dispatch what is ready in the repository. */
  | { kind: 'schedule' }
  /** Decide the run's merges again. */
  | { kind: 'advance' };

export type CommandDecision =
  { ok: true; effects: CommandEffect[] } | { ok: false; reason: string };
