import { describe, expect, it } from 'vitest';
import {
  changesRequestedFeedback,
  decideReview,
  reviewReads,
  type ReviewEffect,
  type ReviewEvent,
  type ReviewSnapshot,
} from '../../../src/core/lifecycle/index.js';

const HEAD = 'b'.repeat(40);
const OLD = 'a'.repeat(40);

const approval = (over: Partial<ReviewEvent> = {}): ReviewEvent => ({
  state: 'approved',
  id: 7,
  author: 'maintainer',
  authorIsBot: false,
  commitId: HEAD,
  ...over,
});
const changes = (over: Partial<ReviewEvent> = {}): ReviewEvent =>
  approval({ state: 'changes_requested', ...over });
const snap = (
  over: Partial<Omit<ReviewSnapshot, 'task'>> & { task?: Partial<ReviewSnapshot['task']> } = {},
): ReviewSnapshot => ({
  runFinished: false,
  authorCanWrite: true,
  currentHead: HEAD,
  reviewState: 'APPROVED',
  reviewAlreadySentBack: false,
  enqueued: false,
  ...over,
  task: { state: 'in_review', approvedSha: null, ...over.task },
});

const approves = (sha = HEAD): ReviewEffect[] => [
  { kind: 'approve', approval: { sha, currentHead: HEAD, by: 'maintainer' } },
  { kind: 'advance' },
];
const none = (reason: string): ReviewEffect[] => [{ kind: 'none', reason }];
const sendsBack = (inMergeQueue = false): ReviewEffect[] => [
  { kind: 'sendBack', reviewer: 'maintainer', inMergeQueue },
  { kind: 'advance' },
];

/** docs/lifecycle.md step 8 and "Reviews": what a submitted review does. */
describe('decideReview', () => {
  it.each<{
    name: string;
    event: ReviewEvent;
    snapshot: ReviewSnapshot | null;
    expected: ReviewEffect[];
  }>([
    // Approvals.
    {
      name: 'a writer approves the head',
      event: approval(),
      snapshot: snap(),
      expected: approves(),
    },
    {
      name: 'upper case, as REST spells it',
      event: approval({ state: 'APPROVED' }),
      snapshot: snap(),
      expected: approves(),
    },
    {
      name: 'an approval before the worker finished waits on the task',
      event: approval(),
      snapshot: snap({ task: { state: 'running' } }),
      expected: approves(),
    },
    {
      name: 'an approval of an older commit is recorded for it',
      event: approval({ commitId: OLD }),
      snapshot: snap(),
      expected: approves(OLD),
    },
    {
      name: 'a late approval of an older commit keeps the head approved (and re-decides)',
      event: approval({ commitId: OLD }),
      snapshot: snap({ task: { state: 'approved', approvedSha: HEAD } }),
      expected: approves(OLD),
    },
    {
      name: 'a bot approves nothing',
      event: approval({ authorIsBot: true }),
      snapshot: null,
      expected: none('reviews by bots never approve'),
    },
    {
      name: 'a reader approves nothing',
      event: approval(),
      snapshot: snap({ authorCanWrite: false }),
      expected: none('the reviewer cannot write to the repository'),
    },
    {
      // The engine reads nothing of GitHub for a review by someone who cannot write.
      name: "a reader's approval, the PR and the review unread, approves nothing",
      event: approval(),
      snapshot: snap({ authorCanWrite: false, reviewState: null }),
      expected: none('the reviewer cannot write to the repository'),
    },
    {
      name: 'an approval GitHub shows dismissed by the time it is handled approves nothing',
      event: approval(),
      snapshot: snap({ reviewState: 'DISMISSED' }),
      expected: none('GitHub shows the review dismissed'),
    },
    {
      name: 'an approval GitHub no longer has approves nothing',
      event: approval(),
      snapshot: snap({ reviewState: null }),
      expected: none('GitHub shows the review gone'),
    },
    {
      name: 'an approval on a finished run',
      event: approval(),
      snapshot: snap({ runFinished: true }),
      expected: none('the run is finished'),
    },
    ...(['merging', 'merged', 'failed', 'vetoed', 'rejected', 'blocked', 'cancelled'] as const).map(
      (state) => ({
        name: `an approval of a task ${state}`,
        event: approval(),
        snapshot: snap({ task: { state } }),
        expected: none(`the task is ${state}: no approval`),
      }),
    ),
    {
      name: 'an approval of no agent PR',
      event: approval(),
      snapshot: null,
      expected: none('not an agent PR of a known task'),
    },

    // Requests for changes.
    {
      name: 'a writer asks for changes on a PR in review',
      event: changes(),
      snapshot: snap({ reviewState: 'CHANGES_REQUESTED' }),
      expected: sendsBack(),
    },
    {
      name: 'a request for changes GitHub shows dismissed by the time it is handled sends nothing',
      event: changes(),
      snapshot: snap({ reviewState: 'DISMISSED' }),
      expected: none('GitHub shows the review dismissed'),
    },
    {
      name: 'a request for changes GitHub no longer has sends nothing',
      event: changes(),
      snapshot: snap({ reviewState: null }),
      expected: none('GitHub shows the review gone'),
    },
    {
      name: 'on an approved PR new feedback wins',
      event: changes(),
      snapshot: snap({
        reviewState: 'CHANGES_REQUESTED',
        task: { state: 'approved', approvedSha: HEAD },
      }),
      expected: sendsBack(),
    },
    {
      name: "a reader's request for changes, the review unread, sends nothing",
      event: changes(),
      snapshot: snap({ authorCanWrite: false, reviewState: null }),
      expected: none('the reviewer cannot write to the repository'),
    },
    {
      name: 'a bot asking for changes',
      event: changes({ authorIsBot: true }),
      snapshot: snap({ authorCanWrite: false }),
      expected: none('reviews by bots never start work'),
    },
    {
      name: 'a redelivered request for changes',
      event: changes(),
      snapshot: snap({ reviewAlreadySentBack: true }),
      expected: none('this review was already sent back to the worker'),
    },
    {
      // GitHub's queue would land it on its group's checks: it is taken out (docs/lifecycle.md).
      name: "a request for changes on a PR in GitHub's merge queue takes it out",
      event: changes(),
      snapshot: snap({
        reviewState: 'CHANGES_REQUESTED',
        enqueued: true,
        task: { state: 'merging', approvedSha: HEAD },
      }),
      expected: sendsBack(true),
    },
    {
      name: 'a request for changes while a direct merge is in flight',
      event: changes(),
      snapshot: snap({ reviewState: 'CHANGES_REQUESTED', task: { state: 'merging' } }),
      expected: none('the task is merging, not waiting for review'),
    },
    {
      name: "a reader's request for changes on a PR in the merge queue sends nothing",
      event: changes(),
      snapshot: snap({
        authorCanWrite: false,
        reviewState: null,
        enqueued: true,
        task: { state: 'merging', approvedSha: HEAD },
      }),
      expected: none('the reviewer cannot write to the repository'),
    },
    {
      name: 'a request for changes while a worker is on it',
      event: changes(),
      snapshot: snap({ task: { state: 'running' } }),
      expected: none('the task is running, not waiting for review'),
    },
    {
      name: 'a request for changes on no agent PR',
      event: changes(),
      snapshot: null,
      expected: none('not an agent PR of a known task'),
    },

    // Other reviews.
    ...['commented', 'dismissed'].map((state) => ({
      name: `a ${state} review`,
      event: approval({ state }),
      snapshot: null,
      expected: none(`a ${state} review neither approves nor asks for changes`),
    })),
  ])('$name', ({ event, snapshot, expected }) => {
    expect(decideReview(snapshot, event)).toEqual(expected);
  });

  it.each([
    [approval(), 'approval'],
    [approval({ authorIsBot: true }), 'nothing'],
    [changes(), 'changes_requested'],
    [changes({ authorIsBot: true }), 'changes_requested'],
    [approval({ state: 'commented' }), 'nothing'],
  ] as const)('reads for %o: %s', (event, reads) => {
    expect(reviewReads(event)).toBe(reads);
  });

  it('tells the worker how many threads are open', () => {
    expect(changesRequestedFeedback('ana', 1)).toBe(
      'ana requested changes in a review (1 unresolved thread): address the review and each thread.',
    );
    expect(changesRequestedFeedback('ana', 3)).toContain('(3 unresolved threads)');
  });
});
