import fc from 'fast-check';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attempts } from '../../db/schema.js';
import { awaitsSpendOfItsRun, chargesRerun } from '../../src/core/lifecycle/index.js';
import type { DatabaseHandle } from '../../src/store/database.js';
import { createStore, type Store } from '../../src/store/index.js';
import { ENGINES } from '../helpers/engines.js';
import { planOf, plannedRun, taskSpec } from '../helpers/planned-run.js';

const REPOSITORY = 2 ** 33 + 31;

const storedAttempt = fc.record({
  phase: fc.constantFrom('intent', 'dispatched', 'running', 'completed'),
  conclusion: fc.constantFrom(
    null,
    'success',
    'failure',
    'timed_out',
    'cancelled',
    'startup_failure',
    'not_dispatched',
  ),
  costUsd: fc.option(fc.constantFrom(0, 0.4), { nil: null }),
});

/**
 * Which completed attempt its run's end charges is core's rule (awaitsSpendOfItsRun); the store's
 * `chargeAfterItsRun` repeats it as the guard of its update, so that a redelivery of the run's end
 * charges nothing twice: whatever the attempt looks like, the update takes exactly when core's
 * rule says the attempt awaits its run's spend.
 */
describe.each(ENGINES)("the charges at a run's end follow core's rules on $name", (engine) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let store: Store;
  let attemptId: number;

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    store = createStore(handle);
    await store.repositories.ensureInstallation(2 ** 33 + 3);
    await store.repositories.ensureRepository(2 ** 33 + 3, {
      id: REPOSITORY,
      owner: 'octo',
      name: 'charge-rule',
    });
    await plannedRun(store, REPOSITORY, 1, planOf(taskSpec('t')));
    const [claimed] = await store.attempts.claimDispatches(REPOSITORY, {
      repoLimit: 1,
      globalLimit: 1,
      now: new Date(),
    });
    attemptId = claimed!.attempt.id;
  });
  afterAll(() => dispose());

  it('takes exactly for an attempt that awaits its run', async () => {
    await fc.assert(
      fc.asyncProperty(storedAttempt, async (attempt) => {
        await handle.db
          .update(attempts)
          .set({ ...attempt, inputTokens: null, outputTokens: null })
          .where(eq(attempts.id, attemptId));
        const usage = { costUsd: 1.5, inputTokens: 900, outputTokens: 70 };
        const took = await store.attempts.chargeAfterItsRun(attemptId, usage);
        expect(took).toBe(awaitsSpendOfItsRun(attempt));
        const [row] = await handle.db.select().from(attempts).where(eq(attempts.id, attemptId));
        expect(row?.costUsd).toBe(took ? 1.5 : attempt.costUsd);
      }),
      { numRuns: 60 },
    );
  });

  /**
   * A re-run of the attempt's workflow run is charged once (core's chargesRerun), which
   * `chargeRerun` repeats as its guard: it takes exactly when core says, adds the re-run's spend
   * to the attempt's, and records the re-run.
   */
  it("adds a re-run's spend exactly for a re-run still to be charged", async () => {
    const rerun = fc.record({
      phase: fc.constantFrom('running', 'completed'),
      costUsd: fc.option(fc.constantFrom(0, 0.4), { nil: null }),
      chargedRunAttempts: fc.uniqueArray(fc.integer({ min: 2, max: 5 }), { maxLength: 3 }),
      runAttempt: fc.integer({ min: 1, max: 5 }),
    });
    await fc.assert(
      fc.asyncProperty(rerun, async ({ runAttempt, ...attempt }) => {
        await handle.db
          .update(attempts)
          .set({ ...attempt, inputTokens: 10, outputTokens: 1 })
          .where(eq(attempts.id, attemptId));
        const usage = { costUsd: 1.5, inputTokens: 900, outputTokens: 70 };
        const took = await store.attempts.chargeRerun(attemptId, runAttempt, usage);
        expect(took).toBe(chargesRerun(attempt, runAttempt));
        const [row] = await handle.db.select().from(attempts).where(eq(attempts.id, attemptId));
        expect(row).toMatchObject(
          took
            ? {
                costUsd: (attempt.costUsd ?? 0) + 1.5,
                inputTokens: 910,
                chargedRunAttempts: [...attempt.chargedRunAttempts, runAttempt],
              }
            : {
                costUsd: attempt.costUsd,
                inputTokens: 10,
                chargedRunAttempts: attempt.chargedRunAttempts,
              },
        );
      }),
      { numRuns: 60 },
    );
  });
});
