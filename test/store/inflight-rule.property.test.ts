import fc from 'fast-check';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tasks } from '../../db/schema.js';
import { PLAN_TASK_KEY } from '../../src/core/plan/types.js';
import { INFLIGHT_TASK_STATES, TASK_STATES, type TaskState } from '../../src/core/states.js';
import type { DatabaseHandle } from '../../src/store/database.js';
import { rowsOf } from '../../src/store/database.js';
import { createStore } from '../../src/store/index.js';
import { ENGINES } from '../helpers/engines.js';
import { planOf, plannedRun, taskSpec } from '../helpers/planned-run.js';

const REPOSITORY = 601;

/**
 * "In flight" is core's rule (INFLIGHT_TASK_STATES; the planner apart, as concurrency.maxParallel
 * counts workers of the plan's tasks). The `count_inflight` trigger repeats it in SQL so that the
 * dispatch claim reads one counter row under its lock: whatever states tasks move through, the
 * counter must equal core's count, or a state added in core never reaches the limit.
 */
describe.each(ENGINES)("the in-flight counter follows core's rule on $name", (engine) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let taskIds: number[];

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    const store = createStore(handle);
    await store.repositories.ensureRepository(9, { id: REPOSITORY, owner: 'acme', name: 'w' });
    const run = await plannedRun(store, REPOSITORY, 1, planOf(taskSpec('a'), taskSpec('b')));
    await handle.db.execute(sql`
      insert into tasks (run_id, repository_id, run_created_at, task_key, plan_index, title)
      values (${run.id}, ${REPOSITORY}, now(), ${PLAN_TASK_KEY}, 0, 'plan')`);
    const rows = await handle.db
      .select({ id: tasks.id })
      .from(tasks)
      .where(eq(tasks.runId, run.id));
    taskIds = rows.map((r) => r.id);
  });
  afterAll(() => dispose());

  const counter = async () => {
    const rows = rowsOf<{ n: number }>(
      await handle.db.execute(sql`
        select coalesce(sum(in_flight), 0)::int as n from repository_inflight
         where repository_id = ${REPOSITORY}`),
    );
    return rows[0]!.n;
  };
  const coreCount = async () => {
    const rows = await handle.db
      .select({ key: tasks.taskKey, state: tasks.state })
      .from(tasks)
      .where(eq(tasks.repositoryId, REPOSITORY));
    return rows.filter(
      (t) => t.key !== PLAN_TASK_KEY && INFLIGHT_TASK_STATES.has(t.state as TaskState),
    ).length;
  };

  it('over any sequence of state changes', async () => {
    expect(taskIds).toHaveLength(3);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat({ max: 2 }), fc.constantFrom(...TASK_STATES)), {
          minLength: 1,
          maxLength: 12,
        }),
        async (moves) => {
          for (const [index, state] of moves) {
            await handle.db.execute(
              sql`update tasks set state = ${state} where id = ${taskIds[index]!}`,
            );
            expect(await counter()).toBe(await coreCount());
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
