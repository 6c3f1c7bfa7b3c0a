import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/store/database.js';
import { createStore, type Store } from '../../src/store/index.js';
import { ENGINES } from '../helpers/engines.js';
import { planOf, plannedRun, taskSpec } from '../helpers/planned-run.js';

const tasksOf = (prefix: string, n: number) =>
  planOf(...Array.from({ length: n }, (_, i) => taskSpec(`${prefix}${i}`)));

/**
 * The reads and the guard behind the installations' shares of COORDINATOR_MAX_PARALLEL
 * (src/core/scheduler/fair-share.ts, db/migrations/0034): every repository's load, and a claim
 * that never leaves an installation past the share core gave it, across its repositories.
 */
describe.each(ENGINES)('installation shares on $name', (engine) => {
  let dispose: () => Promise<void>;
  let handle: DatabaseHandle;
  let store: Store;
  // Installation 71 has two repositories, installation 72 one.
  const [A1, A2, B] = [701, 702, 703];

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    store = createStore(handle);
    await store.repositories.ensureRepository(71, { id: A1, owner: 'alpha', name: 'one' });
    await store.repositories.ensureRepository(71, { id: A2, owner: 'alpha', name: 'two' });
    await store.repositories.ensureRepository(72, { id: B, owner: 'beta', name: 'one' });
  });
  afterAll(() => dispose());

  it('reads each loaded repository’s installation, tasks in flight and ready tasks, as the claim counts them', async () => {
    const now = new Date();
    await plannedRun(store, A1, 1, tasksOf('a', 4));
    // A dependent task, a task in backoff and a held run's task are not ready.
    await plannedRun(
      store,
      A2,
      1,
      planOf(taskSpec('x'), taskSpec('y', { deps: ['x'] }), taskSpec('z')),
    );
    const [, , z] = await store.runs.tasksOf((await store.runs.latestRun(A2, 1))!.id);
    await store.runs.updateTaskFields(z!.id, { nextAttemptAt: new Date(now.getTime() + 60_000) });
    const held = await plannedRun(store, B, 2, tasksOf('h', 2));
    await store.runs.transitionRun(held.id, 'held', { held: true });
    await store.attempts.claimDispatches(A1, { repoLimit: 1, globalLimit: 100, now });

    const loads = await store.attempts.loads(now);
    const reachable = { removedAt: null, suspendedAt: null };
    expect(loads.sort((a, b) => a.repositoryId - b.repositoryId)).toEqual([
      {
        repositoryId: A1,
        installationId: 71,
        inflight: 1,
        ready: 3,
        repoLimit: 10,
        access: reachable,
      },
      {
        repositoryId: A2,
        installationId: 71,
        inflight: 0,
        ready: 1,
        repoLimit: 10,
        access: reachable,
      },
    ]);
  });

  it('claims no more than the installation’s share across its repositories, however many claims run at once', async () => {
    const now = new Date();
    await plannedRun(store, A2, 2, tasksOf('m', 6));
    await plannedRun(store, B, 3, tasksOf('b', 6));
    const inflight = async () => {
      const loads = await store.attempts.loads(now);
      const of = (installationId: number) =>
        loads
          .filter((l) => l.installationId === installationId)
          .reduce((sum, l) => sum + l.inflight, 0);
      return { a: of(71), b: of(72) };
    };
    expect(await inflight()).toEqual({ a: 1, b: 0 });
    // Installation 71 may have 4 in flight, 72 two; the cap is 7.
    const claim = (repositoryId: number, installationLimit: number) =>
      store.attempts.claimDispatches(repositoryId, {
        repoLimit: 10,
        globalLimit: 7,
        installationLimit,
        now,
      });
    await Promise.all([
      ...Array.from({ length: 4 }, () => claim(A1, 4)),
      ...Array.from({ length: 4 }, () => claim(A2, 4)),
      ...Array.from({ length: 4 }, () => claim(B, 2)),
    ]);
    expect(await inflight()).toEqual({ a: 4, b: 2 });
    // Without a share the cap alone binds: one slot is left.
    await store.attempts.claimDispatches(B, { repoLimit: 10, globalLimit: 7, now });
    expect(await inflight()).toEqual({ a: 4, b: 3 });
    expect(await claim(A1, 10)).toEqual([]);
  });
});
