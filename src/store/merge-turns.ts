import type { HeldSlot } from '../core/merge/index.js';
import type { DatabaseHandle } from './database.js';
import { LOCK_KEYS } from './lock-keys.js';
import { heldSlot } from './pulls.js';
import { graphFromJson, type GraphJsonRow, type RunGraph } from './runs.js';

/** What a merge turn opens with: the run's graph, and the slots other runs hold. */
export interface MergeTurnView {
  graph: RunGraph;
  slotsHeldElsewhere: HeldSlot[];
}

type TurnRow = {
  task: Record<string, unknown> | null;
  pull: Record<string, unknown> | null;
  deps: string[] | null;
  slot_number: number | null;
  slot_base: string | null;
  slot_merging: boolean | null;
};

/**
 * A repository's merge decisions take turns across processes (the advisory lock
 * LOCK_KEYS.repositoryMerges). A turn opens with the lock and the merge view's reads in one
 * round trip (`merge_turn_rows`, db/migrations/0018), instead of three statements.
 */
export class MergeTurns {
  constructor(private readonly handle: DatabaseHandle) {}

  take<T>(
    repositoryId: number,
    runId: number,
    fn: (opened: MergeTurnView) => Promise<T>,
  ): Promise<T> {
    return this.handle.withLockOpening<TurnRow, T>(
      LOCK_KEYS.repositoryMerges(repositoryId),
      (lockKey) => ({
        text: 'select * from merge_turn_rows($1::bigint, $2::bigint, $3::bigint)',
        values: [lockKey, repositoryId, runId],
      }),
      (rows) => fn(viewOf(rows)),
    );
  }
}

function viewOf(rows: TurnRow[]): MergeTurnView {
  const graphRows: GraphJsonRow[] = [];
  const slotsHeldElsewhere: HeldSlot[] = [];
  for (const { task, pull, deps, ...slot } of rows) {
    if (task) graphRows.push({ task, pull, deps });
    else if (slot.slot_number !== null && slot.slot_base !== null) {
      const merging = slot.slot_merging === true;
      slotsHeldElsewhere.push(
        heldSlot({ number: slot.slot_number, baseRef: slot.slot_base, merging }),
      );
    }
  }
  return { graph: graphFromJson(graphRows), slotsHeldElsewhere };
}
