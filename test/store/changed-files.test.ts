import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/store/database.js';
import { createStore, type Store } from '../../src/store/index.js';
import { countStatements } from '../../src/store/statement-count.js';
import { ENGINES } from '../helpers/engines.js';
import { planOf, plannedRun, taskSpec } from '../helpers/planned-run.js';

const REPOSITORY = { id: 2 ** 33 + 11, owner: 'octo', name: 'files' };

/** A task's PR files, recorded with the head they were read at (docs/lifecycle.md "Real files"). */
describe.each(ENGINES)('changed files on $name', (engine) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let store: Store;

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    store = createStore(handle);
    await store.repositories.ensureInstallation(2 ** 33 + 1);
    await store.repositories.ensureRepository(2 ** 33 + 1, REPOSITORY);
  });
  afterAll(() => dispose());

  it('records new files with their head and makes the status due; a new head alone is kept quietly', async () => {
    const run = await plannedRun(store, REPOSITORY.id, 3, planOf(taskSpec('a')));
    const task = (await store.runs.task(run.id, 'a'))!;
    const wanted = async () => (await store.runs.getRun(run.id))!.statusVersionWanted;
    const before = await wanted();
    const recorded = async () => {
      const row = (await store.runs.task(run.id, 'a'))!;
      return { files: row.changedFiles, head: row.changedFilesHead, updatedAt: row.updatedAt };
    };

    const first = await countStatements(() =>
      store.taskPaths.recordChangedFiles(task.id, ['b.ts', 'a.ts'], 'h1'),
    );
    expect(first).toMatchObject({ value: true, statements: 1 });
    expect(await recorded()).toMatchObject({ files: ['a.ts', 'b.ts'], head: 'h1' });
    expect(await wanted()).toBe(before + 1);
    const { updatedAt } = await recorded();

    // The same files at a later head: the head is recorded, nothing the decisions show changed.
    expect(await store.taskPaths.recordChangedFiles(task.id, ['a.ts', 'b.ts'], 'h2')).toBe(false);
    expect(await recorded()).toEqual({ files: ['a.ts', 'b.ts'], head: 'h2', updatedAt });
    expect(await wanted()).toBe(before + 1);

    // Read again at the same head: nothing is written.
    expect(await store.taskPaths.recordChangedFiles(task.id, ['a.ts', 'b.ts'], 'h2')).toBe(false);
    expect(await recorded()).toEqual({ files: ['a.ts', 'b.ts'], head: 'h2', updatedAt });

    // Other files at the next head: recorded, and the status is due again.
    expect(await store.taskPaths.recordChangedFiles(task.id, ['c.ts'], 'h3')).toBe(true);
    expect(await recorded()).toMatchObject({ files: ['c.ts'], head: 'h3' });
    expect(await wanted()).toBe(before + 2);
  });
});
