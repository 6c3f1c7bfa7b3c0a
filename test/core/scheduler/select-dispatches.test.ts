import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareCandidates,
  selectDispatches,
  type Candidate,
  type WaitReason,
} from '../../../src/core/scheduler/index.js';
import { candidate, key, schedulerInput } from './builders.js';

const ids = (cs: readonly Candidate[]): string[] => cs.map((c) => c.taskId);

describe('selectDispatches', () => {
  it.each([
    {
      name: 'higher priority first',
      candidates: [
        candidate({ taskId: 'p1', priority: 1, order: 0 }),
        candidate({ taskId: 'p5', priority: 5, order: 9 }),
        candidate({ taskId: 'p3', priority: 3, order: 5 }),
      ],
      dispatched: ['p5', 'p3', 'p1'],
    },
    {
      name: 'oldest first within a priority',
      candidates: [
        candidate({ taskId: 'new', order: 30 }),
        candidate({ taskId: 'old', order: 10 }),
        candidate({ taskId: 'mid', order: 20 }),
      ],
      dispatched: ['old', 'mid', 'new'],
    },
    {
      name: 'older runs before newer runs at the same priority',
      candidates: [
        candidate({ runId: 'r2', taskId: 'task_001', order: 2_000_000 }),
        candidate({ runId: 'r1', taskId: 'task_002', order: 1_000_001 }),
      ],
      dispatched: ['task_002', 'task_001'],
    },
  ])('orders: $name', ({ candidates, dispatched }) => {
    const decision = selectDispatches(schedulerInput({ candidates }));
    expect(ids(decision.dispatch)).toEqual(dispatched);
    expect(decision.waiting).toEqual([]);
  });

  const five = Array.from({ length: 5 }, (_, i) => candidate({ taskId: `t${i}`, order: i }));

  it.each<{
    name: string;
    repoInflight: number;
    repoLimit: number;
    globalInflight: number;
    globalLimit: number;
    installation?: { room: number; running: number; ceiling: number };
    dispatched: number;
    reason?: WaitReason;
  }>([
    {
      name: 'repository headroom binds',
      repoInflight: 8,
      repoLimit: 10,
      globalInflight: 0,
      globalLimit: Infinity,
      dispatched: 2,
      reason: { kind: 'concurrency', scope: 'repository', limit: 10, inflight: 10 },
    },
    {
      name: 'global headroom binds',
      repoInflight: 0,
      repoLimit: 10,
      globalInflight: 19,
      globalLimit: 20,
      dispatched: 1,
      reason: { kind: 'concurrency', scope: 'global', limit: 20, inflight: 20 },
    },
    {
      name: 'equal headroom names the repository',
      repoInflight: 7,
      repoLimit: 10,
      globalInflight: 17,
      globalLimit: 20,
      dispatched: 3,
      reason: { kind: 'concurrency', scope: 'repository', limit: 10, inflight: 10 },
    },
    {
      name: 'a limit lowered below what runs dispatches nothing',
      repoInflight: 12,
      repoLimit: 10,
      globalInflight: 0,
      globalLimit: Infinity,
      dispatched: 0,
      reason: { kind: 'concurrency', scope: 'repository', limit: 10, inflight: 12 },
    },
    {
      name: 'the installation’s share binds while other installations wait (fair-share.ts)',
      repoInflight: 0,
      repoLimit: 10,
      globalInflight: 16,
      globalLimit: 20,
      installation: { room: 1, running: 5, ceiling: 6 },
      dispatched: 1,
      reason: { kind: 'concurrency', scope: 'installation', limit: 6, inflight: 6 },
    },
    {
      name: 'a full cap is the cap’s wait, whatever the installation’s share',
      repoInflight: 0,
      repoLimit: 10,
      globalInflight: 20,
      globalLimit: 20,
      installation: { room: 0, running: 5, ceiling: 5 },
      dispatched: 0,
      reason: { kind: 'concurrency', scope: 'global', limit: 20, inflight: 20 },
    },
    {
      name: 'the repository’s limit still binds below the installation’s share',
      repoInflight: 8,
      repoLimit: 10,
      globalInflight: 8,
      globalLimit: 20,
      installation: { room: 4, running: 8, ceiling: 12 },
      dispatched: 2,
      reason: { kind: 'concurrency', scope: 'repository', limit: 10, inflight: 10 },
    },
    {
      name: 'enough room for all',
      repoInflight: 0,
      repoLimit: 10,
      globalInflight: 0,
      globalLimit: Infinity,
      dispatched: 5,
    },
  ])('limits: $name', ({ dispatched, reason, ...limits }) => {
    const decision = selectDispatches(schedulerInput({ candidates: five, ...limits }));
    expect(ids(decision.dispatch)).toEqual(ids(five.slice(0, dispatched)));
    expect(decision.waiting).toEqual(five.slice(dispatched).map((c) => ({ candidate: c, reason })));
  });

  it.each<{ name: string; overrides: Parameters<typeof schedulerInput>[0]; reason: WaitReason }>([
    { name: 'held run', overrides: { heldRuns: new Set(['run1']) }, reason: { kind: 'held' } },
    {
      name: 'budget reached',
      overrides: { budgetExhaustedRuns: new Set(['run1']) },
      reason: { kind: 'budget' },
    },
    {
      name: 'held wins over budget',
      overrides: { heldRuns: new Set(['run1']), budgetExhaustedRuns: new Set(['run1']) },
      reason: { kind: 'held' },
    },
  ])('waits without a slot: $name', ({ overrides, reason }) => {
    const other = candidate({ runId: 'run2', taskId: 'other', order: 99 });
    const decision = selectDispatches(
      schedulerInput({ ...overrides, repoLimit: 1, candidates: [candidate(), other] }),
    );
    expect(decision.dispatch).toEqual([other]);
    expect(decision.waiting).toEqual([{ candidate: candidate(), reason }]);
  });

  it('holds back tasks in backoff until their time, then dispatches them', () => {
    const later = candidate({ backoffUntil: 1_000_500 });
    const waiting = selectDispatches(schedulerInput({ now: 1_000_000, candidates: [later] }));
    expect(waiting.waiting).toEqual([
      { candidate: later, reason: { kind: 'backoff', until: 1_000_500 } },
    ]);
    const due = selectDispatches(schedulerInput({ now: 1_000_500, candidates: [later] }));
    expect(due.dispatch).toEqual([later]);
  });

  it('does not let a backed-off task take a slot from the next one', () => {
    const decision = selectDispatches(
      schedulerInput({
        repoLimit: 1,
        candidates: [
          candidate({ taskId: 'first', priority: 5, backoffUntil: 2_000_000 }),
          candidate({ taskId: 'second', priority: 1 }),
        ],
      }),
    );
    expect(ids(decision.dispatch)).toEqual(['second']);
  });

  it('accounts for every candidate exactly once, within headroom, in order', () => {
    const arbCandidate = fc.record({
      runId: fc.constantFrom('r1', 'r2', 'r3'),
      taskId: fc.integer({ min: 0, max: 40 }).map((n) => `t${n}`),
      priority: fc.integer({ min: 1, max: 5 }),
      order: fc.integer({ min: 0, max: 100 }),
      backoffUntil: fc.option(fc.integer({ min: 0, max: 200 }), { nil: undefined }),
    });
    const arbInput = fc.record({
      now: fc.integer({ min: 0, max: 200 }),
      candidates: fc.uniqueArray(arbCandidate, { selector: (c) => `${c.runId}:${c.taskId}` }),
      repoInflight: fc.integer({ min: 0, max: 12 }),
      repoLimit: fc.integer({ min: 0, max: 10 }),
      globalInflight: fc.integer({ min: 0, max: 30 }),
      globalLimit: fc.oneof(fc.integer({ min: 0, max: 30 }), fc.constant(Infinity)),
      heldRuns: fc.subarray(['r1', 'r2', 'r3']).map((a) => new Set(a)),
      budgetExhaustedRuns: fc.subarray(['r1', 'r2', 'r3']).map((a) => new Set(a)),
    });
    fc.assert(
      fc.property(arbInput, (input) => {
        const { dispatch, waiting } = selectDispatches(input);
        const seen = [...dispatch, ...waiting.map((w) => w.candidate)].map(key).sort();
        expect(seen).toEqual(input.candidates.map(key).sort());

        const headroom = Math.max(
          0,
          Math.min(input.repoLimit - input.repoInflight, input.globalLimit - input.globalInflight),
        );
        expect(dispatch.length).toBeLessThanOrEqual(headroom);
        expect([...dispatch].sort(compareCandidates)).toEqual(dispatch);

        for (const c of dispatch) {
          expect(input.heldRuns.has(c.runId) || input.budgetExhaustedRuns.has(c.runId)).toBe(false);
          expect(c.backoffUntil === undefined || c.backoffUntil <= input.now).toBe(true);
        }
        // A concurrency wait means the slots really were all used.
        if (waiting.some((w) => w.reason.kind === 'concurrency')) {
          expect(dispatch.length).toBe(headroom);
        }
      }),
    );
  });
});
