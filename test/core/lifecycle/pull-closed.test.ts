import { describe, expect, it } from 'vitest';
import {
  closedRecordsMergeFirst,
  closeRefusalReason,
  decidePullClosed,
  readsCloserRole,
  type PullClosedEffect,
  type PullClosedEvent,
} from '../../../src/core/lifecycle/index.js';
import type { TaskState } from '../../../src/core/states.js';

const rejects: PullClosedEffect[] = [
  { kind: 'reject' },
  { kind: 'blockDependents' },
  { kind: 'advance' },
  { kind: 'requestStatus' },
  { kind: 'settle' },
];
const merges: PullClosedEffect[] = [{ kind: 'markMerged' }, { kind: 'advance' }];

/** docs/lifecycle.md: an agent PR closed, merged or not. */
describe('decidePullClosed', () => {
  it.each<{
    name: string;
    state: TaskState;
    event: Omit<PullClosedEvent, 'number' | 'baseRef'> & { baseRef?: string };
    expected: PullClosedEffect[];
  }>([
    ...(
      ['in_review', 'approved', 'merging', 'pending', 'running', 'blocked', 'merged'] as const
    ).map((state) => ({
      name: `merged while ${state}: the task is merged (or its merge finished)`,
      state,
      event: { merged: true, closedByBot: false },
      expected: merges,
    })),
    {
      name: 'merged by a bot (the merge queue) merges too',
      state: 'merging',
      event: { merged: true, closedByBot: true },
      expected: merges,
    },
    // docs/lifecycle.md "Which base counts": a person retargeted the PR and merged it there.
    ...(['in_review', 'approved', 'pending', 'running'] as const).map((state) => ({
      name: `merged into another branch while ${state}: rejected, dependents blocked`,
      state,
      event: { merged: true, closedByBot: false, baseRef: 'release' },
      expected: rejects,
    })),
    {
      name: 'merged into another branch by a bot: rejected too',
      state: 'in_review',
      event: { merged: true, closedByBot: true, baseRef: 'release' },
      expected: rejects,
    },
    {
      name: 'merged into another branch once the task ended: nothing to reject',
      state: 'vetoed',
      event: { merged: true, closedByBot: false, baseRef: 'release' },
      expected: [
        { kind: 'none', reason: 'merged into release, and the task is vetoed: nothing to reject' },
      ],
    },
    ...(['pending', 'dispatched', 'running', 'in_review', 'approved', 'merging'] as const).map(
      (state) => ({
        name: `closed unmerged by a writer while ${state}: rejected, dependents blocked`,
        state,
        event: { merged: false, closedByBot: false, closerRole: 'write' as const },
        expected: rejects,
      }),
    ),
    ...(['admin', 'maintain'] as const).map((closerRole) => ({
      name: `closed unmerged by ${closerRole}: rejected`,
      state: 'in_review' as const,
      event: { merged: false, closedByBot: false, closerRole },
      expected: rejects,
    })),
    ...(['triage', 'read', 'none', undefined] as const).map((closerRole) => ({
      name: `closed unmerged by a person whose role is ${closerRole ?? 'not read'}: reopened, nothing rejected`,
      state: 'in_review' as const,
      event: { merged: false, closedByBot: false, ...(closerRole ? { closerRole } : {}) },
      expected: [
        { kind: 'reopen' },
        { kind: 'refuse', role: closerRole ?? 'none' },
      ] as PullClosedEffect[],
    })),
    {
      name: 'closed unmerged by a bot changes nothing',
      state: 'in_review',
      event: { merged: false, closedByBot: true },
      expected: [
        {
          kind: 'none',
          reason: 'closed by a bot: the coordinator and workers never close agent PRs on purpose',
        },
      ],
    },
    ...(['merged', 'failed', 'vetoed', 'rejected', 'blocked', 'cancelled'] as const).map(
      (state) => ({
        name: `closed unmerged while ${state}: nothing to reject`,
        state,
        event: { merged: false, closedByBot: false },
        expected: [
          { kind: 'none', reason: `the task is ${state}: it cannot be rejected` },
        ] as PullClosedEffect[],
      }),
    ),
  ])('$name', ({ state, event, expected }) => {
    expect(
      decidePullClosed(
        { task: { state, prNumber: 7 }, runBase: 'main' },
        { number: 7, baseRef: 'main', ...event },
      ),
    ).toEqual(expected);
  });

  /**
   * A close is decided on the PR as GitHub shows it now and on the PR its task links: the delivery
   * may be sent again under a new delivery id, or handled late.
   */
  const writerClose = {
    number: 7,
    baseRef: 'main',
    merged: false,
    closedByBot: false,
    closerRole: 'write' as const,
  };
  it.each<{
    name: string;
    prNumber: number | null;
    now?: { state: string; merged: boolean };
    expected: PullClosedEffect[] | string;
  }>([
    {
      name: 'GitHub shows it closed: rejected',
      prNumber: 7,
      now: { state: 'closed', merged: false },
      expected: rejects,
    },
    {
      name: 'the task links no PR yet (its opened delivery not handled): rejected',
      prNumber: null,
      now: { state: 'closed', merged: false },
      expected: rejects,
    },
    {
      name: 'GitHub shows it open again: nothing',
      prNumber: 7,
      now: { state: 'open', merged: false },
      expected: 'GitHub shows the PR open now: opened again since, or the close sent again',
    },
    {
      name: 'the task links a later PR (retried after this one was closed): nothing',
      prNumber: 9,
      now: { state: 'closed', merged: false },
      expected: "the task's PR is #9 now: this close is of an earlier one",
    },
  ])('closed unmerged by a writer, $name', ({ prNumber, now, expected }) => {
    const snapshot = {
      task: { state: 'in_review' as const, prNumber },
      runBase: 'main',
      ...(now ? { now } : {}),
    };
    expect(decidePullClosed(snapshot, writerClose)).toEqual(
      typeof expected === 'string' ? [{ kind: 'none', reason: expected }] : expected,
    );
  });

  it('opens a refused close again only while the refusal budget answers the closer', () => {
    const triageClose = { number: 7, baseRef: 'main', merged: false, closedByBot: false };
    const decide = (reopenWithinBudget: boolean) =>
      decidePullClosed(
        {
          task: { state: 'in_review', prNumber: 7 },
          runBase: 'main',
          now: { state: 'closed', merged: false },
          reopenWithinBudget,
        },
        { ...triageClose, closerRole: 'triage' },
      );
    expect(decide(true)).toEqual([{ kind: 'reopen' }, { kind: 'refuse', role: 'triage' }]);
    expect(decide(false)).toEqual([{ kind: 'refuse', role: 'triage', leftClosed: true }]);
    // A writer's close is theirs to make, whatever the budget.
    expect(
      decidePullClosed(
        {
          task: { state: 'in_review', prNumber: 7 },
          runBase: 'main',
          reopenWithinBudget: false,
        },
        { ...triageClose, closerRole: 'write' },
      ),
    ).toEqual(rejects);
  });

  it('answers a refused close by whether the PR was opened again', () => {
    const refused =
      'closing the pull request does not reject its agent-coordinator task: only people with write access can (your role: triage)';
    expect(closeRefusalReason('triage', 'reopened')).toBe(`${refused}; it was reopened`);
    expect(closeRefusalReason('triage', 'refused_by_github')).toBe(
      `${refused}; GitHub refused to open it again, so it waits for someone with write access`,
    );
    expect(closeRefusalReason('triage', 'left_closed')).toBe(
      `${refused}; it was reopened for you within the hour already, so it waits, closed, for someone with write access`,
    );
  });

  it('reads the closer’s role only for a person’s close of an unmerged PR', () => {
    expect(readsCloserRole({ merged: false, closedByBot: false })).toBe(true);
    expect(readsCloserRole({ merged: true, closedByBot: false })).toBe(false);
    expect(readsCloserRole({ merged: false, closedByBot: true })).toBe(false);
  });

  it('tries the merged-task statement first only for a merged PR', () => {
    expect(closedRecordsMergeFirst({ merged: true })).toBe(true);
    expect(closedRecordsMergeFirst({ merged: false })).toBe(false);
  });
});
