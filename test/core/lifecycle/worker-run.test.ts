import { describe, expect, it } from 'vitest';
import {
  awaitsSpendOfItsRun,
  chargesRerun,
  decideWorkerRun,
} from '../../../src/core/lifecycle/index.js';

/** docs/lifecycle.md steps 5–6 and "Failures": a worker run's progress and its attempt. */
describe('decideWorkerRun', () => {
  const worker = (phase: string) => ({ phase, planner: false });
  const planner = (phase: string) => ({ phase, planner: true });
  const done = (conclusion: string | null) => ({ status: 'completed', conclusion });

  it.each([
    {
      name: 'a completed attempt hears nothing more',
      attempt: worker('completed'),
      run: done('success'),
      kind: 'ignore',
    },
    {
      name: "an attempt completed before its run ended, charged nothing: its run's end charges it",
      attempt: { ...worker('completed'), awaitsSpend: true },
      run: done('cancelled'),
      kind: 'charge_after_run',
    },
    {
      name: "a planner's attempt completed before its run ended: its run's end charges it",
      attempt: { ...planner('completed'), awaitsSpend: true },
      run: done('cancelled'),
      kind: 'charge_after_run',
    },
    {
      name: "a re-run of a completed attempt's run ended: it is charged",
      attempt: { ...worker('completed'), chargedRunAttempts: [2] },
      run: { ...done('failure'), runAttempt: 3 },
      kind: 'charge_rerun',
    },
    {
      name: 'a re-run charged already: its redelivered end changes nothing',
      attempt: { ...worker('completed'), chargedRunAttempts: [2, 3] },
      run: { ...done('failure'), runAttempt: 3 },
      kind: 'ignore',
    },
    {
      name: 'a re-run still going: nothing yet',
      attempt: { ...worker('completed'), chargedRunAttempts: [] },
      run: { status: 'in_progress', conclusion: null, runAttempt: 2 },
      kind: 'ignore',
    },
    {
      name: "a re-run of an attempt that awaits its first run attempt's spend: the re-run is charged",
      attempt: { ...worker('completed'), awaitsSpend: true, chargedRunAttempts: [] },
      run: { ...done('cancelled'), runAttempt: 2 },
      kind: 'charge_rerun',
    },
    {
      name: 'an attempt completed at its timeout hears its run still going: nothing yet',
      attempt: { ...worker('completed'), awaitsSpend: true },
      run: { status: 'in_progress', conclusion: null },
      kind: 'ignore',
    },
    {
      name: 'a run that started',
      attempt: worker('dispatched'),
      run: { status: 'in_progress', conclusion: null },
      kind: 'mark_running',
    },
    {
      name: 'a run queued before the dispatch was recorded',
      attempt: worker('intent'),
      run: { status: 'queued', conclusion: null },
      kind: 'mark_running',
    },
    {
      name: 'a running attempt hears in_progress again',
      attempt: worker('running'),
      run: { status: 'in_progress', conclusion: null },
      kind: 'ignore',
    },
    {
      name: 'success',
      attempt: worker('running'),
      run: done('success'),
      kind: 'complete_succeeded',
    },
    {
      name: 'success straight from dispatched (a late in_progress)',
      attempt: worker('dispatched'),
      run: done('success'),
      kind: 'complete_succeeded',
    },
    ...[
      'failure',
      'timed_out',
      'startup_failure',
      'cancelled',
      'action_required',
      'stale',
      'neutral',
      'skipped',
    ].map((conclusion) => ({
      name: `${conclusion} fails the attempt`,
      attempt: worker('running'),
      run: done(conclusion),
      kind: 'complete_failed',
    })),
    {
      name: 'no conclusion on a completed run fails it',
      attempt: worker('running'),
      run: done(null),
      kind: 'complete_failed',
    },
    {
      name: 'an unknown conclusion changes nothing',
      attempt: worker('running'),
      run: done('something_new'),
      kind: 'ignore',
    },
    {
      name: "the planner's run completes the planner",
      attempt: planner('running'),
      run: done('success'),
      kind: 'complete_planner',
    },
  ])('$name', ({ attempt, run, kind }) => {
    expect(decideWorkerRun(attempt, run).kind).toBe(kind);
  });

  it.each([
    ['success', 'merged'],
    ['cancelled', 'cancelled'],
    ['failure', 'failed'],
    ['timed_out', 'failed'],
    [null, 'failed'],
  ] as const)('the planner concluding %s moves its task to %s', (conclusion, move) => {
    expect(decideWorkerRun(planner('running'), done(conclusion))).toMatchObject({
      kind: 'complete_planner',
      move,
    });
  });

  it('a failure keeps its conclusion for the attempt', () => {
    expect(decideWorkerRun(worker('running'), done('timed_out'))).toEqual({
      kind: 'complete_failed',
      conclusion: 'timed_out',
    });
  });
});

/** Which completed attempt waits for its run's end to say what it spent. */
describe('awaitsSpendOfItsRun', () => {
  it.each([
    { phase: 'completed', conclusion: 'timed_out', costUsd: null, awaits: true },
    { phase: 'completed', conclusion: 'timed_out', costUsd: 0.4, awaits: false },
    { phase: 'completed', conclusion: 'cancelled', costUsd: null, awaits: true },
    { phase: 'completed', conclusion: 'cancelled', costUsd: 0, awaits: false },
    { phase: 'completed', conclusion: 'not_dispatched', costUsd: null, awaits: false },
    { phase: 'completed', conclusion: 'failure', costUsd: null, awaits: false },
    { phase: 'completed', conclusion: 'success', costUsd: null, awaits: false },
    { phase: 'running', conclusion: null, costUsd: null, awaits: false },
  ])('$phase $conclusion charged $costUsd: $awaits', ({ awaits, ...attempt }) => {
    expect(awaitsSpendOfItsRun(attempt)).toBe(awaits);
  });
});

/** Which re-run of a completed attempt's run is still to be charged. */
describe('chargesRerun', () => {
  it.each([
    { phase: 'completed', chargedRunAttempts: [], runAttempt: 2, charges: true },
    { phase: 'completed', chargedRunAttempts: [2], runAttempt: 3, charges: true },
    { phase: 'completed', chargedRunAttempts: [3], runAttempt: 2, charges: true },
    { phase: 'completed', chargedRunAttempts: [2], runAttempt: 2, charges: false },
    { phase: 'completed', chargedRunAttempts: [], runAttempt: 1, charges: false },
    { phase: 'running', chargedRunAttempts: [], runAttempt: 2, charges: false },
  ])(
    '$phase, charged $chargedRunAttempts, run attempt $runAttempt: $charges',
    ({ charges, runAttempt, ...attempt }) => {
      expect(chargesRerun(attempt, runAttempt)).toBe(charges);
    },
  );
});
