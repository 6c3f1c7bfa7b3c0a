// The benchmark's in-memory baseline (bench/in-memory-scheduler/): bench/scheduling.ts times it
// against the seed's scan, so its answers must be right for the comparison to mean anything.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  SchedulerIndex,
  type SchedulerTask,
} from '../../../bench/in-memory-scheduler/scheduler-index.js';
import { chain, fanOut, SPEC_TASKS } from '../../core/scheduler/builders.js';

const ids = (cs: ReadonlyArray<{ taskId: string }>): string[] => cs.map((c) => c.taskId);

function task(overrides: Partial<SchedulerTask> = {}): SchedulerTask {
  return { id: 'task_001', deps: [], ...overrides };
}

/** Takes everything, merging as it goes, and returns the dispatch order. */
function drain(index: SchedulerIndex, batch: number): string[] {
  const order: string[] = [];
  for (let taken = index.take(batch); taken.length > 0; taken = index.take(batch)) {
    for (const c of taken) {
      order.push(c.taskId);
      index.markMerged(c.runId, c.taskId);
    }
  }
  return order;
}

describe('SchedulerIndex', () => {
  it('runs the docs/tasks-block.md plan in dependency order', () => {
    const index = new SchedulerIndex();
    expect(ids(index.addRun('run1', SPEC_TASKS))).toEqual(['task_001']);
    expect(ids(index.take(10))).toEqual(['task_001']);
    expect(index.take(10)).toEqual([]);
    expect(ids(index.markMerged('run1', 'task_001'))).toEqual(['task_002', 'task_003']);
    expect(ids(index.take(10))).toEqual(['task_002', 'task_003']);
    expect(index.markMerged('run1', 'task_002')).toEqual([]);
    expect(ids(index.markMerged('run1', 'task_003'))).toEqual(['task_004']);
  });

  it('ignores a duplicate merge', () => {
    const index = new SchedulerIndex();
    index.addRun('run1', [
      task({ id: 'a' }),
      task({ id: 'b' }),
      task({ id: 'c', deps: ['a', 'b'] }),
    ]);
    index.take(10);
    index.markMerged('run1', 'a');
    expect(index.markMerged('run1', 'a')).toEqual([]);
    expect(index.unmetCount('run1', 'c')).toBe(1);
  });

  it('resumes from a snapshot: merged ids and non-pending states', () => {
    const index = new SchedulerIndex();
    const ready = index.addRun(
      'run1',
      [
        task({ id: 'a', state: 'merged' }),
        task({ id: 'b', deps: ['a'], state: 'running' }),
        task({ id: 'c', deps: ['a'] }),
        task({ id: 'd', deps: ['b'] }),
      ],
      [],
      500,
    );
    expect(ready).toEqual([{ runId: 'run1', taskId: 'c', priority: 3, order: 502 }]);
    expect(ids(index.markMerged('run1', 'b'))).toEqual(['d']);
  });

  it('orders across runs by priority, then age', () => {
    const index = new SchedulerIndex();
    index.addRun('old', [task({ id: 'o1' }), task({ id: 'o2', priority: 5 })], [], 1_000_000);
    index.addRun('new', [task({ id: 'n1', priority: 5 }), task({ id: 'n2' })], [], 2_000_000);
    expect(ids(index.take(10))).toEqual(['o2', 'n1', 'o1', 'n2']);
  });

  it('skips held runs and tasks in backoff but keeps them queued', () => {
    const index = new SchedulerIndex();
    index.addRun('held', [task({ id: 'h1', priority: 5 })], [], 0);
    index.addRun('free', [task({ id: 'f1', backoffUntil: 2_000 }), task({ id: 'f2' })], [], 10);
    const skipRun = (runId: string): boolean => runId === 'held';
    expect(ids(index.take(10, { now: 1_000, skipRun }))).toEqual(['f2']);
    expect(ids(index.take(10, { now: 2_000, skipRun }))).toEqual(['f1']);
    expect(ids(index.take(10))).toEqual(['h1']);
  });

  it('honours the limit and an arbitrary filter', () => {
    const index = new SchedulerIndex();
    index.addRun('run1', [task({ id: 'a' }), task({ id: 'b' }), task({ id: 'c' })]);
    expect(ids(index.take(1, { filter: (c) => c.taskId !== 'a' }))).toEqual(['b']);
    expect(index.readyCount).toBe(2);
    expect(ids(index.readyOf('run1'))).toEqual(['a', 'c']);
  });

  it('does not queue a dispatched or blocked task until it is pending again', () => {
    const index = new SchedulerIndex();
    index.addRun('run1', [task({ id: 'a' }), task({ id: 'b', deps: ['a'] })]);
    index.markDispatched('run1', 'b'); // e.g. blocked by a failed attempt of a
    expect(index.markMerged('run1', 'a')).toEqual([]);
    expect(index.markPending('run1', 'b', 9_000)).toEqual({
      runId: 'run1',
      taskId: 'b',
      priority: 3,
      order: 1,
      backoffUntil: 9_000,
    });
    expect(ids(index.take(10, { now: 9_000 }))).toEqual(['b']);
  });

  it('requeues a pending task whose deps are unmet only once they merge', () => {
    const index = new SchedulerIndex();
    index.addRun('run1', [task({ id: 'a' }), task({ id: 'b', deps: ['a'], state: 'blocked' })]);
    expect(index.markPending('run1', 'b')).toBeUndefined();
    expect(ids(index.markMerged('run1', 'a'))).toEqual(['b']);
  });

  it('lists dependents to block and forgets removed runs', () => {
    const index = new SchedulerIndex();
    index.addRun('run1', SPEC_TASKS);
    expect(index.transitiveDependents('run1', 'task_002')).toEqual(['task_004']);
    index.removeRun('run1');
    expect(index.take(10)).toEqual([]);
    expect(index.markMerged('run1', 'task_001')).toEqual([]);
  });

  it('drains a 30,000-task chain', () => {
    const index = new SchedulerIndex();
    index.addRun('run1', chain(30_000));
    const order = drain(index, 10);
    expect(order).toHaveLength(30_000);
    expect(order.at(-1)).toBe('t29999');
  });

  it('drains a 30,000-task fan-out', () => {
    const index = new SchedulerIndex();
    index.addRun('run1', fanOut(30_000));
    const order = drain(index, 10);
    expect(order).toHaveLength(30_000);
    expect(order.slice(0, 3)).toEqual(['t0', 't1', 't2']);
  });

  it('takes every task exactly once, each after all its deps', () => {
    // Random DAGs: a task may only depend on earlier ones.
    const arbPlan = fc
      .array(
        fc.record({
          priority: fc.integer({ min: 1, max: 5 }),
          deps: fc.array(fc.nat(), { maxLength: 4 }),
        }),
        { minLength: 1, maxLength: 60 },
      )
      .map((rows) =>
        rows.map((row, i) => ({
          id: `t${i}`,
          priority: row.priority,
          deps: i === 0 ? [] : row.deps.map((d) => `t${d % i}`),
        })),
      );
    fc.assert(
      fc.property(arbPlan, fc.integer({ min: 1, max: 5 }), (plan, batch) => {
        const index = new SchedulerIndex();
        index.addRun('run1', plan);
        const order = drain(index, batch);
        expect([...order].sort()).toEqual(plan.map((t) => t.id).sort());
        const position = new Map(order.map((id, i) => [id, i]));
        for (const t of plan) {
          for (const d of t.deps) expect(position.get(d)).toBeLessThan(position.get(t.id) ?? -1);
        }
      }),
    );
  });
});
