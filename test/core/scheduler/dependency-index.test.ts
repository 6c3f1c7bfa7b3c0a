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
    expect([...index.ids()]).toEqual(['task_001', 'task_002', 'task_003', 'task_004']);
    expect([index.has('task_004'), index.has('nope')]).toEqual([true, false]);
  });

  it('lists a repeated dep once', () => {
    const index = new DependencyIndex([
      { id: 'a', deps: [] },
      { id: 'b', deps: ['a', 'a'] },
    ]);
    expect(index.depsOf('b')).toEqual(['a']);
    expect(index.dependentsOf('a')).toEqual(['b']);
  });

  it.each([
    { from: 'a', expected: ['b', 'c', 'd'] },
    { from: 'b', expected: ['d'] },
    { from: 'c', expected: ['d'] },
    { from: 'd', expected: [] },
  ])('lists transitive dependents of $from in a diamond once each', ({ from, expected }) => {
    expect(new DependencyIndex(DIAMOND).transitiveDependents(from)).toEqual(expected);
  });

  it('walks a 30,000-task chain without recursion, nearest first', () => {
    const downstream = new DependencyIndex(chain(30_000)).transitiveDependents('t0');
    expect(downstream).toHaveLength(29_999);
    expect(downstream.slice(0, 2)).toEqual(['t1', 't2']);
  });

  it('lists a 30,000-task fan-out', () => {
    expect(new DependencyIndex(fanOut(30_000)).transitiveDependents('t0')).toHaveLength(29_999);
  });
});
