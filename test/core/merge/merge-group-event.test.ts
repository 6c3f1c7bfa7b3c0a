import { describe, expect, it } from 'vitest';
import {
  decideMergeGroup,
  mergeGroupLastPr,
  mergeGroupMembers,
  mergeGroupNumbers,
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

  it.each<{ name: string; queue: number[]; headRef: string; numbers: number[] }>([
    {
      name: 'GitHub’s queue up to and including the named PR',
      queue: [11, 12, 13],
      headRef: ref(12),
      numbers: [11, 12],
    },
    {
      name: 'a PR before the named one, whoever enqueued it',
      queue: [11, 99],
      headRef: ref(99),
      numbers: [11, 99],
    },
    {
      name: 'a named PR that has left the queue comes last, after all of it',
      queue: [11, 13],
      headRef: ref(12),
      numbers: [11, 13, 12],
    },
    { name: 'a ref naming no PR: the whole queue', queue: [11], headRef: 'main', numbers: [11] },
  ])('$name', ({ queue, headRef, numbers }) => {
    expect(mergeGroupNumbers(queue, headRef)).toEqual(numbers);
  });

  it('takes each PR the store knows for an agent PR, any other for someone else’s', () => {
    expect(mergeGroupMembers([11, 99, 12], [agent(12, 'b'), agent(11, 'a')])).toEqual([
      agent(11, 'a'),
      { number: 99 },
      agent(12, 'b'),
    ]);
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
