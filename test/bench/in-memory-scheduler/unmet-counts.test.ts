// The benchmark's in-memory baseline (bench/in-memory-scheduler/): bench/scheduling.ts times it
// against the seed's scan, so its answers must be right for the comparison to mean anything.
import { describe, expect, it } from 'vitest';
import { initialUnmetCounts, onMerged } from '../../../bench/in-memory-scheduler/unmet-counts.js';
import { DependencyIndex } from '../../../src/core/scheduler/index.js';
import { chain, fanOut, SPEC_TASKS } from '../../core/scheduler/builders.js';

describe('unmet-dep counts of the in-memory baseline', () => {
  it('counts unmet deps against a merged set', () => {
    const graph = new DependencyIndex(SPEC_TASKS);
    expect(Object.fromEntries(initialUnmetCounts(graph, new Set(['task_001'])))).toEqual({
      task_002: 0,
      task_003: 0,
      task_004: 2,
    });
    expect(initialUnmetCounts(graph, new Set(['task_002'])).get('task_004')).toBe(1);
  });

  it('makes task_001 ready first, then task_002 and task_003 together, then task_004', () => {
    const graph = new DependencyIndex(SPEC_TASKS);
    const unmet = initialUnmetCounts(graph);
    const ready = [...unmet].filter(([, n]) => n === 0).map(([id]) => id);
    expect(ready).toEqual(['task_001']);
    expect(onMerged(graph, 'task_001', unmet)).toEqual(['task_002', 'task_003']);
    expect(onMerged(graph, 'task_002', unmet)).toEqual([]);
    expect(onMerged(graph, 'task_003', unmet)).toEqual(['task_004']);
    expect(onMerged(graph, 'task_004', unmet)).toEqual([]);
    expect(unmet.size).toBe(0);
  });

  it('counts a repeated dep once', () => {
    const graph = new DependencyIndex([
      { id: 'a', deps: [] },
      { id: 'b', deps: ['a', 'a'] },
    ]);
    const unmet = initialUnmetCounts(graph);
    expect(unmet.get('b')).toBe(1);
    expect(onMerged(graph, 'a', unmet)).toEqual(['b']);
  });

  it('never makes a task with an unknown dep ready', () => {
    const graph = new DependencyIndex([{ id: 'a', deps: ['ghost'] }]);
    expect(initialUnmetCounts(graph).get('a')).toBe(1);
  });

  it('releases a 30,000-task chain one merge at a time', () => {
    const graph = new DependencyIndex(chain(30_000));
    const unmet = initialUnmetCounts(graph);
    let ready = ['t0'];
    let merged = 0;
    while (ready.length > 0) {
      const next: string[] = [];
      for (const id of ready) {
        merged++;
        next.push(...onMerged(graph, id, unmet));
      }
      ready = next;
    }
    expect(merged).toBe(30_000);
    expect(unmet.size).toBe(0);
  });

  it('releases a 30,000-task fan-out in one merge', () => {
    const graph = new DependencyIndex(fanOut(30_000));
    expect(onMerged(graph, 't0', initialUnmetCounts(graph))).toHaveLength(29_999);
  });
});
