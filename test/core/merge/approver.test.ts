import { describe, expect, it } from 'vitest';
import {
  approversToRead,
  decideMerges,
  type ApproverStanding,
  type MergeDecision,
  type MergePull,
  type MergeSnapshot,
  type MergeTask,
} from '../../../src/core/merge/index.js';
import { check, HEAD, pr, snapshot, task } from './builders.js';

const CAROL = 'carol';
const marker = `<!-- agent-coordinator:approver-lost-write sha=${HEAD} by=carol -->`;
const told = [
  marker,
  '**agent-coordinator**: the approval of `def5678` by @carol no longer counts: they no longer have write access to this repository, so this pull request was not merged.',
  '',
  'Someone with write access needs to review it and approve it (`/approve` or an approving review) for it to merge.',
  '',
].join('\n');

const standing = (s: ApproverStanding) => new Map([[CAROL, s]]);

interface Row {
  name: string;
  task?: Partial<MergeTask>;
  pull?: Partial<MergePull>;
  snap?: Partial<MergeSnapshot>;
  expected: Partial<MergeDecision>;
}

/** A run of one task approved by carol for HEAD, its PR (#1) clean and green. */
function decideOne(row: Omit<Row, 'name' | 'expected'>): MergeDecision {
  const decisions = decideMerges(
    snapshot({
      tasks: [task({ approvedBy: CAROL, ...row.task })],
      pulls: [pr(row.pull)],
      ...row.snap,
    }),
  );
  expect(decisions).toHaveLength(1);
  return decisions[0] as MergeDecision;
}

/** core/merge/approval.ts approverCheck: an approval counts at merge time only from a writer. */
describe('decideMerges: the approval of someone who lost write access', () => {
  it.each<Row>([
    {
      name: 'the approver still has write access: merged',
      snap: { approvers: standing('writer') },
      expected: { kind: 'merge', pr: 1, sha: HEAD },
    },
    {
      name: 'the approver no longer has write access: withdrawn, and the PR told',
      snap: { approvers: standing('not_writer') },
      expected: {
        kind: 'withdraw_approval',
        pr: 1,
        taskId: 'task_001',
        approvedSha: HEAD,
        approvedBy: CAROL,
        comment: { marker, body: told },
      },
    },
    {
      name: 'GitHub did not answer: no merge, nothing withdrawn',
      snap: { approvers: standing('unknown') },
      expected: {
        kind: 'wait',
        reason: 'approver_unknown',
        detail:
          'GitHub did not say whether carol, who approved, still has write access: asked again on the next event',
      },
    },
    {
      name: 'not read: no merge',
      snap: { approvers: new Map() },
      expected: {
        kind: 'wait',
        reason: 'approver_unread',
        detail: 'checking that carol, who approved, still has write access',
      },
    },
    {
      name: 'logins are matched whatever their case; the reply names it as recorded',
      task: { approvedBy: 'Carol' },
      snap: { approvers: standing('not_writer') },
      expected: { kind: 'withdraw_approval', approvedBy: 'Carol' },
    },
    {
      name: 'recorded before the author was (no approvedBy): counts as it did',
      task: { approvedBy: undefined },
      snap: { approvers: new Map() },
      expected: { kind: 'merge' },
    },
    {
      name: 'no approval required: the approver is not asked about',
      snap: { requireApproval: false, approvers: standing('not_writer') },
      expected: { kind: 'merge' },
    },
    {
      name: 'queue: the approver still has write access: enqueued',
      snap: { mergeQueue: true, approvers: standing('writer') },
      expected: { kind: 'enqueue', expectedHeadOid: HEAD },
    },
    {
      name: 'queue: the approver no longer has write access: not enqueued, withdrawn',
      snap: { mergeQueue: true, approvers: standing('not_writer') },
      expected: { kind: 'withdraw_approval', approvedBy: CAROL },
    },
    {
      name: 'queue: not read, not enqueued',
      snap: { mergeQueue: true, approvers: new Map() },
      expected: { kind: 'wait', reason: 'approver_unread' },
    },
    {
      name: 'checks still running: waits for them, nothing withdrawn yet',
      pull: { checks: [check({ status: 'in_progress', conclusion: null })] },
      snap: { approvers: standing('not_writer') },
      expected: { kind: 'wait', reason: 'checks_pending' },
    },
    {
      name: 'behind: brought up to date (no merge yet), the approver asked when it would merge',
      pull: { mergeableState: 'behind' },
      snap: { approvers: standing('not_writer') },
      expected: { kind: 'update_branch' },
    },
  ])('$name', ({ task: t, pull, snap, expected }) => {
    expect(decideOne({ task: t, pull, snap })).toMatchObject(expected);
  });

  it("a PR whose approver lost write access leaves the base's slot to the next ready PR", () => {
    const decisions = decideMerges(
      snapshot({
        tasks: [task({ approvedBy: CAROL }), task({ taskId: 'task_002', approvedBy: 'dave' })],
        pulls: [pr(), pr({ taskId: 'task_002', number: 2 })],
        approvers: new Map([
          [CAROL, 'not_writer'],
          ['dave', 'writer'],
        ]),
      }),
    );
    expect(decisions.map((d) => [d.pr, d.kind])).toEqual([
      [1, 'withdraw_approval'],
      [2, 'merge'],
    ]);
  });
});

describe('approversToRead: only of PRs otherwise ready to merge or enter the queue', () => {
  it.each<{
    name: string;
    task?: Partial<MergeTask>;
    pull?: Partial<MergePull>;
    snap?: Partial<MergeSnapshot>;
    read: string[];
  }>([
    { name: 'ready to merge', read: [CAROL] },
    { name: 'ready to enter the queue', snap: { mergeQueue: true }, read: [CAROL] },
    {
      name: 'a login recorded in capitals, asked lower-cased',
      task: { approvedBy: 'Carol' },
      read: [CAROL],
    },
    { name: 'read already this turn', snap: { approvers: standing('unknown') }, read: [] },
    {
      name: 'checks running',
      pull: { checks: [check({ status: 'queued', conclusion: null })] },
      read: [],
    },
    { name: 'behind (an update comes first)', pull: { mergeableState: 'behind' }, read: [] },
    {
      name: 'in the merge queue already',
      snap: { mergeQueue: true },
      pull: { inMergeQueue: true },
      read: [],
    },
    { name: 'held', task: { held: true }, read: [] },
    { name: 'not approved', task: { approvedSha: undefined }, read: [] },
    { name: 'no author recorded', task: { approvedBy: undefined }, read: [] },
    { name: 'no approval required', snap: { requireApproval: false }, read: [] },
  ])('$name', ({ task: t, pull, snap, read }) => {
    const asked = approversToRead(
      snapshot({
        tasks: [task({ approvedBy: CAROL, ...t })],
        pulls: [pr(pull)],
        approvers: new Map(),
        ...snap,
      }),
    );
    expect([...asked]).toEqual(read);
  });
});
