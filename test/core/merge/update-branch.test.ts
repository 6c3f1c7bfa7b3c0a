import { describe, expect, it } from 'vitest';
import {
  decidePush,
  type BranchPush,
  type PushVerdict,
} from '../../../src/core/lifecycle/index.js';
import {
  classifyUpdateRefusal,
  refusalNeedsPull,
  updateRefusedAtHead,
  type PullAfterRefusal,
  type UpdateBranchRefusal,
  type UpdateRefusal,
} from '../../../src/core/merge/index.js';

const X = 'x'.repeat(40);
const Y = 'y'.repeat(40);
const Z = 'z'.repeat(40);

/** docs/lifecycle.md step 8: the coordinator's own update of a behind branch. */
describe('decidePush', () => {
  const BASE = 'b'.repeat(40);
  // The update's merge commit: the base merged into the head it updated from (X).
  const MERGE_OF_X = [X, BASE];
  it.each<{ name: string; push: BranchPush; verdict: PushVerdict }>([
    {
      name: "the update's push moves the approval to its head and keeps the update's turn",
      push: { before: X, after: Y, updateFrom: X, approvedSha: X, afterParents: MERGE_OF_X },
      verdict: { work: false, approvedSha: Y, clearUpdate: false },
    },
    {
      name: 'the same push delivered again changes nothing',
      push: { before: X, after: Y, updateFrom: X, approvedSha: Y, afterParents: MERGE_OF_X },
      verdict: { work: false, clearUpdate: false },
    },
    {
      name: 'an update of an unapproved head approves nothing',
      push: { before: X, after: Y, updateFrom: X, approvedSha: null, afterParents: MERGE_OF_X },
      verdict: { work: false, clearUpdate: false },
    },
    {
      name: "a push on top of the update's head is new work and ends the update",
      push: { before: Y, after: Z, updateFrom: X, approvedSha: Y, afterParents: null },
      verdict: { work: true, clearUpdate: true },
    },
    {
      name: 'a push racing the update (from the same head) is still work when it is not ours',
      push: { before: Z, after: Y, updateFrom: X, approvedSha: X, afterParents: null },
      verdict: { work: true, clearUpdate: true },
    },
    {
      name: 'without an update every push is work',
      push: { before: X, after: Y, updateFrom: null, approvedSha: X, afterParents: null },
      verdict: { work: true, clearUpdate: false },
    },
    {
      name: 'a commit pushed on the updated head before the update lands is work, not the update',
      push: { before: X, after: Z, updateFrom: X, approvedSha: X, afterParents: [X] },
      verdict: { work: true, clearUpdate: true },
    },
    {
      name: 'a merge into the updated head is not the update when that head is not its first parent',
      push: { before: X, after: Z, updateFrom: X, approvedSha: X, afterParents: [BASE, X] },
      verdict: { work: true, clearUpdate: true },
    },
    {
      name: 'a merge of more than the base (an octopus) is not the update',
      push: { before: X, after: Z, updateFrom: X, approvedSha: X, afterParents: [X, BASE, Y] },
      verdict: { work: true, clearUpdate: true },
    },
    {
      name: 'a pushed commit GitHub does not find is work',
      push: { before: X, after: Z, updateFrom: X, approvedSha: X, afterParents: null },
      verdict: { work: true, clearUpdate: true },
    },
  ])('$name', ({ push, verdict }) => {
    expect(decidePush(push)).toEqual(verdict);
  });
});

/**
 * GitHub's refusal of update-branch: a 403 waits for a person whatever the PR shows; a 422 is
 * sorted by the PR as GitHub shows it afterwards.
 */
describe('classifyUpdateRefusal', () => {
  const pull = (over: Partial<PullAfterRefusal> = {}): PullAfterRefusal => ({
    headSha: X,
    mergeable: true,
    mergeableState: 'clean',
    open: true,
    ...over,
  });
  const WORKFLOW =
    'refusing to allow a GitHub App to create or update workflow .github/workflows/ci.yml without workflows permission';
  const unprocessable = { status: 422 as const, message: 'Validation Failed' };
  it.each<{
    name: string;
    refusal?: UpdateBranchRefusal;
    current: PullAfterRefusal | null;
    verdict: UpdateRefusal;
  }>([
    {
      name: 'a 403: the App may not push the merge (a workflow file)',
      refusal: { status: 403, message: WORKFLOW },
      current: pull({ mergeableState: 'behind' }),
      verdict: { kind: 'needs_person', message: WORKFLOW },
    },
    {
      name: 'a 403 whatever the PR reads: up to date, even gone',
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
    {
      name: 'the head moved: decide again',
      current: pull({ headSha: Y }),
      verdict: { kind: 'stale_head' },
    },
    { name: 'nothing to bring in', current: pull(), verdict: { kind: 'up_to_date' } },
    {
      name: 'blocked, not behind: nothing to bring in',
      current: pull({ mergeableState: 'blocked' }),
      verdict: { kind: 'up_to_date' },
    },
    {
      name: 'a real conflict',
      current: pull({ mergeable: false, mergeableState: 'dirty' }),
      verdict: { kind: 'conflict' },
    },
    {
      name: 'mergeability not computed',
      current: pull({ mergeable: null, mergeableState: 'unknown' }),
      verdict: { kind: 'unknown' },
    },
    {
      name: 'still behind: the next event decides',
      current: pull({ mergeableState: 'behind' }),
      verdict: { kind: 'unknown' },
    },
    { name: 'closed meanwhile', current: pull({ open: false }), verdict: { kind: 'unknown' } },
    { name: 'gone', current: null, verdict: { kind: 'unknown' } },
  ])('$name', ({ refusal = unprocessable, current, verdict }) => {
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

// The 403 says what it means; a 422 is told apart by the PR as GitHub shows it afterwards.
describe('refusalNeedsPull', () => {
  it.each<[UpdateBranchRefusal, boolean]>([
    [
      { status: 403, message: 'refusing to allow a GitHub App to create or update workflow' },
      false,
    ],
    [{ status: 422, message: 'merge conflict between base and head' }, true],
  ])('%o: %s', (refusal, needed) => {
    expect(refusalNeedsPull(refusal)).toBe(needed);
  });
});
