import { describe, expect, it } from 'vitest';
import {
  decidePush,
  type BranchPush,
  type PushVerdict,
} from '../../../src/core/lifecycle/index.js';
import {
  classifyUpdateRefusal,
  decideUpdateAnswer,
  refusalNeedsPull,
  updateRefusedAtHead,
  type BranchMergeAnswer,
  type BranchMergeRefusal,
  type PullAfterRefusal,
  type UpdateAnswer,
  type UpdateRefusal,
} from '../../../src/core/merge/index.js';

const X = 'x'.repeat(40);
const Y = 'y'.repeat(40);
const Z = 'z'.repeat(40);

/**
 * docs/lifecycle.md step 8: the coordinator's own update of a behind branch. X is the approved
 * head the update merged the base into; Y the merge commit GitHub answered the update with.
 */
describe('decidePush', () => {
  const push = (over: Partial<BranchPush>): BranchPush => ({
    before: X,
    after: Y,
    update: { from: X, to: Y },
    approvedSha: X,
    afterTurn: false,
    ...over,
  });
  const work = (clearUpdate: boolean): PushVerdict => ({
    kind: 'decided',
    work: true,
    clearUpdate,
  });
  it.each<{ name: string; push: BranchPush; verdict: PushVerdict }>([
    {
      name: "the update's push (to the merge commit GitHub answered with) moves the approval to it",
      push: push({}),
      verdict: { kind: 'decided', work: false, approvedSha: Y, clearUpdate: false },
    },
    {
      name: 'the same push delivered again changes nothing',
      push: push({ approvedSha: Y }),
      verdict: { kind: 'decided', work: false, clearUpdate: false },
    },
    {
      name: 'an update of an unapproved head approves nothing',
      push: push({ approvedSha: null }),
      verdict: { kind: 'decided', work: false, clearUpdate: false },
    },
    {
      name: 'a look-alike of the update (another merge of the base into the approved head) is work',
      push: push({ after: Z }),
      verdict: work(true),
    },
    {
      name: 'a look-alike pushed over the update (the update undone, its look-alike in its place) is work',
      push: push({ before: Y, after: Z }),
      verdict: work(true),
    },
    {
      name: "a push on top of the update's head is new work and ends the update",
      push: push({ before: Y, after: Z, approvedSha: Y }),
      verdict: work(true),
    },
    {
      name: "the update's merge commit pushed from another head is work",
      push: push({ before: Z }),
      verdict: work(true),
    },
    {
      name: 'without an update every push is work',
      push: push({ update: null }),
      verdict: work(false),
    },
    {
      name: 'a push from the head an update is out for, before its answer is recorded: decided after the merge turn',
      push: push({ update: { from: X, to: null } }),
      verdict: { kind: 'await_update' },
    },
    {
      name: 'the same, a look-alike: it waits too, never carried before the answer is known',
      push: push({ after: Z, update: { from: X, to: null } }),
      verdict: { kind: 'await_update' },
    },
    {
      name: 'after the merge turn, an update with no answer recorded (lost): the push is work',
      push: push({ update: { from: X, to: null }, afterTurn: true }),
      verdict: work(true),
    },
    {
      name: 'a push from another head while an update is out is work, with no wait',
      push: push({ before: Z, after: Y, update: { from: X, to: null } }),
      verdict: work(true),
    },
  ])('$name', ({ push: given, verdict }) => {
    expect(decidePush(given)).toEqual(verdict);
  });
});

/** GitHub's answer to the coordinator's merge into the branch: its update, when made on the head it decided on. */
describe('decideUpdateAnswer', () => {
  const BASE = 'b'.repeat(40);
  const merged = (parents: string[]): BranchMergeAnswer => ({ status: 201, sha: Y, parents });
  it.each<{ name: string; answer: BranchMergeAnswer; meant: UpdateAnswer }>([
    {
      name: 'a merge of the base into the head decided on: the update, its commit recorded',
      answer: merged([X, BASE]),
      meant: { kind: 'updated', to: Y },
    },
    {
      name: 'a merge into a head someone pushed first: not the update',
      answer: merged([Z, BASE]),
      meant: { kind: 'merged_other_head', parents: [Z, BASE] },
    },
    {
      name: 'the decided head as the merged-in parent: not the update',
      answer: merged([BASE, X]),
      meant: { kind: 'merged_other_head', parents: [BASE, X] },
    },
    {
      name: 'not a two-parent merge: not the update',
      answer: merged([X]),
      meant: { kind: 'merged_other_head', parents: [X] },
    },
    { name: 'nothing to merge', answer: { status: 204 }, meant: { kind: 'up_to_date' } },
    {
      name: 'a refusal',
      answer: { status: 409, message: 'Merge conflict' },
      meant: { kind: 'refused', refusal: { status: 409, message: 'Merge conflict' } },
    },
  ])('$name', ({ answer, meant }) => {
    expect(decideUpdateAnswer(X, answer)).toEqual(meant);
  });
});

/**
 * GitHub's refusal of the coordinator's merge into the branch: a 403 waits for a person whatever
 * the PR shows; a 409 is a conflict of the head decided on only if it is still the PR's head.
 */
describe('classifyUpdateRefusal', () => {
  const pull = (over: Partial<PullAfterRefusal> = {}): PullAfterRefusal => ({
    headSha: X,
    open: true,
    ...over,
  });
  const WORKFLOW =
    'refusing to allow a GitHub App to create or update workflow .github/workflows/ci.yml without workflows permission';
  const conflict = { status: 409 as const, message: 'Merge conflict' };
  it.each<{
    name: string;
    refusal?: BranchMergeRefusal;
    current: PullAfterRefusal | null;
    verdict: UpdateRefusal;
  }>([
    {
      name: 'a 403: the App may not push the merge (a workflow file)',
      refusal: { status: 403, message: WORKFLOW },
      current: pull(),
      verdict: { kind: 'needs_person', message: WORKFLOW },
    },
    {
      name: 'a 403 whatever the PR reads, even gone',
      refusal: { status: 403, message: ' Resource not accessible by integration\n' },
      current: null,
      verdict: { kind: 'needs_person', message: 'Resource not accessible by integration' },
    },
    {
      name: 'a 403 without a message says its status',
      refusal: { status: 403, message: '' },
      current: pull(),
      verdict: { kind: 'needs_person', message: 'HTTP 403' },
    },
    {
      name: 'a 403 with a long message keeps 500 characters of it',
      refusal: { status: 403, message: 'x'.repeat(2000) },
      current: pull(),
      verdict: { kind: 'needs_person', message: `${'x'.repeat(499)}…` },
    },
    { name: 'a conflict of the head decided on', current: pull(), verdict: { kind: 'conflict' } },
    {
      name: 'a conflict after the head moved: decide again',
      current: pull({ headSha: Y }),
      verdict: { kind: 'stale_head' },
    },
    {
      name: 'a conflict, closed meanwhile',
      current: pull({ open: false }),
      verdict: { kind: 'unknown' },
    },
    { name: 'a conflict, the PR gone', current: null, verdict: { kind: 'unknown' } },
    {
      name: 'a 404: the branch or the base gone, the next event decides',
      refusal: { status: 404, message: 'Base does not exist' },
      current: null,
      verdict: { kind: 'unknown' },
    },
    {
      name: 'a 422: the next event decides',
      refusal: { status: 422, message: 'Validation Failed' },
      current: null,
      verdict: { kind: 'unknown' },
    },
  ])('$name', ({ refusal = conflict, current, verdict }) => {
    expect(classifyUpdateRefusal(refusal, X, current)).toEqual(verdict);
  });
});

describe('updateRefusedAtHead', () => {
  it.each([
    { name: 'never refused', pull: { headSha: X }, refused: false },
    { name: 'refused at the head', pull: { headSha: X, updateRefusedSha: X }, refused: true },
    {
      name: 'a push moved the head since',
      pull: { headSha: Y, updateRefusedSha: X },
      refused: false,
    },
  ])('$name', ({ pull, refused }) => {
    expect(updateRefusedAtHead(pull)).toBe(refused);
  });
});

// The 403 says what it means; a 409 is told apart by the PR's head as GitHub shows it afterwards.
describe('refusalNeedsPull', () => {
  it.each<[BranchMergeRefusal, boolean]>([
    [
      { status: 403, message: 'refusing to allow a GitHub App to create or update workflow' },
      false,
    ],
    [{ status: 409, message: 'Merge conflict' }, true],
    [{ status: 404, message: 'Head does not exist' }, false],
  ])('%o: %s', (refusal, needed) => {
    expect(refusalNeedsPull(refusal)).toBe(needed);
  });
});
