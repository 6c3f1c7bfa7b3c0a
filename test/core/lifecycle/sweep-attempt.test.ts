import { describe, expect, it } from 'vitest';
import {
  decideSweepAttempt,
  sweepAttemptRead,
  type SweepAttemptEffect,
  type SweepAttemptSnapshot,
} from '../../../src/core/lifecycle/index.js';

const GRACE = 60_000;
const NOW = 10_000_000;
const MINUTE = 60_000;
const RUN_ID = 4242;

interface Run {
  id: number;
  status: string;
  conclusion: string | null;
}
const queued: Run = { id: RUN_ID, status: 'queued', conclusion: null };
const inProgress: Run = { id: RUN_ID, status: 'in_progress', conclusion: null };
const succeeded: Run = { id: RUN_ID, status: 'completed', conclusion: 'success' };

type Over = Partial<Omit<SweepAttemptSnapshot<Run>, 'run' | 'task' | 'attempt'>> & {
  run?: Partial<SweepAttemptSnapshot<Run>['run']>;
  task?: Partial<SweepAttemptSnapshot<Run>['task']>;
  attempt?: Partial<SweepAttemptSnapshot<Run>['attempt']>;
};

/** A worker attempt of a running run, dispatched `ago` ms before NOW. */
const snap = (ago: number, over: Over = {}): SweepAttemptSnapshot<Run> => ({
  workerTimeoutMinutes: 30,
  ...over,
  run: { state: 'running', finished: false, ...over.run },
  task: { state: 'running', planner: false, timeoutMinutes: null, ...over.task },
  attempt: { phase: 'dispatched', workflowRunId: RUN_ID, startedAt: NOW - ago, ...over.attempt },
});
/** An attempt whose dispatch recorded no run id (GitHub answered 204 without one). */
const noRun = (ago: number, over: Over = {}) =>
  snap(ago, { ...over, attempt: { phase: 'intent', workflowRunId: null, ...over.attempt } });
const planner = { task: { planner: true } };

const cancel: SweepAttemptEffect<Run> = { kind: 'cancelRun', workflowRunId: RUN_ID };

/** docs/running.md "The sweep": an open attempt, as the sweep finds it at NOW. */
describe('decideSweepAttempt', () => {
  it.each<{
    name: string;
    snapshot: SweepAttemptSnapshot<Run>;
    expected: SweepAttemptEffect<Run>[];
  }>([
    // A dispatch with no run id yet.
    {
      name: 'no run yet, within the grace period: not yet',
      snapshot: noRun(GRACE - 1),
      expected: [{ kind: 'none', reason: 'dispatched 59 s ago, within the 60 s grace period' }],
    },
    {
      name: 'no run yet, the grace period over: GitHub is asked for the run by its name',
      snapshot: noRun(GRACE),
      expected: [{ kind: 'read', fact: 'dispatchedRun' }],
    },
    {
      name: 'found: adopted as its webhook would be',
      snapshot: noRun(GRACE, { workflowRun: queued }),
      expected: [{ kind: 'adopt', run: queued }],
    },
    {
      name: 'found finished: adopted too (its completion is the webhook’s decision)',
      snapshot: noRun(5 * MINUTE, { workflowRun: succeeded }),
      expected: [{ kind: 'adopt', run: succeeded }],
    },
    {
      name: 'none found, the run unfinished: the public URL is read before dispatching again',
      snapshot: noRun(GRACE, { workflowRun: null }),
      expected: [{ kind: 'read', fact: 'coordinatorUrl' }],
    },
    {
      name: 'none found, the public URL known: dispatched again',
      snapshot: noRun(GRACE, { workflowRun: null, canDispatch: true }),
      expected: [{ kind: 'redispatch' }],
    },
    {
      name: 'none found, the public URL unknown: nothing is dispatched',
      snapshot: noRun(GRACE, { workflowRun: null, canDispatch: false }),
      expected: [
        {
          kind: 'none',
          reason: 'no workflow run, and no dispatch goes out while the public URL is unknown',
        },
      ],
    },
    {
      name: 'none found, the run finished: nothing',
      snapshot: noRun(GRACE, { workflowRun: null, run: { state: 'failed', finished: true } }),
      expected: [{ kind: 'none', reason: 'no workflow run, and the run is finished' }],
    },
    {
      name: 'a planner never dispatched, the run still planning: dispatched again',
      snapshot: noRun(GRACE, {
        ...planner,
        run: { state: 'planning' },
        workflowRun: null,
        canDispatch: true,
      }),
      expected: [{ kind: 'redispatch' }],
    },
    {
      name: 'a planner never dispatched, the run planned meanwhile: completed not_dispatched',
      snapshot: noRun(GRACE, { ...planner, run: { state: 'running' }, workflowRun: null }),
      expected: [{ kind: 'completePlanner', conclusion: 'not_dispatched' }],
    },
    {
      name: 'a planner never dispatched, the run finished: completed not_dispatched',
      snapshot: noRun(GRACE, {
        ...planner,
        run: { state: 'failed', finished: true },
        workflowRun: null,
      }),
      expected: [{ kind: 'completePlanner', conclusion: 'not_dispatched' }],
    },
    {
      name: 'a planner found by its name: adopted',
      snapshot: noRun(GRACE, { ...planner, run: { state: 'planning' }, workflowRun: inProgress }),
      expected: [{ kind: 'adopt', run: inProgress }],
    },
    {
      name: 'no run id and past the timeout: looked up, not timed out (it has no run to cancel)',
      snapshot: noRun(31 * MINUTE),
      expected: [{ kind: 'read', fact: 'dispatchedRun' }],
    },

    // A tracked run.
    {
      name: 'a tracked run within its timeout: read',
      snapshot: snap(30 * MINUTE),
      expected: [{ kind: 'read', fact: 'trackedRun', workflowRunId: RUN_ID }],
    },
    {
      name: 'a tracked run within the grace period is read too',
      snapshot: snap(0),
      expected: [{ kind: 'read', fact: 'trackedRun', workflowRunId: RUN_ID }],
    },
    {
      name: 'started, unseen: reconciled (marked running)',
      snapshot: snap(MINUTE, { workflowRun: inProgress }),
      expected: [{ kind: 'reconcile', run: inProgress }],
    },
    {
      name: 'ended unseen: reconciled',
      snapshot: snap(MINUTE, { attempt: { phase: 'running' }, workflowRun: succeeded }),
      expected: [{ kind: 'reconcile', run: succeeded }],
    },
    {
      name: 'unchanged: nothing, with the webhook’s reason',
      snapshot: snap(MINUTE, { attempt: { phase: 'running' }, workflowRun: inProgress }),
      expected: [{ kind: 'none', reason: 'attempt already running' }],
    },
    {
      name: 'a planner’s run ended unseen: reconciled',
      snapshot: snap(MINUTE, { ...planner, workflowRun: succeeded }),
      expected: [{ kind: 'reconcile', run: succeeded }],
    },
    {
      name: 'GitHub has no run of that id: nothing',
      snapshot: snap(MINUTE, { workflowRun: null }),
      expected: [{ kind: 'none', reason: 'GitHub has no workflow run of this id' }],
    },
    {
      name: 'past the repository’s worker timeout: cancelled, timed out, retried or failed',
      snapshot: snap(30 * MINUTE + 1),
      expected: [
        cancel,
        {
          kind: 'timeOutWorker',
          timeoutMs: 30 * MINUTE,
          why: 'the worker run passed its 30-minute timeout',
        },
      ],
    },
    {
      name: 'the task’s own timeout wins over the repository’s',
      snapshot: snap(10 * MINUTE + 1, { task: { timeoutMinutes: 10 } }),
      expected: [
        cancel,
        {
          kind: 'timeOutWorker',
          timeoutMs: 10 * MINUTE,
          why: 'the worker run passed its 10-minute timeout',
        },
      ],
    },
    {
      name: 'within the task’s longer timeout: read',
      snapshot: snap(40 * MINUTE, { task: { timeoutMinutes: 45 } }),
      expected: [{ kind: 'read', fact: 'trackedRun', workflowRunId: RUN_ID }],
    },
    {
      name: 'a planner past its timeout: cancelled and timed out, never retried',
      snapshot: snap(30 * MINUTE + 1, planner),
      expected: [cancel, { kind: 'timeOutPlanner', timeoutMs: 30 * MINUTE }],
    },
    {
      name: 'past the timeout, the run read already: the timeout still decides',
      snapshot: snap(30 * MINUTE + 1, { workflowRun: inProgress }),
      expected: [
        cancel,
        {
          kind: 'timeOutWorker',
          timeoutMs: 30 * MINUTE,
          why: 'the worker run passed its 30-minute timeout',
        },
      ],
    },

    // A cancel whose call to GitHub failed left the attempt open.
    {
      name: 'the run cancelled: its run is cancelled and the attempt ends, at once',
      snapshot: snap(0, { run: { state: 'cancelled', finished: true } }),
      expected: [{ kind: 'cancelAttempt', why: 'the run was cancelled' }],
    },
    {
      name: 'the task cancelled: the same, within the grace period',
      snapshot: snap(0, { task: { state: 'cancelled' }, attempt: { phase: 'running' } }),
      expected: [{ kind: 'cancelAttempt', why: 'the task was cancelled' }],
    },
    {
      name: 'the task cancelled, past its timeout: cancelled, not timed out',
      snapshot: snap(31 * MINUTE, { task: { state: 'cancelled' } }),
      expected: [{ kind: 'cancelAttempt', why: 'the task was cancelled' }],
    },
    {
      name: 'the run cancelled, no run id yet: the attempt ends, as the cancel ends it',
      snapshot: noRun(0, { ...planner, run: { state: 'cancelled', finished: true } }),
      expected: [{ kind: 'cancelAttempt', why: 'the run was cancelled' }],
    },
  ])('$name', ({ snapshot, expected }) => {
    expect(decideSweepAttempt(snapshot, NOW, GRACE)).toEqual(expected);
  });

  it('names the read it asks for, and none once decided', () => {
    expect(sweepAttemptRead(decideSweepAttempt(noRun(GRACE), NOW, GRACE))).toEqual({
      kind: 'read',
      fact: 'dispatchedRun',
    });
    expect(sweepAttemptRead(decideSweepAttempt(snap(0), NOW, GRACE))).toEqual({
      kind: 'read',
      fact: 'trackedRun',
      workflowRunId: RUN_ID,
    });
    expect(sweepAttemptRead(decideSweepAttempt(noRun(0), NOW, GRACE))).toBeUndefined();
    expect(
      sweepAttemptRead(decideSweepAttempt(snap(0, { workflowRun: inProgress }), NOW, GRACE)),
    ).toBeUndefined();
  });
});
