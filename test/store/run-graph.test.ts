import { eq } from 'drizzle-orm';
import { tasks } from '../../db/schema.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskSpec } from '../../src/core/plan/index.js';
import type { DatabaseHandle } from '../../src/store/database.js';
import { createStore, type Store } from '../../src/store/index.js';
import { countStatements } from '../../src/store/statement-count.js';
import { ENGINES } from '../helpers/engines.js';
import { planOf, plannedRun, taskSpec } from '../helpers/planned-run.js';

const REPOSITORY = { id: 2 ** 33 + 7, owner: 'octo', name: 'snap' };

describe.each(ENGINES)('a run and its graph on $name', (engine) => {
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

  const task = (id: string, deps: string[] = []) => taskSpec(id, { deps });
  /** A run planned with `tasks`, in the order given. */
  const runOf = (issueNumber: number, specs: TaskSpec[]) =>
    plannedRun(store, REPOSITORY.id, issueNumber, planOf(...specs));

  it('reads the run with its repository, and its tasks in plan order with deps and PR rows', async () => {
    const run = await runOf(12, [task('a'), task('c', ['b', 'a']), task('b', ['a'])]);
    const claimed = await store.attempts.claimDispatches(REPOSITORY.id, {
      repoLimit: 10,
      globalLimit: 10,
      now: new Date(),
    });
    expect(claimed.map((c) => c.task.taskKey)).toEqual(['a']);
    const a = claimed[0]!.task;
    // The worker's run starts: attempt and task in one statement; a second start moves nothing.
    const started = await countStatements(() =>
      store.runs.startAttempt(a.id, claimed[0]!.attempt.id, new Date()),
    );
    expect(started.statements).toBe(1);
    expect(started.value?.state).toBe('running');
    expect((await store.attempts.latestOf(a.id))?.phase).toBe('running');
    expect(await store.runs.startAttempt(a.id, claimed[0]!.attempt.id, new Date())).toBeUndefined();
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

    const found = await store.runs.runWithRepository(run.id);
    expect(found?.run.id).toBe(run.id);
    expect(found?.run.planApproved).toBe(true);
    expect(found?.repository).toMatchObject(REPOSITORY);
    const graph = await store.runs.graphOf(run.id);
    expect(graph.tasks.map((t) => t.taskKey)).toEqual(['a', 'c', 'b']);
    expect(Object.fromEntries(graph.depsOf)).toEqual({ a: [], c: ['a', 'b'], b: ['a'] });
    expect(graph.byKey.get('c')?.unmetDeps).toBe(2);
    expect(graph.byKey.get('a')?.prNumber).toBe(6);
    // Only the PR the task points at, not the closed one before it.
    expect(graph.pullOf.get(a.id)?.id).toBe(open.id);
    expect(closed.id).not.toBe(open.id);
    expect(graph.pullOf.size).toBe(1);
    // Row for row and type for type what drizzle reads of the same rows.
    expect(graph.tasks).toStrictEqual(await store.runs.tasksOf(run.id));
    expect(graph.pullOf.get(a.id)).toStrictEqual(await store.pulls.byNumber(REPOSITORY.id, 6));
    // A merge turn opens with the same graph, in one statement.
    const opened = await countStatements(() =>
      store.mergeTurns.take(REPOSITORY.id, run.id, async (view) => view),
    );
    expect(opened.value.graph).toStrictEqual(graph);
    expect(opened.statements).toBe(engine.name === 'postgres' ? 2 : 1); // + the unlock
  });

  it('merges a task and frees its dependents in one statement, and records its PR merged after', async () => {
    const run = await runOf(13, [task('a'), task('b', ['a']), task('c', ['a', 'b'])]);
    const a = (await store.runs.task(run.id, 'a'))!;
    await store.pulls.upsert({
      repositoryId: REPOSITORY.id,
      number: 31,
      taskId: a.id,
      headRef: 'agent/13/a',
      headSha: 'head-a',
      baseRef: 'main',
      state: 'open',
      merged: false,
    });
    await handle.db.update(tasks).set({ state: 'merging' }).where(eq(tasks.id, a.id));
    // Not merged yet: the closed event has more to do than record the PR.
    expect(await store.pulls.recordMergedOfMergedTask(REPOSITORY.id, 31, 'head-a')).toBe(false);

    const counted = await countStatements(() => store.runs.markMerged(a.id, run.id, 'a'));
    expect(counted.statements).toBe(1);
    expect(counted.value).toMatchObject({ state: 'merged', othersOpen: 2 });
    const unmet = async () =>
      Object.fromEntries(
        (await store.runs.tasksOf(run.id)).map((t) => [t.taskKey, [t.state, t.unmetDeps]]),
      );
    expect(await unmet()).toEqual({ a: ['merged', 0], b: ['pending', 0], c: ['pending', 1] });
    // A second merge of the same task is refused and frees nothing twice.
    expect(await store.runs.markMerged(a.id, run.id, 'a')).toBeUndefined();
    expect(await unmet()).toEqual({ a: ['merged', 0], b: ['pending', 0], c: ['pending', 1] });

    expect(await store.pulls.recordMergedOfMergedTask(REPOSITORY.id, 31, 'head-a')).toBe(true);
    expect(await store.pulls.byNumber(REPOSITORY.id, 31)).toMatchObject({
      state: 'closed',
      merged: true,
    });
  });

  it('reads nothing for a run that does not exist', async () => {
    expect(await store.runs.runWithRepository(987_654)).toBeUndefined();
    expect((await store.runs.graphOf(987_654)).tasks).toEqual([]);
  });
});

describe.each(ENGINES)('base-branch slots held by other runs on $name', (engine) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let store: Store;
  const repositoryId = 2 ** 33 + 8;

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    store = createStore(handle);
    await store.repositories.ensureInstallation(2 ** 33 + 1);
    await store.repositories.ensureRepository(2 ** 33 + 1, {
      id: repositoryId,
      owner: 'octo',
      name: 'pools',
    });
  });
  afterAll(() => dispose());

  /** The slots other runs hold, as a merge turn's re-read sees them from run `runId`. */
  const slotsOf = async (runId: number) =>
    (await store.mergeTurns.view(repositoryId, runId)).slotsHeldElsewhere;

  /** A run of one task `t` with an open PR `number` into `base`. */
  async function runWithPull(issueNumber: number, number: number, base: string) {
    const run = await plannedRun(store, repositoryId, issueNumber, planOf(taskSpec('t')));
    const task = (await store.runs.task(run.id, 't'))!;
    const pull = await store.pulls.upsert({
      repositoryId,
      number,
      taskId: task.id,
      headRef: `agent/${issueNumber}/t`,
      headSha: `sha${number}`,
      baseRef: base,
      state: 'open',
      merged: false,
    });
    await store.runs.updateTaskFields(task.id, { prNumber: number });
    await handle.db.update(tasks).set({ state: 'approved' }).where(eq(tasks.id, task.id));
    return { run, task, pull };
  }

  it('lists a direct merge in flight and an update not yet pushed, never the run itself', async () => {
    const mine = await runWithPull(1, 11, 'main');
    const merging = await runWithPull(2, 12, 'main');
    const updated = await runWithPull(3, 13, 'release');
    const queued = await runWithPull(4, 14, 'main');
    const idle = await runWithPull(5, 15, 'main');
    await handle.db.update(tasks).set({ state: 'merging' }).where(eq(tasks.id, merging.task.id));
    await store.pulls.update(updated.pull.id, { updatedByCoordinatorFrom: 'sha13-before' });
    // In GitHub's merge queue: the queue serializes those itself.
    await handle.db.update(tasks).set({ state: 'merging' }).where(eq(tasks.id, queued.task.id));
    await store.pulls.update(queued.pull.id, { enqueuedAt: new Date() });
    expect(idle.pull.number).toBe(15);

    const held = await slotsOf(mine.run.id);
    expect(held.sort((a, b) => a.pr - b.pr)).toEqual([
      { baseRef: 'main', pr: 12, kind: 'merging' },
      { baseRef: 'release', pr: 13, kind: 'updated' },
    ]);
    // A merge turn opens with the same slots.
    const opened = await store.mergeTurns.take(repositoryId, mine.run.id, async (view) => view);
    expect(opened.slotsHeldElsewhere.sort((a, b) => a.pr - b.pr)).toEqual(held);
    expect(opened.graph.tasks.map((t) => t.id)).toEqual([mine.task.id]);
    // From the merging run's own view, only the others count.
    const fromMerging = await slotsOf(merging.run.id);
    expect(fromMerging.map((s) => s.pr)).toEqual([13]);
    // A held task holds nothing: it is not going to merge soon.
    await store.runs.updateTaskFields(updated.task.id, { held: true });
    expect((await slotsOf(mine.run.id)).map((s) => s.pr)).toEqual([12]);
  });
});
