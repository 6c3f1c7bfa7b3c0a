import { isMergeClaimed } from '../lifecycle/facts.js';
import { IN_REVIEW_TASK_STATES, type TaskState } from '../states.js';
import { wait, type PullVerdict } from './evaluate-pull.js';
import type { HeldSlot, MergeDecision, MergePull, MergeSnapshot } from './types.js';

export interface PoolEntry {
  pull: MergePull;
  verdict: PullVerdict;
  /** A direct merge of this PR may be running right now (task `merging`, or listed in flight). */
  mergeInFlight: boolean;
}

/**
 * A direct merge of the PR may be running right now: its task's merge is claimed, and not
 * handed to GitHub's merge queue (which serializes its own). For a run's own PRs, one listed in
 * flight counts too (decideMerges).
 */
export function directMergeClaimed(taskState: TaskState, inMergeQueue: boolean): boolean {
  return isMergeClaimed(taskState) && !inMergeQueue;
}

/** Another run's PR as the database stores it: what its merge turn reads (merge_turn_rows). */
export interface StoredPoolPull {
  /** Open on GitHub, as last seen. */
  open: boolean;
  /** The PR its task points at (`tasks.pr_number`); an earlier PR of the task holds nothing. */
  isTaskPull: boolean;
  enqueuedAt: Date | null;
  /** The coordinator asked GitHub to update its branch, and the update's push is not seen yet. */
  updatedByCoordinator: boolean;
  taskState: TaskState;
  taskHeld: boolean;
  vetoed: boolean;
  runHeld: boolean;
  runFinished: boolean;
}

/**
 * The slot of its base branch a PR of another run holds, decided from the database alone (that
 * run's GitHub view is not this turn's to ask for). It is the pool's rule below, with what the
 * database knows: a direct merge claimed holds it (`mergeInFlight`); an update the coordinator
 * asked for holds it (`isUpdateInProgress`) while nothing stops the PR from merging, since its
 * checks, which only GitHub knows, are taken to be still running; a finished run holds nothing.
 * (A PR is only ever updated once its deps are merged, and merged is final: the dependency stop
 * needs no look.) `merge_turn_rows` repeats this rule in SQL, to read it under the repository's
 * merge lock; test/store/slot-rule.property.test.ts holds the two together.
 */
export function slotHeldByOtherRun(pull: StoredPoolPull): HeldSlot['kind'] | null {
  if (!pull.open || !pull.isTaskPull || pull.runFinished) return null;
  if (directMergeClaimed(pull.taskState, pull.enqueuedAt !== null)) return 'merging';
  const mayMerge =
    IN_REVIEW_TASK_STATES.has(pull.taskState) && !pull.vetoed && !pull.taskHeld && !pull.runHeld;
  return pull.updatedByCoordinator && mayMerge ? 'updated' : null;
}

/**
 * Without a merge queue, each base branch is one pool with one slot (Tide: exactly one action
 * per pool), shared by every run of the repository. Merging two PRs back to back, or updating
 * several behind PRs at once, makes the others behind again: with "require branches to be up to
 * date" that is a CI run per PR per merge. So per base branch and pass: nothing while a merge is
 * in flight (this run's, or another's: `slotsHeldElsewhere`); else the first mergeable PR
 * merges; else, unless a branch the coordinator updated is still running its checks (this
 * run's or another's), the first behind PR is updated. Everything else ready waits its turn.
 * `entries` are in decision order (dependency order, then PR number), which is the order of
 * turns.
 */
export function allocateSlots(
  snapshot: MergeSnapshot,
  entries: readonly PoolEntry[],
): Map<number, MergeDecision> {
  const out = new Map<number, MergeDecision>();
  const byBase = new Map<string, PoolEntry[]>();
  for (const entry of entries) {
    const pool = byBase.get(entry.pull.baseRef);
    if (pool) pool.push(entry);
    else byBase.set(entry.pull.baseRef, [entry]);
  }
  for (const [base, pool] of byBase) {
    const candidates = pool.filter((e) => e.verdict.kind === 'candidate');
    if (candidates.length === 0) continue;
    const held = (snapshot.slotsHeldElsewhere ?? []).filter((slot) => slot.baseRef === base);
    const [chosen, waitDetail] = pickTurn(base, pool, candidates, held);
    for (const entry of candidates) {
      const { pull, verdict } = entry;
      if (entry === chosen && verdict.kind === 'candidate') {
        out.set(pull.number, act(snapshot, pull, verdict.action));
      } else {
        out.set(pull.number, wait(pull, 'waiting_turn', waitDetail));
      }
    }
  }
  return out;
}

function heldElsewhereDetail(slot: HeldSlot): string {
  return slot.kind === 'merging'
    ? `waiting for #${slot.pr} (another run) to finish merging into ${slot.baseRef}`
    : `waiting for #${slot.pr} (another run, updated with ${slot.baseRef}) to merge first`;
}

function pickTurn(
  base: string,
  pool: readonly PoolEntry[],
  candidates: readonly PoolEntry[],
  heldElsewhere: readonly HeldSlot[],
): [PoolEntry | undefined, string] {
  const inFlight = pool.find((e) => e.mergeInFlight);
  if (inFlight) {
    return [undefined, `waiting for #${inFlight.pull.number} to finish merging into ${base}`];
  }
  const mergingElsewhere = heldElsewhere.find((slot) => slot.kind === 'merging');
  if (mergingElsewhere) return [undefined, heldElsewhereDetail(mergingElsewhere)];
  const merge = candidates.find(
    (e) => e.verdict.kind === 'candidate' && e.verdict.action === 'merge',
  );
  if (merge) return [merge, `#${merge.pull.number} merges into ${base} first`];
  const updating = pool.find(isUpdateInProgress);
  if (updating) {
    return [
      undefined,
      `waiting for #${updating.pull.number} (updated with ${base}, checks running) to merge first`,
    ];
  }
  const updatedElsewhere = heldElsewhere.find((slot) => slot.kind === 'updated');
  if (updatedElsewhere) return [undefined, heldElsewhereDetail(updatedElsewhere)];
  const first = candidates[0];
  return [first, `#${first?.pull.number ?? '?'} is being updated with ${base} first`];
}

// The coordinator brought this branch up to date and GitHub or CI is still looking at it:
// updating another branch now would be undone by this one's merge.
function isUpdateInProgress(entry: PoolEntry): boolean {
  if (entry.pull.updatedByCoordinatorFrom === undefined) return false;
  const { verdict } = entry;
  return (
    verdict.kind === 'decided' &&
    verdict.decision.kind === 'wait' &&
    (verdict.decision.reason === 'update_pending' ||
      verdict.decision.reason === 'checks_pending' ||
      verdict.decision.reason === 'mergeability_unknown')
  );
}

function act(
  snapshot: MergeSnapshot,
  pull: MergePull,
  action: 'merge' | 'update_branch',
): MergeDecision {
  if (action === 'merge') {
    return {
      kind: 'merge',
      pr: pull.number,
      taskId: pull.taskId,
      // The sha guard: GitHub answers 409 if the head moved since this snapshot.
      sha: pull.headSha,
      method: snapshot.mergeMethod,
    };
  }
  return {
    kind: 'update_branch',
    pr: pull.number,
    taskId: pull.taskId,
    expectedHeadSha: pull.headSha,
  };
}
