import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unreachableBecause } from '../../src/core/lifecycle/index.js';
import { installationLoads } from '../../src/core/scheduler/index.js';
import type { DatabaseHandle } from '../../src/store/database.js';
import { createStore, type Store } from '../../src/store/index.js';
import { ENGINES } from '../helpers/engines.js';
import { planOf, plannedRun, taskSpec } from '../helpers/planned-run.js';

/**
 * What the installation events record of a repository the App can no longer reach
 * (docs/running.md, "Removing the App"), and the guards that read it: the claim takes nothing of
 * it, as core's `unreachableBecause` says, and the installations' loads carry what core leaves
 * out.
 */
describe.each(ENGINES)('repositories the App can no longer reach, on $name', (engine) => {
  let dispose: () => Promise<void>;
  let handle: DatabaseHandle;
  let store: Store;
  let nextId = 2 ** 32 + 500;
  let nextInstallation = 2 ** 33 + 500;

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    store = createStore(handle);
  });
  afterAll(() => dispose());

  const access = async (id: number) => {
    const row = await store.repositories.getRepository(id);
    return { removed: row?.removedAt != null, suspended: row?.suspendedAt != null };
  };
  const repository = async (installation: number) => {
    const id = nextId++;
    await store.repositories.ensureRepository(installation, { id, owner: 'acme', name: `r${id}` });
    return id;
  };

  it('records a removal for the installation’s repositories named, once, and says which again', async () => {
    const installation = nextInstallation++;
    const [kept, removed] = [await repository(installation), await repository(installation)];
    // Moved to another installation since: the old installation's removal is not its.
    const moved = await repository(nextInstallation++);
    expect(await store.repositories.recordRemoved(installation, [removed, moved])).toEqual([
      removed,
    ]);
    const first = (await store.repositories.getRepository(removed))!.removedAt;
    // Handled again (a redelivery): the same ids, the time of the first.
    expect(await store.repositories.recordRemoved(installation, [removed])).toEqual([removed]);
    expect((await store.repositories.getRepository(removed))!.removedAt).toEqual(first);
    expect(await access(kept)).toEqual({ removed: false, suspended: false });
    expect(await access(moved)).toEqual({ removed: false, suspended: false });
    // The installation deleted: every repository recorded under it.
    expect((await store.repositories.recordRemoved(installation)).sort()).toEqual(
      [kept, removed].sort(),
    );
  });

  it('keeps a removal through later deliveries, until an installation gives the repository back', async () => {
    const installation = nextInstallation++;
    const id = await repository(installation);
    await store.repositories.recordRemoved(installation, [id]);
    // A delivery from before the removal, handled late, names the same installation.
    await store.repositories.upsertRepository(installation, { id, owner: 'acme', name: 'late' });
    expect(await access(id)).toEqual({ removed: true, suspended: false });
    // `installation_repositories.added`.
    await store.repositories.upsertRepository(
      installation,
      { id, owner: 'acme', name: 'back' },
      { reachable: true },
    );
    expect(await access(id)).toEqual({ removed: false, suspended: false });
    // A delivery naming another installation, which holds the repository now.
    await store.repositories.recordRemoved(installation, [id]);
    await store.repositories.ensureRepository(nextInstallation++, {
      id,
      owner: 'globex',
      name: 'moved',
    });
    expect(await access(id)).toEqual({ removed: false, suspended: false });
  });

  it('suspends every repository of the installation, one recorded later too, until unsuspended', async () => {
    const installation = nextInstallation++;
    const before = await repository(installation);
    expect(await store.repositories.recordSuspended(installation, true)).toEqual([before]);
    const later = await repository(installation);
    expect(await access(before)).toEqual({ removed: false, suspended: true });
    expect(await access(later)).toEqual({ removed: false, suspended: true });
    expect((await store.repositories.getInstallation(installation))!.suspendedAt).not.toBeNull();
    expect((await store.repositories.recordSuspended(installation, false)).sort()).toEqual(
      [before, later].sort(),
    );
    expect(await access(before)).toEqual({ removed: false, suspended: false });
    expect(await access(later)).toEqual({ removed: false, suspended: false });
    expect((await store.repositories.getInstallation(installation))!.suspendedAt).toBeNull();
  });

  it.each([
    { removed: false, suspended: false },
    { removed: true, suspended: false },
    { removed: false, suspended: true },
    { removed: true, suspended: true },
  ])(
    'claims what core says of a repository removed: $removed, suspended: $suspended',
    async (flags) => {
      const installation = nextInstallation++;
      const id = await repository(installation);
      await plannedRun(store, id, 1, planOf(taskSpec('a'), taskSpec('b')));
      if (flags.suspended) await store.repositories.recordSuspended(installation, true);
      if (flags.removed) await store.repositories.recordRemoved(installation, [id]);
      const row = (await store.repositories.getRepository(id))!;
      const reachable = unreachableBecause(row) === null;
      expect(reachable).toBe(!flags.removed && !flags.suspended);

      const now = new Date();
      const loads = await store.attempts.loads(now);
      const load = loads.find((l) => l.repositoryId === id);
      const { removedAt, suspendedAt } = row;
      expect(load).toMatchObject({ ready: 2, access: { removedAt, suspendedAt } });
      // Core leaves an unreachable repository's demand out of the shares.
      const demand = installationLoads(loads).find((l) => l.installationId === installation);
      expect(demand?.ready ?? 0).toBe(reachable ? 2 : 0);

      // The claim's guard reads the row as core does.
      const claimed = await store.attempts.claimDispatches(id, {
        repoLimit: 10,
        globalLimit: 100,
        now,
      });
      expect(claimed.length).toBe(reachable ? 2 : 0);
    },
  );
});
