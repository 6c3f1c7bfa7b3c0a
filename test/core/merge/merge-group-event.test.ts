import { describe, expect, it } from 'vitest';
import {
  decideMergeGroup,
  mergeGroupLastPr,
  mergeGroupMembers,
  mergeGroupPullToRead,
  type MergeGroupRun,
  type QueuedAgentPull,
} from '../../../src/core/merge/index.js';

const ref = (pr: number) => `gh-readonly-queue/main/pr-${pr}-${'f'.repeat(40)}`;
const agent = (number: number, taskId: string, runKey = '1'): QueuedAgentPull => ({
  number,
  taskId,
  runKey,
});
/** Run 1: b depends on a; a is in review (not merged). */
const runs = new Map<string, MergeGroupRun>([
  [
    '1',
    {
      requireApproval: false,
      tasks: [
        { taskId: 'a', deps: [], state: 'in_review', prNumber: 11 },
        { taskId: 'b', deps: ['a'], state: 'in_review', prNumber: 12 },
      ],
    },
  ],
]);

/** docs/lifecycle.md step 9: `merge_group.checks_requested` and the order check. */
describe('merge group: which PRs the group holds', () => {
  it.each([
    [ref(12), 12],
    ['gh-readonly-queue/release/1.x/pr-7-abc', 7],
    ['main', undefined],
  ])('%s names PR %s', (headRef, pr) => {
    expect(mergeGroupLastPr(headRef)).toBe(pr);
  });

  it.each<{ name: string; queued: QueuedAgentPull[]; headRef: string; read?: number }>([
    {
      name: 'the named PR is queued: nothing more to read',
      queued: [agent(11, 'a')],
      headRef: ref(11),
    },
    {
      name: 'the named PR is not known as queued',
      queued: [agent(11, 'a')],
      headRef: ref(12),
      read: 12,
    },
    { name: 'a ref naming no PR', queued: [agent(11, 'a')], headRef: 'main' },
  ])('$name', ({ queued, headRef, read }) => {
    expect(mergeGroupPullToRead(queued, headRef)).toBe(read);
  });

  it.each<{
    name: string;
    queued: QueuedAgentPull[];
    headRef: string;
    named?: QueuedAgentPull;
    members: object[];
  }>([
    {
      name: 'the queue up to and including the named PR',
      queued: [agent(11, 'a'), agent(12, 'b'), agent(13, 'c')],
      headRef: ref(12),
      members: [agent(11, 'a'), agent(12, 'b')],
    },
    {
      name: 'an agent PR not known as queued is the last entry',
      queued: [agent(11, 'a')],
      headRef: ref(12),
      named: agent(12, 'b'),
      members: [agent(11, 'a'), agent(12, 'b')],
    },
    {
      name: 'someone else’s PR is judged as a non-agent PR',
      queued: [agent(11, 'a')],
      headRef: ref(99),
      members: [{ number: 99 }],
    },
    {
      name: 'a ref naming no PR holds none',
      queued: [agent(11, 'a')],
      headRef: 'main',
      members: [],
    },
  ])('$name', ({ queued, headRef, named, members }) => {
    expect(mergeGroupMembers(queued, headRef, named)).toEqual(members);
  });
});

describe('decideMergeGroup', () => {
  it.each([
    {
      name: 'dependencies earlier in the group: success',
      members: [agent(11, 'a'), agent(12, 'b')],
      expected: {
        conclusion: 'success',
        title: 'dependency order holds',
        summary: 'Every agent PR in this merge group lands after its dependencies.',
      },
    },
    {
      name: 'non-agent PRs only: success',
      members: [{ number: 99 }],
      expected: { conclusion: 'success' },
    },
    {
      name: 'a dependency not in the group and not merged: failure, naming it',
      members: [agent(12, 'b')],
      expected: {
        conclusion: 'failure',
        title: 'out of dependency order',
        summary: '#12 (b) would land before its dependency a (#11)',
      },
    },
    {
      name: 'an agent PR of no known run fails closed',
      members: [agent(12, 'b', '2')],
      expected: { conclusion: 'failure', summary: '#12 (b) belongs to no known run task' },
    },
  ])('$name', ({ members, expected }) => {
    const effects = decideMergeGroup({ members, runs });
    expect(effects).toHaveLength(1);
    expect(effects[0]).toMatchObject({ kind: 'reportOrder', ...expected });
  });
});

describe('decideMergeGroup: an approver who lost write access', () => {
  const HEAD = 'f'.repeat(40);
  const approvedRuns = (state: 'merging' | 'approved') =>
    new Map<string, MergeGroupRun>([
      [
        '1',
        {
          requireApproval: true,
          tasks: [{ taskId: 'a', deps: [], state, approvedSha: HEAD, approvedBy: 'carol' }],
        },
      ],
    ]);
  const members = [{ ...agent(11, 'a'), headSha: HEAD }];
  const marker = `<!-- agent-coordinator:approver-lost-write sha=${HEAD} by=carol -->`;

  it('withdraws the approval (as fields while the task is merging), then fails the group', () => {
    const effects = decideMergeGroup({
      members,
      runs: approvedRuns('merging'),
      approvers: new Map([['carol', 'not_writer']]),
    });
    expect(effects).toEqual([
      {
        kind: 'withdrawApproval',
        pr: 11,
        runKey: '1',
        taskId: 'a',
        approval: { sha: HEAD, by: 'carol' },
        comment: { marker, body: expect.stringContaining('@carol no longer counts') as string },
      },
      expect.objectContaining({
        kind: 'reportOrder',
        conclusion: 'failure',
        summary: '#11 (a) is approved by @carol, who no longer has write access',
      }),
    ]);
  });

  it('moves a task in review back to review', () => {
    const effects = decideMergeGroup({
      members,
      runs: approvedRuns('approved'),
      approvers: new Map([['carol', 'not_writer']]),
    });
    expect(effects[0]).toMatchObject({ kind: 'withdrawApproval', move: 'approval withdrawn' });
  });

  it('withdraws nothing when GitHub did not answer: the group fails, the approval stays', () => {
    const effects = decideMergeGroup({
      members,
      runs: approvedRuns('merging'),
      approvers: new Map([['carol', 'unknown']]),
    });
    expect(effects).toEqual([expect.objectContaining({ conclusion: 'failure' })]);
  });
});
