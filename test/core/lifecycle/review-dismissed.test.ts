import { describe, expect, it } from 'vitest';
import {
  decideReviewDismissed,
  type DismissedReview,
  type DismissedReviewEffect,
  type DismissedReviewSnapshot,
} from '../../../src/core/lifecycle/index.js';
import type { TaskState } from '../../../src/core/states.js';

const HEAD = 'b'.repeat(40);
const OLD = 'a'.repeat(40);
/** The head of the coordinator's update of HEAD's behind branch. */
const UPDATED = 'c'.repeat(40);

/** Carol's approving review of HEAD, dismissed. */
const review = (over: Partial<DismissedReview> = {}): DismissedReview => ({
  id: 7,
  author: 'carol',
  commitId: HEAD,
  ...over,
});
const task = (over: Partial<DismissedReviewSnapshot['task']> = {}): DismissedReviewSnapshot => ({
  task: {
    state: 'approved',
    approvedSha: HEAD,
    approvedBy: 'carol',
    approvalOriginSha: HEAD,
    ...over,
  },
});

/** The approval withdrawn, the task moved back to review (`inReview`) or its fields cleared. */
const withdraws = ({
  by = 'carol' as string | null,
  sha = HEAD,
  inReview = true,
} = {}): DismissedReviewEffect[] => [
  {
    kind: 'withdrawApproval',
    approval: { sha, by },
    ...(inReview ? { move: 'approval withdrawn' as const } : {}),
  },
  { kind: 'requestStatus' },
  { kind: 'advance' },
];
const none = (reason: string): DismissedReviewEffect[] => [{ kind: 'none', reason }];

/** docs/lifecycle.md "Reviews": what a dismissed review takes back. */
describe('decideReviewDismissed', () => {
  it.each<{
    name: string;
    review: DismissedReview;
    snapshot: DismissedReviewSnapshot | null;
    expected: DismissedReviewEffect[];
  }>([
    {
      name: 'the approval is the review’s: withdrawn, the task back in review',
      review: review(),
      snapshot: task(),
      expected: withdraws(),
    },
    {
      name: 'an approval of an older commit than the head (in review) is the review’s too',
      review: review({ commitId: OLD }),
      snapshot: task({ state: 'in_review', approvedSha: OLD, approvalOriginSha: OLD }),
      expected: withdraws({ sha: OLD }),
    },
    {
      name: 'given on the review’s commit and carried to the head of the coordinator’s update: withdrawn',
      review: review(),
      snapshot: task({ approvedSha: UPDATED }),
      expected: withdraws({ sha: UPDATED }),
    },
    {
      name: 'recorded before its origin was kept: its commit stands for it',
      review: review(),
      snapshot: task({ approvalOriginSha: null }),
      expected: withdraws(),
    },
    {
      name: 'a review of the update’s head, when the approval was given on the commit before: it stands',
      review: review({ commitId: UPDATED }),
      snapshot: task({ approvedSha: UPDATED }),
      expected: none("the task's approval is of another commit than the review"),
    },
    {
      name: 'logins compare case-insensitively',
      review: review({ author: 'Carol' }),
      snapshot: task({ approvedBy: 'CAROL' }),
      expected: withdraws({ by: 'CAROL' }),
    },
    {
      name: 'an approval with no recorded author at the review’s commit is withdrawn (it may be the review’s)',
      review: review(),
      snapshot: task({ approvedBy: null }),
      expected: withdraws({ by: null }),
    },
    {
      name: 'before review (given while the worker finished): withdrawn as fields',
      review: review(),
      snapshot: task({ state: 'running' }),
      expected: withdraws({ inReview: false }),
    },
    {
      name: 'while the merge is under way: withdrawn as fields, so a merge given back does not merge',
      review: review(),
      snapshot: task({ state: 'merging' }),
      expected: withdraws({ inReview: false }),
    },
    {
      name: 'another writer approved since (their /approve replaced the author): it stands',
      review: review(),
      snapshot: task({ approvedBy: 'dave' }),
      expected: none("the task's approval is by dave, not the review's author"),
    },
    {
      name: 'the same person’s approval of another commit stands (an older review dismissed)',
      review: review({ commitId: OLD }),
      snapshot: task(),
      expected: none("the task's approval is of another commit than the review"),
    },
    {
      name: 'no approval to take back',
      review: review(),
      snapshot: task({
        state: 'in_review',
        approvedSha: null,
        approvedBy: null,
        approvalOriginSha: null,
      }),
      expected: none('the task holds no approval'),
    },
    {
      name: 'a merged task is merged',
      review: review(),
      snapshot: task({ state: 'merged' }),
      expected: none('the task is merged'),
    },
    {
      name: 'not an agent PR',
      review: review(),
      snapshot: null,
      expected: none('not an agent PR of a known task'),
    },
  ])('$name', ({ review, snapshot, expected }) => {
    expect(decideReviewDismissed(snapshot, review)).toEqual(expected);
  });

  it.each<TaskState>(['pending', 'dispatched', 'running', 'failed', 'vetoed', 'blocked'])(
    'a task %s keeps its state: the approval is withdrawn as fields',
    (state) => {
      expect(decideReviewDismissed(task({ state }), review())).toEqual(
        withdraws({ inReview: false }),
      );
    },
  );
});
