import type { HeldSlot } from '../core/merge/index.js';
import { sql } from 'drizzle-orm';
import { rowsOf, type DatabaseHandle } from './database.js';
import { LOCK_KEYS } from './lock-keys.js';
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
 * round trip (`merge_turn_rows`, db/migrations/0018), instead of three statements. The slots
 * other runs hold (docs/lifecycle.md, merge order) are a direct merge in flight (`merging`, not
 * in a queue), or an update of a branch the coordinator asked for whose push has not been seen yet;
 * held tasks and runs hold nothing.
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

  /**
   * `fn` between two turns: it waits for the turn in hand to end and holds the lock while it runs,
   * so that what it reads holds everything the turns before it wrote (a push that may be an
   * update asked in one, engine/update-branch.ts).
   */
  between<T>(repositoryId: number, fn: () => Promise<T>): Promise<T> {
    return this.handle.withLockOpening<unknown, T>(
      LOCK_KEYS.repositoryMerges(repositoryId),
      (lockKey) =>
        lockKey === null
          ? { text: 'select 1', values: [] }
          : { text: 'select pg_advisory_lock($1::bigint)', values: [lockKey] },
      () => fn(),
    );
  }

  /** The same view read again within a turn (after acting): the function without the lock. */
  async view(repositoryId: number, runId: number): Promise<MergeTurnView> {
    return viewOf(
      rowsOf<TurnRow>(
        await this.handle.db.execute(
          sql`select * from merge_turn_rows(null::bigint, ${repositoryId}::bigint, ${runId}::bigint)`,
        ),
      ),
    );
  }
}

function viewOf(rows: TurnRow[]): MergeTurnView {
  const graphRows: GraphJsonRow[] = [];
  const slotsHeldElsewhere: HeldSlot[] = [];
  for (const { task, pull, deps, ...slot } of rows) {
    if (task) graphRows.push({ task, pull, deps });
    else if (slot.slot_number !== null && slot.slot_base !== null) {
      const kind = slot.slot_merging === true ? 'merging' : 'updated';
      slotsHeldElsewhere.push({ baseRef: slot.slot_base, pr: slot.slot_number, kind });
    }
  }
  return { graph: graphFromJson(graphRows), slotsHeldElsewhere };
}
