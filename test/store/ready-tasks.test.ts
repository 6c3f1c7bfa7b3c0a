import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attempts, runs, tasks } from '../../db/schema.js';
import { DEFAULT_CONFIG } from '../../src/config/schema.js';
import type { DatabaseHandle } from '../../src/store/database.js';
import { createStore, type Store } from '../../src/store/index.js';
import { ENGINES } from '../helpers/engines.js';
import { planOf, plannedRun, taskSpec } from '../helpers/planned-run.js';
import { rowsOf } from '../../src/store/database.js';
import { compareCandidates } from '../../src/core/scheduler/index.js';

const spec = (id: string, priority = 3, deps: string[] = []) => taskSpec(id, { priority, deps });

/** The claim's reads (src/store/attempts.ts): a repository's ready set and in-flight counts. */
describe.each(ENGINES)('ready tasks and in-flight counts on $name', (engine) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let store: Store;

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    store = createStore(handle);
    for (const id of [501, 502])
      await store.repositories.ensureRepository(9, { id, owner: 'acme', name: `repo-${id}` });
  });
  afterAll(() => dispose());

  it('copies the run’s repository and creation time onto its tasks, whatever an insert says', async () => {
    const run = await plannedRun(store, 502, 1, planOf(spec('only')));
    const [row] = await handle.db.select().from(tasks).where(eq(tasks.runId, run.id));
    expect(row).toMatchObject({ repositoryId: 502, runCreatedAt: run.createdAt });
    await handle.db.execute(sql`
      insert into tasks (run_id, repository_id, run_created_at, task_key, plan_index, title)
      values (${run.id}, 501, now() + interval '1 day', 'forged', 1, 'forged')`);
    const [forged] = await handle.db
      .select()
      .from(tasks)
      .where(sql`${tasks.runId} = ${run.id} and ${tasks.taskKey} = 'forged'`);
    expect(forged).toMatchObject({ repositoryId: 502, runCreatedAt: run.createdAt });
  });

  it('reads the ready set by priority, then oldest run, then plan order, and counts what is in flight', async () => {
    const older = await plannedRun(
      store,
      501,
      10,
      planOf(spec('a'), spec('b', 5), spec('c', 3, ['a'])),
    );
    await plannedRun(store, 501, 11, planOf(spec('x', 5), spec('y'), spec('z', 1)));
    const held = await plannedRun(store, 501, 12, planOf(spec('h', 5)));
    await store.runs.transitionRun(held.id, 'held', { held: true });
    const backoff = await plannedRun(store, 501, 13, planOf(spec('later', 5)));
    const [later] = await store.runs.tasksOf(backoff.id);
    await store.runs.updateTaskFields(later!.id, {
      nextAttemptAt: new Date(Date.now() + 60_000),
    });

    const now = new Date();
    const ready = await store.attempts.readyTasks(501, now, 10);
    const keys = ready.map(
      (r) => `${r.task.runId === older.id ? 'older' : 'newer'}:${r.task.taskKey}`,
    );
    expect(keys).toEqual(['older:b', 'newer:x', 'older:a', 'newer:y', 'newer:z']);
    expect(ready[0]!.runCreatedAt).toEqual(older.createdAt);
    expect((await store.attempts.readyTasks(501, now, 2)).map((r) => r.task.taskKey)).toEqual([
      'b',
      'x',
    ]);

    expect(await store.attempts.inflightCounts(501)).toEqual({ repository: 0, global: 0 });
    const intents = await store.attempts.claimDispatches(501, {
      repoLimit: 3,
      globalLimit: 10,
      now,
    });
    expect(intents.map((i) => i.task.taskKey)).toEqual(['b', 'x', 'a']);
    expect(await store.attempts.inflightCounts(501)).toEqual({ repository: 3, global: 3 });
    expect(await store.attempts.inflightCounts(502)).toEqual({ repository: 0, global: 3 });
    // The repository's limit is taken: nothing more until one finishes.
    const none = await store.attempts.claimDispatches(501, { repoLimit: 3, globalLimit: 10, now });
    expect(none).toEqual([]);
  });

  it('claims in the order the scheduler explains (compareCandidates), with what each attempt carries', async () => {
    const run = await plannedRun(
      store,
      502,
      20,
      planOf(spec('p1', 1), spec('p9', 9), spec('p3a'), spec('p3b')),
    );
    const [, , p3a] = await store.runs
      .tasksOf(run.id)
      .then((rows) => [...rows].sort((a, b) => a.planIndex - b.planIndex));
    await store.runs.updateTaskFields(p3a!.id, {
      nextMode: 'fix',
      pendingFeedback: 'the review',
      pendingReview: { reviewer: 'octocat' },
    });
    const ready = await store.attempts.readyTasks(502, new Date(), 10);
    // Within a run, the order the status comment explains (src/engine/status.ts).
    const asCandidates = ready
      .filter((r) => r.task.runId === run.id)
      .map((r) => ({
        runId: String(r.task.runId),
        taskId: r.task.taskKey,
        priority: r.task.priority,
        order: r.task.planIndex,
      }));
    expect(asCandidates.map((c) => c.taskId)).toEqual(['p9', 'p3a', 'p3b', 'p1']);
    expect([...asCandidates].sort(compareCandidates)).toEqual(asCandidates);

    const claimed = await store.attempts.claimDispatches(502, {
      repoLimit: 100,
      globalLimit: 100,
      now: new Date(),
    });
    expect(claimed.map((i) => i.task.taskKey)).toEqual(ready.map((r) => r.task.taskKey));
    const fix = claimed.find((i) => i.task.taskKey === 'p3a')!;
    expect(fix.attempt).toMatchObject({
      attempt: 1,
      mode: 'fix',
      feedback: 'the review',
      review: { reviewer: 'octocat' },
      phase: 'intent',
    });
    expect(fix.task).toMatchObject({ state: 'dispatched', pendingFeedback: null, attemptCount: 1 });
  });

  it('returns what it claimed as drizzle reads those rows: every column, dates and numbers decoded', async () => {
    const run = await plannedRun(store, 502, 21, planOf(spec('r1'), spec('r2')));
    const claimed = await store.attempts.claimDispatches(502, {
      repoLimit: 100,
      globalLimit: 100,
      now: new Date(),
    });
    const ours = claimed.filter((i) => i.run.id === run.id);
    expect(ours).toHaveLength(2);
    for (const intent of ours) {
      const [read] = await handle.db
        .select({ attempt: attempts, task: tasks, run: runs })
        .from(attempts)
        .innerJoin(tasks, eq(tasks.id, attempts.taskId))
        .innerJoin(runs, eq(runs.id, tasks.runId))
        .where(eq(attempts.id, intent.attempt.id));
      // Deep equality compares types too: a date left a string, or an id a string, fails here.
      expect(intent).toStrictEqual(read);
      expect(intent.attempt.intentAt).toBeInstanceOf(Date);
      expect(intent.run.config).toEqual(DEFAULT_CONFIG);
    }
  });

  it('never claims past a limit, however many claims run at once', async () => {
    await store.repositories.ensureRepository(9, { id: 503, owner: 'acme', name: 'repo-503' });
    await plannedRun(
      store,
      503,
      30,
      planOf(...Array.from({ length: 12 }, (_, i) => spec(`c${i}`))),
    );
    const limits = { repoLimit: 5, globalLimit: 1_000, now: new Date() };
    const claims = await Promise.all(
      Array.from({ length: 8 }, () => store.attempts.claimDispatches(503, limits)),
    );
    const keys = claims.flat().map((i) => i.task.taskKey);
    expect(keys).toHaveLength(5);
    expect(new Set(keys).size).toBe(5);
    expect((await store.attempts.inflightCounts(503)).repository).toBe(5);

    // The global limit binds across repositories: one slot left anywhere is one task.
    const { global } = await store.attempts.inflightCounts(503);
    const more = await store.attempts.claimDispatches(503, {
      repoLimit: 100,
      globalLimit: global + 1,
      now: new Date(),
    });
    expect(more).toHaveLength(1);
    expect(
      await store.attempts.claimDispatches(503, {
        repoLimit: 100,
        globalLimit: global + 1,
        now: new Date(),
      }),
    ).toEqual([]);
  });

  it('keeps each repository’s in-flight count, which the global limit reads, equal to its tasks in flight', async () => {
    const counted = async () =>
      Object.fromEntries(
        rowsOf<{ repository_id: string | number; in_flight: number }>(
          await handle.db.execute(sql`select repository_id, in_flight from repository_inflight`),
        ).map((r) => [Number(r.repository_id), r.in_flight]),
      );
    const actual = async () =>
      Object.fromEntries(
        rowsOf<{ repository_id: string | number; n: number }>(
          await handle.db.execute(sql`select repository_id, count(*)::int as n from tasks
            where state in ('dispatched', 'running') and task_key <> 'plan' group by 1`),
        ).map((r) => [Number(r.repository_id), r.n]),
      );
    const same = async () => {
      const want = await actual();
      const have = await counted();
      for (const id of new Set([...Object.keys(want), ...Object.keys(have)]))
        expect(have[id] ?? 0, `repository ${id}`).toBe(want[id] ?? 0);
    };
    await same();
    await store.repositories.ensureRepository(9, { id: 504, owner: 'acme', name: 'repo-504' });
    const run = await plannedRun(store, 504, 40, planOf(spec('a'), spec('b'), spec('c')));
    const limits = { repoLimit: 10, globalLimit: 1_000, now: new Date() };
    const claimed = await store.attempts.claimDispatches(504, limits);
    expect(claimed).toHaveLength(3);
    await same();
    const [a, b, c] = claimed.map((i) => i.task);
    // dispatched → running stays in flight; running → failed and dispatched → cancelled leave it.
    await store.runs.startAttempt(a!.id, claimed[0]!.attempt.id, new Date());
    await same();
    await store.runs.transitionTask(a!.id, 'failed');
    await store.runs.transitionTask(b!.id, 'cancelled');
    await same();
    expect((await counted())[504]).toBe(1);
    // The planner's task is outside the limits, and a deleted task counts no more.
    await handle.db.execute(sql`update tasks set state = 'dispatched' where id = ${c!.id}`);
    await handle.db.delete(tasks).where(eq(tasks.id, c!.id));
    await same();
    expect((await counted())[504] ?? 0).toBe(0);
    const planner = await store.attempts.claimPlanner(run);
    expect(planner).toBeDefined();
    await same();
  });
});
