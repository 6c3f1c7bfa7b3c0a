import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  attempts,
  installations,
  repositories,
  runs,
  tasks,
  webhookDeliveries,
} from '../../db/schema.js';
import type { RunState, TaskState } from '../../src/core/states.js';
import { createMetrics } from '../../src/metrics.js';
import type { DatabaseHandle } from '../../src/store/database.js';
import { readMetricsSnapshot } from '../../src/store/metrics-queries.js';
import { ENGINES } from '../helpers/engines.js';
import { Exposition } from '../helpers/prometheus.js';

const WIDGETS = 2 ** 32 + 1;
const GADGETS = 2 ** 32 + 2;
const ago = (seconds: number) => new Date(Date.now() - seconds * 1000);

describe.each(ENGINES)('metrics snapshot on $name', (engine) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    const { db } = handle;
    await db.insert(installations).values({ id: 2 ** 33 });
    await db.insert(repositories).values([
      { id: 2 ** 32 + 1, installationId: 2 ** 33, owner: 'acme', name: 'widgets' },
      { id: 2 ** 32 + 2, installationId: 2 ** 33, owner: 'acme', name: 'gadgets' },
    ]);
    let issue = 0;
    const run = async (repositoryId: number, state: RunState, finished = false) => {
      const [row] = await db
        .insert(runs)
        .values({
          repositoryId,
          issueNumber: ++issue,
          state,
          config: {},
          startedBy: 'maintainer',
          finishedAt: finished ? new Date() : null,
        })
        .returning();
      return row!.id;
    };
    let planIndex = 0;
    const task = async (
      runId: number,
      state: TaskState,
      extra: { unmetDeps?: number; nextAttemptAt?: Date } = {},
    ) => {
      const [row] = await db
        .insert(tasks)
        .values({
          runId,
          taskKey: `t${++planIndex}`,
          planIndex,
          title: 'A title people wrote',
          state,
          ...extra,
        })
        .returning();
      return row!.id;
    };

    const widgets = await run(2 ** 32 + 1, 'running');
    const merged = await task(widgets, 'merged');
    await task(widgets, 'pending'); // ready
    await task(widgets, 'pending', { unmetDeps: 1 });
    await task(widgets, 'pending', { nextAttemptAt: new Date(Date.now() + 60_000) });
    const running = await task(widgets, 'running');
    await task(widgets, 'dispatched');
    // A held run dispatches nothing: its ready task is not in the queue.
    await task(await run(2 ** 32 + 1, 'held'), 'pending');
    const gadgets = await run(2 ** 32 + 2, 'running');
    await task(gadgets, 'in_review');
    await task(gadgets, 'pending'); // ready
    // Finished runs are history: their tasks are not counted, their attempts are.
    const old = await task(await run(2 ** 32 + 2, 'done', true), 'merged');

    await db.insert(attempts).values([
      { taskId: merged, attempt: 1, mode: 'work', conclusion: 'success', costUsd: 0.5 },
      { taskId: running, attempt: 1, mode: 'work', conclusion: 'failure', costUsd: 0.25 },
      { taskId: running, attempt: 2, mode: 'fix' }, // in flight
      { taskId: old, attempt: 1, mode: 'work', conclusion: 'success', costUsd: 1 },
    ]);
    const delivery = (id: string, status: 'pending' | 'processing' | 'done' | 'failed', at: Date) =>
      ({ deliveryId: id, event: 'issues', payload: '{}', status, receivedAt: at }) as const;
    await db
      .insert(webhookDeliveries)
      .values([
        delivery('d-pending', 'pending', ago(30)),
        delivery('d-processing', 'processing', ago(10)),
        delivery('d-failed', 'failed', ago(600)),
        delivery('d-done', 'done', ago(900)),
      ]);
  });
  afterAll(() => dispose());

  it('reads tasks of unfinished runs, all attempts, and the inbox', async () => {
    const snapshot = await readMetricsSnapshot(handle.db);
    const byRepoState = (repositoryId: number, state: TaskState) =>
      snapshot.tasks.find((t) => t.repositoryId === repositoryId && t.state === state);
    expect(byRepoState(WIDGETS, 'pending')).toEqual({
      repositoryId: WIDGETS,
      state: 'pending',
      count: 4,
      ready: 1,
    });
    expect(byRepoState(WIDGETS, 'running')?.count).toBe(1);
    expect(byRepoState(GADGETS, 'in_review')?.count).toBe(1);
    expect(byRepoState(GADGETS, 'pending')?.ready).toBe(1);
    expect(byRepoState(GADGETS, 'merged')).toBeUndefined();
    expect(snapshot.attempts.sort((a, b) => a.conclusion.localeCompare(b.conclusion))).toEqual([
      { conclusion: 'failure', count: 1, costUsd: 0.25 },
      { conclusion: 'success', count: 2, costUsd: 1.5 },
    ]);
    expect(snapshot.deliveries.sort((a, b) => a.status.localeCompare(b.status))).toEqual([
      { status: 'failed', count: 1 },
      { status: 'pending', count: 1 },
      { status: 'processing', count: 1 },
    ]);
    // The oldest delivery not handled yet: the pending one (failed and done ones are not waiting).
    expect(snapshot.oldestUnhandledDeliverySeconds).toBeGreaterThanOrEqual(29);
    expect(snapshot.oldestUnhandledDeliverySeconds).toBeLessThan(300);
  });

  it('serves them as Prometheus series', async () => {
    const metrics = createMetrics({ readSnapshot: () => readMetricsSnapshot(handle.db) });
    const m = new Exposition(await metrics.registry.metrics());
    expect(m.value('agent_coordinator_tasks', { state: 'pending' })).toBe(5);
    expect(m.value('agent_coordinator_tasks', { state: 'merged' })).toBe(1);
    expect(m.value('agent_coordinator_tasks', { state: 'cancelled' })).toBe(0);
    expect(m.sum('agent_coordinator_tasks')).toBe(9);
    expect(m.value('agent_coordinator_tasks_running')).toBe(2);
    // One ready task in each repository: two in all, one at most in any.
    expect(m.value('agent_coordinator_dispatch_queue_depth')).toBe(2);
    expect(m.value('agent_coordinator_dispatch_queue_depth_max')).toBe(1);
    expect(m.value('agent_coordinator_attempts_completed_total', { conclusion: 'success' })).toBe(
      2,
    );
    expect(m.value('agent_coordinator_spend_usd_total')).toBe(1.75);
    expect(m.value('agent_coordinator_webhook_deliveries', { status: 'failed' })).toBe(1);
    expect(m.value('agent_coordinator_webhook_lag_seconds')).toBeGreaterThanOrEqual(29);
    // No label names a repository, an owner or an installation, or quotes what people wrote.
    for (const secret of ['acme', 'widgets', 'gadgets', 'A title people wrote'])
      expect(m.text).not.toContain(secret);
    for (const id of [2 ** 33, WIDGETS, GADGETS]) expect(m.text).not.toContain(String(id));
  });
});
