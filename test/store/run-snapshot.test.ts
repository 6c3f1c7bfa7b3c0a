import { attempts } from '../../db/schema.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoConfigSchema } from '../../src/config/schema.js';
import type { DatabaseHandle } from '../../src/store/database.js';
import { createStore, type Store } from '../../src/store/index.js';
import { ENGINES } from '../helpers/engines.js';

const REPOSITORY = { id: 2 ** 33 + 7, owner: 'octo', name: 'snap' };

describe.each(ENGINES)('run snapshot on $name', (engine) => {
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

  it('holds the run, its repository, tasks in plan order with deps, latest attempts and PR rows', async () => {
    const { run } = await store.runs.createRun({
      repositoryId: REPOSITORY.id,
      issueNumber: 12,
      config: repoConfigSchema.parse({}),
      startedBy: 'octocat',
      issueTitle: 'Snapshot',
      issueBody: '',
    });
    const plan = {
      version: 1,
      tasks: [
        { id: 'a', title: 'A', type: 'default', priority: 3, deps: [] },
        { id: 'c', title: 'C', type: 'default', priority: 3, deps: ['b', 'a'] },
        { id: 'b', title: 'B', type: 'default', priority: 3, deps: ['a'] },
      ],
    };
    expect(await store.runs.setPlan(run.id, plan as never, 'issue', false)).toBe(true);
    const claimed = await store.attempts.claimDispatches(
      REPOSITORY.id,
      { repoLimit: 10, globalLimit: 10, now: new Date() },
      (rows) => rows,
    );
    expect(claimed.map((c) => c.task.taskKey)).toEqual(['a']);
    const a = claimed[0]!.task;
    await store.attempts.complete(claimed[0]!.attempt.id, { conclusion: 'failure' });
    // A second attempt after the first failed: the snapshot holds the newest.
    await handle.db.insert(attempts).values({ taskId: a.id, attempt: 2, mode: 'fix' });
    const closed = await store.pulls.upsert({
      repositoryId: REPOSITORY.id,
      number: 5,
      taskId: a.id,
      headRef: 'agent/12/a',
      headSha: 'old',
      baseRef: 'main',
      state: 'closed',
      merged: false,
    });
    const open = await store.pulls.upsert({
      repositoryId: REPOSITORY.id,
      number: 6,
      taskId: a.id,
      headRef: 'agent/12/a',
      headSha: 'new',
      baseRef: 'main',
      state: 'open',
      merged: false,
    });
    await store.runs.updateRun(run.id, { planApproved: true });
    await store.runs.updateTaskFields(a.id, { prNumber: 6 });

    const snapshot = await store.snapshots.load(run.id);
    expect(snapshot?.run.id).toBe(run.id);
    expect(snapshot?.run.planApproved).toBe(true);
    expect(snapshot?.repository).toMatchObject(REPOSITORY);
    expect(snapshot?.tasks.map((t) => t.taskKey)).toEqual(['a', 'c', 'b']);
    expect(Object.fromEntries(snapshot!.depsOf)).toEqual({ a: [], c: ['a', 'b'], b: ['a'] });
    expect(snapshot?.byKey.get('c')?.unmetDeps).toBe(2);
    expect(snapshot?.byId.get(a.id)?.prNumber).toBe(6);
    expect(snapshot?.latestAttempt.get(a.id)).toMatchObject({ attempt: 2, mode: 'fix' });
    expect(snapshot?.latestAttempt.has(snapshot.byKey.get('b')!.id)).toBe(false);
    // Only the PR the task points at, not the closed one before it.
    expect(snapshot?.pullOf.get(a.id)?.id).toBe(open.id);
    expect(closed.id).not.toBe(open.id);
    expect(snapshot?.pullOf.size).toBe(1);
  });

  it('is undefined for a run that does not exist', async () => {
    expect(await store.snapshots.load(987_654)).toBeUndefined();
  });
});
