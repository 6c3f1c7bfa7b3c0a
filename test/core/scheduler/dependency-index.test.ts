import { describe, expect, it } from 'vitest';
import { DependencyIndex } from '../../../src/core/scheduler/index.js';
import { chain, DIAMOND, fanOut, SPEC_TASKS } from './builders.js';

describe('DependencyIndex', () => {
  it('gives deps and dependents of the docs/tasks-block.md plan', () => {
    const index = new DependencyIndex(SPEC_TASKS);
    expect(index.depsOf('task_004')).toEqual(['task_002', 'task_003']);
    expect(index.dependentsOf('task_001')).toEqual(['task_002', 'task_003']);
    expect(index.dependentsOf('task_004')).toEqual([]);
    expect(index.depsOf('nope')).toEqual([]);
  });

  it('counts unmet deps against a merged set', () => {
    const index = new DependencyIndex(SPEC_TASKS);
    expect(index.unmetCount('task_004', new Set(['task_002']))).toBe(1);
    expect(Object.fromEntries(index.initialUnmetCounts(new Set(['task_001'])))).toEqual({
      task_002: 0,
      task_003: 0,
      task_004: 2,
    });
  });

  it('makes task_001 ready first, then task_002 and task_003 together, then task_004', () => {
    const index = new DependencyIndex(SPEC_TASKS);
    const unmet = index.initialUnmetCounts();
    const ready = [...unmet].filter(([, n]) => n === 0).map(([id]) => id);
    expect(ready).toEqual(['task_001']);
    expect(index.onMerged('task_001', unmet)).toEqual(['task_002', 'task_003']);
    expect(index.onMerged('task_002', unmet)).toEqual([]);
    expect(index.onMerged('task_003', unmet)).toEqual(['task_004']);
    expect(index.onMerged('task_004', unmet)).toEqual([]);
    expect(unmet.size).toBe(0);
  });

  it('counts a repeated dep once', () => {
    const index = new DependencyIndex([
      { id: 'a', deps: [] },
      { id: 'b', deps: ['a', 'a'] },
    ]);
    const unmet = index.initialUnmetCounts();
    expect(unmet.get('b')).toBe(1);
    expect(index.onMerged('a', unmet)).toEqual(['b']);
  });

  it('never makes a task with an unknown dep ready', () => {
    const index = new DependencyIndex([{ id: 'a', deps: ['ghost'] }]);
    expect(index.initialUnmetCounts().get('a')).toBe(1);
  });

  it.each([
    { from: 'a', expected: ['b', 'c', 'd'] },
    { from: 'b', expected: ['d'] },
    { from: 'c', expected: ['d'] },
    { from: 'd', expected: [] },
  ])('lists transitive dependents of $from in a diamond once each', ({ from, expected }) => {
    expect(new DependencyIndex(DIAMOND).transitiveDependents(from)).toEqual(expected);
  });

  it('handles a 30,000-task chain without recursion', () => {
    const tasks = chain(30_000);
    const index = new DependencyIndex(tasks);
    expect(index.transitiveDependents('t0')).toHaveLength(29_999);
    const unmet = index.initialUnmetCounts();
    let ready = ['t0'];
    let merged = 0;
    while (ready.length > 0) {
      const next: string[] = [];
      for (const id of ready) {
        merged++;
        next.push(...index.onMerged(id, unmet));
      }
      ready = next;
    }
    expect(merged).toBe(30_000);
    expect(unmet.size).toBe(0);
  });

  it('releases a 30,000-task fan-out in one merge', () => {
    const index = new DependencyIndex(fanOut(30_000));
    const unmet = index.initialUnmetCounts();
    expect(index.onMerged('t0', unmet)).toHaveLength(29_999);
    expect(index.transitiveDependents('t0')).toHaveLength(29_999);
  });
});
