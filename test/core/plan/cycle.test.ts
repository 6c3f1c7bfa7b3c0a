import { describe, expect, it } from 'vitest';
import { findCycle, parsePlanYaml, topologicalOrder } from '../../../src/core/plan/index.js';

type Edges = Record<string, string[]>;

const graph = (edges: Edges) => Object.entries(edges).map(([id, deps]) => ({ id, deps }));

describe('findCycle', () => {
  it.each<{ name: string; edges: Edges; cycle: string[] | null }>([
    { name: 'no tasks', edges: {}, cycle: null },
    { name: 'a chain', edges: { a: ['b'], b: ['c'], c: [] }, cycle: null },
    { name: 'a diamond', edges: { a: ['b', 'c'], b: ['d'], c: ['d'], d: [] }, cycle: null },
    { name: 'a self dep', edges: { a: ['a'] }, cycle: ['a', 'a'] },
    {
      name: 'a two-cycle',
      edges: { task_a: ['task_b'], task_b: ['task_a'] },
      cycle: ['task_a', 'task_b', 'task_a'],
    },
    { name: 'a three-cycle', edges: { a: ['b'], b: ['c'], c: ['a'] }, cycle: ['a', 'b', 'c', 'a'] },
    {
      name: 'starts at the first task on a cycle, not the first that reaches one',
      edges: { x: ['b'], a: ['y'], y: [], b: ['c'], c: ['b'] },
      cycle: ['b', 'c', 'b'],
    },
    {
      name: 'the shortest cycle through the start',
      edges: { a: ['b', 'd'], b: ['c'], c: ['a'], d: ['a'] },
      cycle: ['a', 'd', 'a'],
    },
    {
      name: 'a node between two cycles is not on a cycle',
      edges: { m: ['p'], n: ['m'], p: ['q'], q: ['p'], r: ['n'], s: ['r', 'n'], n2: ['n'] },
      cycle: ['p', 'q', 'p'],
    },
    { name: 'unknown deps are ignored', edges: { a: ['ghost'], b: ['a'] }, cycle: null },
  ])('$name', ({ edges, cycle }) => {
    expect(findCycle(graph(edges))).toEqual(cycle);
  });

  it('handles a 20,000-task chain closed into a cycle without recursion', () => {
    const n = 20_000;
    const tasks = Array.from({ length: n }, (_, i) => ({ id: `t${i}`, deps: [`t${(i + 1) % n}`] }));
    const cycle = findCycle(tasks);
    expect(cycle).toHaveLength(n + 1);
    expect(cycle?.slice(0, 3)).toEqual(['t0', 't1', 't2']);
    expect(cycle?.at(-1)).toBe('t0');
  });
});

describe('topologicalOrder', () => {
  it.each<{ name: string; edges: Edges; order: string[] }>([
    { name: 'already ordered', edges: { a: [], b: ['a'], c: ['b'] }, order: ['a', 'b', 'c'] },
    { name: 'reversed', edges: { c: ['b'], b: ['a'], a: [] }, order: ['a', 'b', 'c'] },
    { name: 'ties keep plan order', edges: { z: [], y: [], x: ['z'] }, order: ['z', 'y', 'x'] },
    { name: 'cycle members left out', edges: { a: [], b: ['c'], c: ['b'] }, order: ['a'] },
  ])('$name', ({ edges, order }) => {
    expect(topologicalOrder(graph(edges))).toEqual(order);
  });
});

describe('large plans', () => {
  const chain = (n: number, closeAt?: number) =>
    Array.from({ length: n }, (_, i) => {
      const deps = i > 0 ? [`t${i - 1}`] : closeAt !== undefined ? [`t${closeAt}`] : [];
      return `- id: t${i}\n  title: Task ${i}\n  deps: [${deps.join(', ')}]\n`;
    }).join('');

  it('validates a 20,000-task chain without throwing', () => {
    const result = parsePlanYaml(chain(20_000), { maxTasks: 20_000 });
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.plan.order).toHaveLength(20_000);
      expect(result.plan.order[19_999]).toBe('t19999');
    }
  });

  it('reports a cycle near the end of a 5,000-task plan', () => {
    const yaml =
      chain(4_990) +
      '- id: x1\n  title: X1\n  deps: [t4989, x2]\n- id: x2\n  title: X2\n  deps: [x1]\n';
    const result = parsePlanYaml(yaml, { maxTasks: 5_000 });
    expect(!result.ok && result.errors.map((e) => [e.code, e.message])).toEqual([
      ['cycle', 'the deps form a cycle: `x1 -> x2 -> x1`'],
    ]);
  });

  it('bounds the message of a very long cycle', () => {
    const result = parsePlanYaml(chain(3_000, 2_999), { maxTasks: 5_000 });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors[0]!.code).toBe('cycle');
      expect(result.errors[0]!.message.length).toBeLessThan(1_100);
      expect(result.errors[0]!.cycle).toHaveLength(3_001);
    }
  });
});
