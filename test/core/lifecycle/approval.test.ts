import { describe, expect, it } from 'vitest';
import {
  APPROVABLE_TASK_STATES,
  decideApproval,
  type ApprovalVerdict,
} from '../../../src/core/lifecycle/index.js';
import { TASK_STATES, type TaskState } from '../../../src/core/states.js';

const HEAD = 'head';
const OLD = 'old';

describe('decideApproval', () => {
  it.each<{
    name: string;
    state: TaskState;
    approvedSha?: string;
    sha: string;
    expected: ApprovalVerdict;
  }>([
    {
      name: 'in review, the head: approved',
      state: 'in_review',
      sha: HEAD,
      expected: { kind: 'record', state: 'approved', approvedSha: HEAD },
    },
    {
      name: 'approved again, the head: stays approved',
      state: 'approved',
      approvedSha: HEAD,
      sha: HEAD,
      expected: { kind: 'record', state: 'approved', approvedSha: HEAD },
    },
    {
      name: 'in review, an older commit: recorded, not approved',
      state: 'in_review',
      sha: OLD,
      expected: { kind: 'record', state: 'in_review', approvedSha: OLD },
    },
    {
      name: 'a late approval of an older commit keeps the one of the head',
      state: 'approved',
      approvedSha: HEAD,
      sha: OLD,
      expected: { kind: 'keep' },
    },
    {
      name: 'an older commit replaces an approval of another older commit',
      state: 'in_review',
      approvedSha: 'older',
      sha: OLD,
      expected: { kind: 'record', state: 'in_review', approvedSha: OLD },
    },
    ...(['pending', 'dispatched', 'running'] as const).map((state) => ({
      name: `${state}: recorded for the head, the state stays until review`,
      state,
      sha: HEAD,
      expected: {
        kind: 'record',
        state,
        approvedSha: HEAD,
      } as ApprovalVerdict,
    })),
  ])('$name', ({ state, approvedSha, sha, expected }) => {
    expect(
      decideApproval({ state, approvedSha: approvedSha ?? null }, { sha, currentHead: HEAD }),
    ).toEqual(expected);
  });

  it.each(TASK_STATES.filter((s) => !APPROVABLE_TASK_STATES.has(s)))(
    'refuses a task that is %s',
    (state) => {
      expect(
        decideApproval({ state, approvedSha: null }, { sha: HEAD, currentHead: HEAD }),
      ).toEqual({ kind: 'refuse' });
    },
  );
});
