import { wait, type PullVerdict } from './evaluate-pull.js';
import type { HeldSlot, MergeDecision, MergePull, MergeSnapshot } from './types.js';

export interface PoolEntry {
  pull: MergePull;
  verdict: PullVerdict;
  /** A direct merge of this PR may be running right now (task `merging`, or listed in flight). */
  mergeInFlight: boolean;
}

/**
 * Without a merge queue, each base branch is one pool with one slot (Tide: exactly one action
 * per pool). Merging two PRs back to back, or updating several behind PRs at once, makes the
 * others behind again: with "require branches to be up to date" that is a CI run per PR per
 * merge. So per base branch and pass: nothing while a merge is in flight; else the first
 * mergeable PR merges; else, unless a branch the coordinator updated is still running its
 * checks, the first behind PR is updated. Everything else ready waits its turn. `entries` are
 * in decision order (dependency order, then PR number), which is the order of turns.
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
    const held = snapshot.slotsHeldElsewhere?.find((slot) => slot.baseRef === base);
    const [chosen, waitDetail] = held
      ? [undefined, heldElsewhereDetail(held)]
      : pickTurn(base, pool, candidates);
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
): [PoolEntry | undefined, string] {
  const inFlight = pool.find((e) => e.mergeInFlight);
  if (inFlight) {
    return [undefined, `waiting for #${inFlight.pull.number} to finish merging into ${base}`];
  }
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
