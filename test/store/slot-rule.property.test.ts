import fc from 'fast-check';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullRequests, runs, tasks } from '../../db/schema.js';
import { slotHeldByOtherRun, type StoredPoolPull } from '../../src/core/merge/merge-pool.js';
import type { HeldSlot } from '../../src/core/merge/index.js';
import { TASK_STATES } from '../../src/core/states.js';
import type { DatabaseHandle } from '../../src/store/database.js';
import { createStore, type Store } from '../../src/store/index.js';
import { ENGINES } from '../helpers/engines.js';
import { planOf, plannedRun, taskSpec } from '../helpers/planned-run.js';

const REPOSITORY = 2 ** 33 + 24;
const OTHERS = 4;

interface Other {
  runId: number;
  taskId: number;
  pullId: number;
  number: number;
}

const storedPull = fc.record<StoredPoolPull>({
  open: fc.boolean(),
  isTaskPull: fc.boolean(),
  enqueuedAt: fc.option(fc.constant(new Date('2026-12-01T00:00:00Z')), { nil: null }),
  updatedByCoordinator: fc.boolean(),
  taskState: fc.constantFrom(...TASK_STATES),
  taskHeld: fc.boolean(),
  vetoed: fc.boolean(),
  runHeld: fc.boolean(),
  runFinished: fc.boolean(),
});

/**
 * Which other runs' PRs hold a base branch's slot is core's rule (slotHeldByOtherRun, next to
 * the pool it feeds). `merge_turn_rows` repeats it in SQL so that a merge turn reads the slots
 * under the repository's merge lock, in the statement that takes it: whatever the other runs'
 * PRs, tasks and runs look like, the function must list exactly the slots core's rule holds.
 */
describe.each(ENGINES)("the slots other runs hold follow core's rule on $name", (engine) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let store: Store;
  let mine: number;
  const others: Other[] = [];

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    store = createStore(handle);
    await store.repositories.ensureInstallation(2 ** 33 + 2);
    await store.repositories.ensureRepository(2 ** 33 + 2, {
      id: REPOSITORY,
      owner: 'octo',
      name: 'slot-rule',
    });
    mine = (await plannedRun(store, REPOSITORY, 1, planOf(taskSpec('t')))).id;
    for (let i = 0; i < OTHERS; i++) {
      const run = await plannedRun(store, REPOSITORY, 2 + i, planOf(taskSpec('t')));
      const task = (await store.runs.task(run.id, 't'))!;
      const number = 20 + i;
      const pull = await store.pulls.upsert({
        repositoryId: REPOSITORY,
        number,
        taskId: task.id,
        headRef: `agent/${2 + i}/t`,
        headSha: `sha${number}`,
        baseRef: i % 2 === 0 ? 'main' : 'release',
        state: 'open',
        merged: false,
      });
      others.push({ runId: run.id, taskId: task.id, pullId: pull.id, number });
    }
  });
  afterAll(() => dispose());

  /** Stores `pull` as the facts of `other`'s PR, its task and its run. */
  async function storeFacts(other: Other, pull: StoredPoolPull): Promise<void> {
    await handle.db
      .update(runs)
      .set({ held: pull.runHeld, finishedAt: pull.runFinished ? new Date() : null })
      .where(eq(runs.id, other.runId));
    await handle.db
      .update(tasks)
      .set({
        state: pull.taskState,
        held: pull.taskHeld,
        vetoReason: pull.vetoed ? 'not this way' : null,
        // Not the task's PR: the task points at a later one.
        prNumber: pull.isTaskPull ? other.number : other.number + 100,
      })
      .where(eq(tasks.id, other.taskId));
    await handle.db
      .update(pullRequests)
      .set({
        state: pull.open ? 'open' : 'closed',
        enqueuedAt: pull.enqueuedAt,
        updatedByCoordinatorFrom: pull.updatedByCoordinator ? 'sha-before' : null,
      })
      .where(eq(pullRequests.id, other.pullId));
  }

  const byPr = (a: HeldSlot, b: HeldSlot) => a.pr - b.pr;

  it('over any states of the other runs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(storedPull, { minLength: OTHERS, maxLength: OTHERS }),
        async (pulls) => {
          const expected: HeldSlot[] = [];
          for (const [i, pull] of pulls.entries()) {
            const other = others[i]!;
            await storeFacts(other, pull);
            const kind = slotHeldByOtherRun(pull);
            if (kind)
              expected.push({ baseRef: i % 2 === 0 ? 'main' : 'release', pr: other.number, kind });
          }
          const seen = (await store.mergeTurns.view(REPOSITORY, mine)).slotsHeldElsewhere;
          expect([...seen].sort(byPr)).toEqual(expected.sort(byPr));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('is read the same by the turn that takes the lock', async () => {
    await storeFacts(others[0]!, {
      open: true,
      isTaskPull: true,
      enqueuedAt: null,
      updatedByCoordinator: false,
      taskState: 'merging',
      taskHeld: false,
      vetoed: false,
      runHeld: false,
      runFinished: false,
    });
    const opened = await store.mergeTurns.take(REPOSITORY, mine, async (view) => view);
    const viewed = await store.mergeTurns.view(REPOSITORY, mine);
    expect(opened.slotsHeldElsewhere).toContainEqual({
      baseRef: 'main',
      pr: others[0]!.number,
      kind: 'merging',
    });
    expect([...opened.slotsHeldElsewhere].sort(byPr)).toEqual(
      [...viewed.slotsHeldElsewhere].sort(byPr),
    );
  });
});
