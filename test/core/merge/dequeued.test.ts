import { describe, expect, it } from 'vitest';
import {
  decideDequeued,
  readsTaskOnDequeue,
  type DequeuedEffect,
  type DequeuedSnapshot,
} from '../../../src/core/merge/index.js';

const merging: DequeuedSnapshot = {
  task: { state: 'merging', approvedSha: 'abc1234' },
  requireApproval: true,
};

/** docs/lifecycle.md step 9 and `merge released`: a PR leaving GitHub's merge queue. */
describe('decideDequeued', () => {
  it.each<{ name: string; snapshot: DequeuedSnapshot; reason: string; expected: DequeuedEffect[] }>(
    [
      {
        name: 'merged by the queue: the closed event records it',
        snapshot: merging,
        reason: 'MERGE',
        expected: [{ kind: 'none', reason: 'merged by the queue: its closed event records it' }],
      },
      {
        name: 'no agent PR',
        snapshot: { task: null, requireApproval: true },
        reason: 'MANUAL',
        expected: [{ kind: 'none', reason: 'not an agent PR of a known task' }],
      },
      ...(['in_review', 'approved', 'merged', 'pending', 'vetoed'] as const).map((state) => ({
        name: `a task ${state} holds no merge claim`,
        snapshot: { task: { state, approvedSha: null }, requireApproval: true },
        reason: 'MANUAL',
        expected: [
          { kind: 'none', reason: `the task is ${state}, not merging` },
        ] as DequeuedEffect[],
      })),
      {
        name: 'failing checks on the group go back to the worker',
        snapshot: merging,
        reason: 'CI_FAILURE',
        expected: [
          {
            kind: 'sendBack',
            feedback:
              'The merge queue removed the PR: checks failed on the merge group. Make them pass.',
          },
        ],
      },
      {
        name: 'a conflict with the base goes back to the worker',
        snapshot: merging,
        reason: 'MERGE_CONFLICT',
        expected: [
          {
            kind: 'sendBack',
            feedback:
              'The merge queue removed the PR: it conflicts with main. Merge main in and resolve the conflicts.',
          },
        ],
      },
      ...['MANUAL', 'ALREADY_MERGED', 'UNKNOWN_REMOVAL_REASON', ''].map((reason) => ({
        name: `removed for ${reason || 'no reason'}: the claim is released and merges decided again`,
        snapshot: merging,
        reason,
        expected: [
          { kind: 'releaseMerge', move: { event: 'merge released', to: 'approved' } },
          { kind: 'advance' },
        ] as DequeuedEffect[],
      })),
      {
        name: 'removed after its approval was withdrawn: the claim is released to review',
        snapshot: { task: { state: 'merging', approvedSha: null }, requireApproval: true },
        reason: 'MANUAL',
        expected: [
          { kind: 'releaseMerge', move: { event: 'merge released', to: 'in_review' } },
          { kind: 'advance' },
        ],
      },
      {
        // The order check failed the group on an approver who lost write access (merge-group.ts).
        name: 'failing checks on the group of a PR whose approval was withdrawn: released to review',
        snapshot: { task: { state: 'merging', approvedSha: null }, requireApproval: true },
        reason: 'CI_FAILURE',
        expected: [
          { kind: 'releaseMerge', move: { event: 'merge released', to: 'in_review' } },
          { kind: 'advance' },
        ],
      },
      {
        name: 'failing checks on the group, no approval required: back to the worker',
        snapshot: { task: { state: 'merging', approvedSha: null }, requireApproval: false },
        reason: 'CI_FAILURE',
        expected: [
          {
            kind: 'sendBack',
            feedback:
              'The merge queue removed the PR: checks failed on the merge group. Make them pass.',
          },
        ],
      },
    ],
  )('$name', ({ snapshot, reason, expected }) => {
    expect(decideDequeued(snapshot, { reason, baseRef: 'main' })).toEqual(expected);
  });

  it('reads the task only for a PR that left the queue unmerged', () => {
    expect(readsTaskOnDequeue({ reason: 'MERGE', baseRef: 'main' })).toBe(false);
    expect(readsTaskOnDequeue({ reason: 'CI_FAILURE', baseRef: 'main' })).toBe(true);
  });
});
