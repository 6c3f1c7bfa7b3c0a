import { describe, expect, it } from 'vitest';
import {
  dependentsToBlock,
  dependentsToUnblock,
  type TaskGraph,
} from '../../../src/core/lifecycle/index.js';
import type { TaskState } from '../../../src/core/states.js';

// a → b → c, d → c, e on its own; c → f.
const DEPS = new Map<string, string[]>([
  ['a', []],
  ['b', ['a']],
  ['c', ['b', 'd']],
  ['d', []],
  ['e', []],
  ['f', ['c']],
]);

function graph(states: Record<string, TaskState>): TaskGraph {
  const all: Record<string, TaskState> = {
    a: 'pending',
    b: 'pending',
    c: 'pending',
    d: 'pending',
    e: 'pending',
    f: 'pending',
    ...states,
  };
  return { tasks: Object.entries(all).map(([taskKey, state]) => ({ taskKey, state })), deps: DEPS };
}

describe('dependentsToBlock', () => {
  it.each<{ name: string; key: string; states: Record<string, TaskState>; expected: string[] }>([
    {
      name: 'every pending task downstream',
      key: 'a',
      states: { a: 'failed' },
      expected: ['b', 'c', 'f'],
    },
    { name: 'through a second dep', key: 'd', states: { d: 'vetoed' }, expected: ['c', 'f'] },
    {
      name: 'not what is already running or in review',
      key: 'a',
      states: { a: 'failed', b: 'running', c: 'in_review' },
      expected: ['f'],
    },
    {
      name: 'not what is already blocked',
      key: 'a',
      states: { a: 'failed', b: 'blocked' },
      expected: ['c', 'f'],
    },
    { name: 'nothing downstream', key: 'e', states: { e: 'cancelled' }, expected: [] },
    { name: 'a key the run does not have', key: 'zz', states: {}, expected: [] },
  ])('$name', ({ key, states, expected }) => {
    expect(dependentsToBlock(graph(states), key)).toEqual(expected);
  });
});

describe('dependentsToUnblock', () => {
  it.each<{ name: string; key: string; states: Record<string, TaskState>; expected: string[] }>([
    {
      name: 'every blocked task downstream',
      key: 'a',
      states: { a: 'failed', b: 'blocked', c: 'blocked', f: 'blocked' },
      expected: ['b', 'c', 'f'],
    },
    {
      name: 'not one with another dead dep',
      key: 'a',
      states: { a: 'failed', b: 'blocked', c: 'blocked', d: 'vetoed', f: 'blocked' },
      expected: ['b', 'f'],
    },
    ...(['failed', 'vetoed', 'rejected', 'cancelled'] as const).map((dead) => ({
      name: `a ${dead} dep keeps it blocked`,
      key: 'b',
      states: { b: 'failed', c: 'blocked', d: dead } as Record<string, TaskState>,
      expected: [],
    })),
    {
      name: 'a dep that is blocked itself is freed by the same retry',
      key: 'a',
      states: { a: 'failed', b: 'blocked', c: 'blocked' },
      expected: ['b', 'c'],
    },
    {
      name: 'not what is pending already',
      key: 'a',
      states: { a: 'failed', b: 'pending', c: 'blocked' },
      expected: ['c'],
    },
    { name: 'nothing downstream', key: 'e', states: { e: 'failed' }, expected: [] },
  ])('$name', ({ key, states, expected }) => {
    expect(dependentsToUnblock(graph(states), key)).toEqual(expected);
  });
});
