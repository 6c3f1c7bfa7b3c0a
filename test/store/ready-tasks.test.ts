import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tasks } from '../../db/schema.js';
import { DEFAULT_CONFIG } from '../../src/config/schema.js';
import type { Plan, TaskSpec } from '../../src/core/plan/index.js';
import type { DatabaseHandle } from '../../src/store/database.js';
import { createStore, type Store } from '../../src/store/index.js';
import { ENGINES } from '../helpers/engines.js';

const spec = (id: string, priority = 3, deps: string[] = []): TaskSpec => ({
  id,
  title: id,
  type: 'default',
  deps,
  priority,
});
const plan = (...specs: TaskSpec[]): Plan => ({ tasks: specs, order: specs.map((s) => s.id) });

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

  async function runWith(repositoryId: number, issueNumber: number, p: Plan) {
    const { run } = await store.runs.createRun({
      repositoryId,
      issueNumber,
      config: DEFAULT_CONFIG,
      startedBy: 'maintainer',
      issueTitle: `Issue ${issueNumber}`,
      issueBody: '',
    });
    expect(await store.runs.setPlan(run.id, p, 'issue', false)).toBe(true);
    return run;
  }

  it('copies the run’s repository and creation time onto its tasks, whatever an insert says', async () => {
    const run = await runWith(502, 1, plan(spec('only')));
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
    const older = await runWith(501, 10, plan(spec('a'), spec('b', 5), spec('c', 3, ['a'])));
    await runWith(501, 11, plan(spec('x', 5), spec('y'), spec('z', 1)));
    const held = await runWith(501, 12, plan(spec('h', 5)));
    await store.runs.transitionRun(held.id, 'held', { held: true });
    const backoff = await runWith(501, 13, plan(spec('later', 5)));
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
    const intents = await store.attempts.claimDispatches(
      501,
      { repoLimit: 3, globalLimit: 10, now },
      (candidates, headroom) => candidates.slice(0, headroom),
    );
    expect(intents.map((i) => i.task.taskKey)).toEqual(['b', 'x', 'a']);
    expect(await store.attempts.inflightCounts(501)).toEqual({ repository: 3, global: 3 });
    expect(await store.attempts.inflightCounts(502)).toEqual({ repository: 0, global: 3 });
    // The repository's limit is taken: nothing more until one finishes.
    const none = await store.attempts.claimDispatches(
      501,
      { repoLimit: 3, globalLimit: 10, now },
      (candidates, headroom) => candidates.slice(0, headroom),
    );
    expect(none).toEqual([]);
  });
});
