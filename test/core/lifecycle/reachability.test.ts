import { describe, expect, it } from 'vitest';
import {
  decideUnreachableRun,
  unreachableBecause,
  type UnreachableRunEffect,
  type UnreachableRunSnapshot,
} from '../../../src/core/lifecycle/index.js';
import { RUN_STATES } from '../../../src/core/states.js';

const at = new Date(0);

describe('unreachableBecause', () => {
  it.each([
    { removedAt: null, suspendedAt: null, why: null },
    { removedAt: at, suspendedAt: null, why: 'removed' },
    { removedAt: null, suspendedAt: at, why: 'suspended' },
    { removedAt: at, suspendedAt: at, why: 'removed' },
  ])('removed $removedAt, suspended $suspendedAt: $why', ({ why, ...access }) => {
    expect(unreachableBecause(access)).toBe(why);
  });
});

const snapshot = (
  state: UnreachableRunSnapshot['run']['state'],
  more: Partial<UnreachableRunSnapshot> & { finished?: boolean } = {},
): UnreachableRunSnapshot => ({
  run: { state, finished: more.finished ?? false },
  tasks: more.tasks ?? [],
  openAttempts: more.openAttempts ?? [],
});
const kinds = (effects: UnreachableRunEffect[]) => effects.map((e) => e.kind);

/** docs/running.md, "Removing the App": a run of a repository the App can no longer reach. */
describe('decideUnreachableRun', () => {
  it('ends a running run: its live tasks cancelled, its attempts out completed, with the reason', () => {
    const effects = decideUnreachableRun(
      snapshot('running', {
        tasks: [
          { key: 'a', state: 'running' },
          { key: 'b', state: 'pending' },
          { key: 'c', state: 'merged' },
          { key: 'd', state: 'approved' },
        ],
        openAttempts: [{ id: 11, planner: false }],
      }),
      'removed',
    );
    expect(effects).toEqual([
      {
        kind: 'endRun',
        move: 'repository unreachable',
        reason: 'the App was removed from this repository',
      },
      { kind: 'cancelTask', task: 'a' },
      { kind: 'cancelTask', task: 'b' },
      { kind: 'cancelTask', task: 'd' },
      { kind: 'completeAttempt', attempt: 11, planner: false, failureReason: 'repository_removed' },
    ]);
  });

  it('says a suspension is why, and completes the planner’s attempt of a planning run', () => {
    expect(
      decideUnreachableRun(
        snapshot('planning', { openAttempts: [{ id: 5, planner: true }] }),
        'suspended',
      ),
    ).toEqual([
      {
        kind: 'endRun',
        move: 'repository unreachable',
        reason: "the App's installation was suspended",
      },
      {
        kind: 'completeAttempt',
        attempt: 5,
        planner: true,
        failureReason: 'installation_suspended',
      },
    ]);
  });

  it.each(RUN_STATES.filter((s) => s !== 'done' && s !== 'failed' && s !== 'cancelled'))(
    'ends an active run in %s',
    (state) => {
      expect(kinds(decideUnreachableRun(snapshot(state), 'removed'))).toEqual(['endRun']);
    },
  );

  it('leaves a run whose tasks all merged to close out when the App is back', () => {
    expect(
      kinds(
        decideUnreachableRun(
          snapshot('done', { tasks: [{ key: 'a', state: 'merged' }] }),
          'removed',
        ),
      ),
    ).toEqual(['none']);
  });

  it('finishes what a cancel cut short left of a finished run, and ends it no second time', () => {
    const cut = snapshot('cancelled', {
      finished: true,
      tasks: [{ key: 'a', state: 'dispatched' }],
      openAttempts: [{ id: 3, planner: false }],
    });
    expect(kinds(decideUnreachableRun(cut, 'removed'))).toEqual(['cancelTask', 'completeAttempt']);
    expect(
      kinds(decideUnreachableRun(snapshot('cancelled', { finished: true }), 'removed')),
    ).toEqual(['none']);
  });
});
