import { nothing, type NoEffect } from '../no-effect.js';
import type { RunState, TaskState } from '../states.js';
import { canMoveRun } from '../transitions.js';
import { isRunDone } from './facts.js';
import { tasksToCancel } from './settle.js';

/**
 * Why GitHub no longer lets the App reach a repository (docs/running.md, "Removing the App"):
 * removed from its installation or the installation deleted (`installation_repositories.removed`,
 * `installation.deleted`), or the installation suspended (`installation.suspend`). GitHub then
 * answers the App's calls for it with 401, 403 or 404, and gives no installation token for it.
 */
export type Unreachable = 'removed' | 'suspended';

/** What the repository's row records of the installation events. */
export interface RepositoryAccess {
  removedAt: Date | null;
  suspendedAt: Date | null;
}

/**
 * Whether the App may reach the repository, and if not, why: null when it may. The claim's guard
 * (db/functions/claim_dispatches.sql) reads the same two columns the same way
 * (test/store/repository-reachable.test.ts holds it to this).
 */
export function unreachableBecause(access: RepositoryAccess): Unreachable | null {
  if (access.removedAt !== null) return 'removed';
  if (access.suspendedAt !== null) return 'suspended';
  return null;
}

/** The reason a run ended for it gives (`runs.end_reason`, shown by the status comment). */
const UNREACHABLE_RUN_END: Readonly<Record<Unreachable, string>> = {
  removed: 'the App was removed from this repository',
  suspended: "the App's installation was suspended",
};

/** What an attempt still out when its repository became unreachable records as its failure. */
const UNREACHABLE_ATTEMPT_FAILURE: Readonly<Record<Unreachable, string>> = {
  removed: 'repository_removed',
  suspended: 'installation_suspended',
};

/** A run of an unreachable repository, as read: its state, its tasks and its attempts still out. */
export interface UnreachableRunSnapshot {
  run: { state: RunState; finished: boolean };
  tasks: readonly { key: string; state: TaskState }[];
  /** Attempts not completed, the planner's included. */
  openAttempts: readonly { id: number; planner: boolean }[];
}

export type UnreachableRunEffect =
  | NoEffect
  /** The run finishes (`move`), with `reason` recorded for the status comment. */
  | { kind: 'endRun'; move: 'repository unreachable'; reason: string }
  /** A task that had not ended is cancelled: one in flight frees its slot of the caps. */
  | { kind: 'cancelTask'; task: string }
  /** An attempt still out completes, its worker left to fail on its own. */
  | { kind: 'completeAttempt'; attempt: number; planner: boolean; failureReason: string };

/**
 * A run of a repository the App can no longer reach ends at once, and nothing of it is written to
 * GitHub, which would refuse: its tasks in flight free their slots of `concurrency.maxParallel`
 * and `COORDINATOR_MAX_PARALLEL`, its ready tasks stop counting as demand in the installations'
 * shares, and the sweep has nothing of it left to check. A run whose tasks all merged keeps waiting
 * for its close-out (the `agent:done` label, the issue closed), which is a write to GitHub: it
 * holds no slot, and finishes when the App can reach the repository again. A run that ended
 * before (cancelled, failed) has its cancel finished, as a repeated cancel does: each effect finds
 * done what is done.
 */
export function decideUnreachableRun(
  snapshot: UnreachableRunSnapshot,
  why: Unreachable,
): UnreachableRunEffect[] {
  const { run } = snapshot;
  if (!run.finished && isRunDone(run.state))
    return nothing('every task merged: its close-out waits until the App can reach the repository');
  const effects: UnreachableRunEffect[] = [];
  if (!run.finished && canMoveRun(run.state, 'repository unreachable'))
    effects.push({
      kind: 'endRun',
      move: 'repository unreachable',
      reason: UNREACHABLE_RUN_END[why],
    });
  for (const task of tasksToCancel(snapshot.tasks))
    effects.push({ kind: 'cancelTask', task: task.key });
  for (const attempt of snapshot.openAttempts)
    effects.push({
      kind: 'completeAttempt',
      attempt: attempt.id,
      planner: attempt.planner,
      failureReason: UNREACHABLE_ATTEMPT_FAILURE[why],
    });
  return effects.length > 0 ? effects : nothing('the run ended and nothing of it is out');
}
