import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config/schema.js';
import type { DatabaseHandle } from '../../src/store/database.js';
import { createStore, type Store } from '../../src/store/index.js';
import { countStatements } from '../../src/store/statement-count.js';
import { ENGINES } from '../helpers/engines.js';

/** A guarded task update asks for its run's status comment in the same statement. */
describe.each(ENGINES)('task transitions on $name', (engine) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let store: Store;

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    store = createStore(handle);
    await store.repositories.ensureRepository(9, { id: 601, owner: 'acme', name: 'widgets' });
  });
  afterAll(() => dispose());

  it('moves a task from an expected state and bumps its run, in one statement', async () => {
    const { run } = await store.runs.createRun({
      repositoryId: 601,
      issueNumber: 1,
      config: DEFAULT_CONFIG,
      startedBy: 'maintainer',
      issueTitle: 'Issue',
      issueBody: '',
    });
    const task = { id: 'a', title: 'A', type: 'default', deps: [], priority: 3 };
    await store.runs.setPlan(run.id, { tasks: [task], order: ['a'] }, 'issue', false);
    const [row] = await store.runs.tasksOf(run.id);
    const version = async () => (await store.runs.getRun(run.id))!.statusVersionWanted;
    const before = await version();

    const later = new Date(Date.now() + 60_000);
    const moved = await countStatements(() =>
      store.runs.transitionTask(row!.id, 'dispatched', { nextAttemptAt: later }),
    );
    expect(moved.statements).toBe(1);
    expect(moved.value).toMatchObject({ id: row!.id, state: 'dispatched', nextAttemptAt: later });
    expect(await version()).toBe(before + 1);

    const refused = await countStatements(() => store.runs.transitionTask(row!.id, 'unblocked'));
    expect(refused).toMatchObject({ value: undefined, statements: 1 });
    expect(await version()).toBe(before + 1);

    const review = await store.runs.enterReview(row!.id, 7, 'abc');
    expect(review).toMatchObject({ state: 'in_review', prNumber: 7 });
    expect(await version()).toBe(before + 2);
  });
});
