import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RUN_STATES, TASK_STATES, type RunState, type TaskState } from '../../src/core/states.js';
import {
  canMoveRun,
  canMoveTask,
  RUN_TRANSITIONS,
  runEventsBetween,
  runTransition,
  TASK_TRANSITIONS,
  taskEventsBetween,
  taskTransition,
  type RunEvent,
  type TaskEvent,
  type TaskMove,
} from '../../src/core/transitions.js';

/*
 * The expected machines, written out pair by pair: a change to the table that is not made here
 * too fails. A pair absent from its row is refused on purpose.
 */
const ENDS = {
  merged: ['merged'],
  failed: ['failed'],
  rejected: ['rejected'],
  vetoed: ['vetoed'],
  cancelled: ['cancelled'],
} as const satisfies Partial<Record<TaskState, TaskEvent[]>>;
const IN_REVIEW_ROW: Partial<Record<TaskState, TaskEvent[]>> = {
  approved: ['approved'],
  in_review: ['older head approved', 'approval withdrawn'],
  merging: ['merge claimed'],
  pending: ['sent back', 'attempt failed', 'retried'],
  blocked: ['stack cancelled'],
  ...ENDS,
};

const EXPECTED_TASK: Record<TaskState, Partial<Record<TaskState, TaskEvent[]>>> = {
  pending: {
    pending: ['retried'],
    dispatched: ['dispatched'],
    blocked: ['blocked', 'stack cancelled'],
    ...ENDS,
  },
  dispatched: {
    running: ['worker started'],
    in_review: ['attempt succeeded'],
    approved: ['attempt succeeded'],
    pending: ['attempt failed'],
    blocked: ['stack cancelled'],
    ...ENDS,
  },
  running: {
    in_review: ['attempt succeeded'],
    approved: ['attempt succeeded'],
    pending: ['attempt failed'],
    blocked: ['stack cancelled'],
    ...ENDS,
  },
  in_review: IN_REVIEW_ROW,
  approved: IN_REVIEW_ROW,
  merging: {
    in_review: ['merge released'],
    approved: ['merge released'],
    pending: ['sent back', 'attempt failed'],
    ...ENDS,
  },
  merged: {},
  failed: { pending: ['retried'] },
  vetoed: { pending: ['retried'] },
  rejected: { pending: ['retried'] },
  blocked: { pending: ['unblocked', 'retried'], merged: ['merged'] },
  cancelled: { pending: ['retried'] },
};

const RUN_ENDS = {
  plan_invalid: ['plan invalid'],
  done: ['all merged'],
  failed: ['failed'],
  cancelled: ['cancelled', 'repository unreachable'],
} as const satisfies Partial<Record<RunState, RunEvent[]>>;

const EXPECTED_RUN: Record<RunState, Partial<Record<RunState, RunEvent[]>>> = {
  planning: {
    awaiting_approval: ['plan stored'],
    held: ['plan stored'],
    running: ['plan stored'],
    plan_invalid: ['plan invalid'],
    cancelled: ['cancelled', 'repository unreachable'],
  },
  plan_invalid: {
    awaiting_approval: ['plan stored'],
    held: ['plan stored'],
    running: ['plan stored'],
    ...RUN_ENDS,
  },
  awaiting_approval: {
    awaiting_approval: ['plan stored'],
    held: ['plan stored', 'plan approved'],
    running: ['plan stored', 'plan approved'],
    ...RUN_ENDS,
  },
  running: {
    awaiting_approval: ['plan stored'],
    held: ['plan stored', 'held', 'budget reached'],
    running: ['plan stored'],
    ...RUN_ENDS,
  },
  held: {
    awaiting_approval: ['plan stored'],
    held: ['plan stored', 'held'],
    running: ['plan stored', 'unheld'],
    ...RUN_ENDS,
  },
  done: { done: ['closed out'] },
  failed: { running: ['reopened'] },
  cancelled: { running: ['reopened'] },
};

const pairs = <S extends string>(states: readonly S[]) =>
  states.flatMap((from) => states.map((to) => ({ from, to })));
const sorted = (events: readonly string[]) => [...events].sort();

describe('task transitions: every pair', () => {
  it.each(pairs(TASK_STATES))('$from → $to', ({ from, to }) => {
    expect(sorted(taskEventsBetween(from, to))).toEqual(sorted(EXPECTED_TASK[from][to] ?? []));
  });
});

describe('run transitions: every pair', () => {
  it.each(pairs(RUN_STATES))('$from → $to', ({ from, to }) => {
    expect(sorted(runEventsBetween(from, to))).toEqual(sorted(EXPECTED_RUN[from][to] ?? []));
  });
});

describe('moves', () => {
  it('guards a move by the sources of its event and its target', () => {
    expect(taskTransition('vetoed')).toEqual({
      event: 'vetoed',
      from: ['pending', 'dispatched', 'running', 'in_review', 'approved', 'merging'],
      to: 'vetoed',
    });
    expect(taskTransition({ event: 'merge released', to: 'in_review' })).toMatchObject({
      from: ['merging'],
      to: 'in_review',
    });
    expect(runTransition('reopened')).toEqual({
      event: 'reopened',
      from: ['failed', 'cancelled'],
      to: 'running',
    });
  });

  it('refuses a target its event does not lead to', () => {
    const wrong = { event: 'merge released', to: 'merged' } as unknown as TaskMove;
    expect(() => taskTransition(wrong)).toThrow('"merge released" does not lead to "merged"');
  });

  it('answers for a state the caller has read', () => {
    expect(canMoveTask('blocked', 'retried')).toBe(true);
    expect(canMoveTask('merged', 'retried')).toBe(false);
    expect(canMoveTask('running', 'approved')).toBe(false);
    expect(canMoveRun('done', 'cancelled')).toBe(false);
    expect(canMoveRun('awaiting_approval', { event: 'plan approved', to: 'held' })).toBe(true);
  });

  it('marks exactly the run events that finish or reopen a run', () => {
    const flagged = (flag: 'finishes' | 'reopens') =>
      Object.entries(RUN_TRANSITIONS)
        .filter(([, row]) => flag in row)
        .map(([event]) => event)
        .sort();
    expect(flagged('finishes')).toEqual([
      'cancelled',
      'closed out',
      'failed',
      'repository unreachable',
    ]);
    expect(flagged('reopens')).toEqual(['reopened']);
  });
});

/** The rows of a `| Event | Cause | From | To |` table under `heading` in docs/lifecycle.md. */
function documented(heading: string): Array<{ event: string; from: string[]; to: string[] }> {
  const doc = readFileSync(new URL('../../docs/lifecycle.md', import.meta.url), 'utf8');
  const section = doc.split(`### ${heading}\n`)[1]?.split(/\n#{2,3} /)[0] ?? '';
  const codes = (cell: string | undefined) =>
    [...(cell ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line.split('|').slice(1, -1);
      return { event: codes(cells[0])[0] ?? '', from: codes(cells[2]), to: codes(cells[3]) };
    });
}

describe('docs/lifecycle.md shows the same machines', () => {
  it.each([
    { heading: 'Task transitions', table: TASK_TRANSITIONS },
    { heading: 'Run transitions', table: RUN_TRANSITIONS },
  ])('$heading', ({ heading, table }) => {
    const rows = Object.entries(
      table as Record<string, { from: readonly string[]; to: readonly string[] }>,
    );
    expect(documented(heading)).toEqual(
      rows.map(([event, row]) => ({ event, from: [...row.from], to: [...row.to] })),
    );
  });
});
