import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/store/database.js';
import { RepositoryStore, type RepositoryRef } from '../../src/store/repositories.js';
import { ENGINES } from '../helpers/engines.js';

const INSTALLATION = 2 ** 33 + 1;
const OTHER_INSTALLATION = 2 ** 33 + 2;

/**
 * docs/security.md, "Another installation": every delivery names the repository by id with its
 * name, owner, installation and default branch as they are now. The record follows them, so the
 * App never writes to a name, or through an installation, the repository no longer has.
 */
describe.each(ENGINES)('RepositoryStore.ensureRepository on $name', (engine) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let store: RepositoryStore;
  let nextId = 2 ** 32 + 100;

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    store = new RepositoryStore(handle.db);
  });
  afterAll(() => dispose());

  const record = async (id: number) => {
    const row = await store.getRepository(id);
    return row && { ...row, createdAt: undefined, updatedAt: undefined, maxParallel: undefined };
  };

  it.each<{ name: string; later: Partial<RepositoryRef>; installation?: number }>([
    { name: 'renamed', later: { name: 'gadgets' } },
    { name: 'transferred to another owner', later: { owner: 'globex' } },
    {
      name: 'transferred to an account of another installation',
      later: { owner: 'globex' },
      installation: OTHER_INSTALLATION,
    },
    { name: 'with another default branch', later: { defaultBranch: 'trunk' } },
  ])('takes what a later delivery says of a repository $name', async ({ later, installation }) => {
    const id = nextId++;
    const first = { id, owner: 'acme', name: `widgets-${id}`, defaultBranch: 'main' };
    await store.ensureRepository(INSTALLATION, first);
    await store.ensureRepository(installation ?? INSTALLATION, { ...first, ...later });
    expect(await record(id)).toEqual({
      ...first,
      ...later,
      installationId: installation ?? INSTALLATION,
      removedAt: null,
      suspendedAt: null,
      createdAt: undefined,
      updatedAt: undefined,
      maxParallel: undefined,
    });
  });

  it('records a new repository under the name a renamed one had, before the renamed one is heard of again', async () => {
    const renamed = nextId++;
    const taker = nextId++;
    await store.ensureRepository(INSTALLATION, { id: renamed, owner: 'acme', name: 'shared' });
    // `acme/shared` was renamed on GitHub and a new repository made under its old name.
    await store.ensureRepository(INSTALLATION, { id: taker, owner: 'acme', name: 'shared' });
    expect(await record(taker)).toMatchObject({ id: taker, owner: 'acme', name: 'shared' });
    await store.ensureRepository(INSTALLATION, { id: renamed, owner: 'acme', name: 'old-shared' });
    expect(await record(renamed)).toMatchObject({ owner: 'acme', name: 'old-shared' });
  });
});
