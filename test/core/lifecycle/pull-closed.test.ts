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
  it.each<{ name: string; state: TaskState; event: PullClosedEvent; expected: PullClosedEffect[] }>(
    [
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
    ],
  )('$name', ({ state, event, expected }) => {
    expect(decidePullClosed({ task: { state } }, event)).toEqual(expected);
  });

  it('answers a refused close by whether GitHub let the PR be opened again', () => {
    expect(closeRefusalReason('triage', true)).toBe(
      'closing the pull request does not reject its agent-coordinator task: only people with write access can (your role: triage); it was reopened',
    );
    expect(closeRefusalReason('triage', false)).toBe(
      'closing the pull request does not reject its agent-coordinator task: only people with write access can (your role: triage); GitHub refused to open it again, so it waits for someone with write access',
    );
  });

  it('reads the closer’s role only for a person’s close of an unmerged PR', () => {
    expect(readsCloserRole({ merged: false, closedByBot: false })).toBe(true);
    expect(readsCloserRole({ merged: true, closedByBot: false })).toBe(false);
    expect(readsCloserRole({ merged: false, closedByBot: true })).toBe(false);
  });

  it('tries the merged-task statement first only for a merged PR', () => {
    expect(closedRecordsMergeFirst({ merged: true, closedByBot: false })).toBe(true);
    expect(closedRecordsMergeFirst({ merged: false, closedByBot: false })).toBe(false);
  });
});
