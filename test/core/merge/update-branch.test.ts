import { describe, expect, it } from 'vitest';
import { decidePush } from '../../../src/core/lifecycle/index.js';
import { classifyUpdateRefusal } from '../../../src/core/merge/index.js';

const X = 'x'.repeat(40);
const Y = 'y'.repeat(40);
const Z = 'z'.repeat(40);

/** docs/lifecycle.md step 8: the coordinator's own update of a behind branch. */
describe('decidePush', () => {
  it.each([
    {
      name: "the update's push moves the approval to its head and keeps the update's turn",
      push: { before: X, after: Y, updateFrom: X, approvedSha: X },
      verdict: { work: false, approvedSha: Y, clearUpdate: false },
    },
    {
      name: 'the same push delivered again changes nothing',
      push: { before: X, after: Y, updateFrom: X, approvedSha: Y },
      verdict: { work: false, clearUpdate: false },
    },
    {
      name: 'an update of an unapproved head approves nothing',
      push: { before: X, after: Y, updateFrom: X, approvedSha: null },
      verdict: { work: false, clearUpdate: false },
    },
    {
      name: "a push on top of the update's head is new work and ends the update",
      push: { before: Y, after: Z, updateFrom: X, approvedSha: Y },
      verdict: { work: true, clearUpdate: true },
    },
    {
      name: 'a push racing the update (from the same head) is still work when it is not ours',
      push: { before: Z, after: Y, updateFrom: X, approvedSha: X },
      verdict: { work: true, clearUpdate: true },
    },
    {
      name: 'without an update every push is work',
      push: { before: X, after: Y, updateFrom: null, approvedSha: X },
      verdict: { work: true, clearUpdate: false },
    },
  ])('$name', ({ push, verdict }) => {
    expect(decidePush(push)).toEqual(verdict);
  });
});

/** GitHub's 422 to update-branch, sorted by the PR as GitHub shows it afterwards. */
describe('classifyUpdateRefusal', () => {
  const pull = (over: Partial<Parameters<typeof classifyUpdateRefusal>[1] & object> = {}) => ({
    headSha: X,
    mergeable: true,
    mergeableState: 'clean',
    open: true,
    ...over,
  });
  it.each([
    { name: 'the head moved: decide again', current: pull({ headSha: Y }), kind: 'stale_head' },
    { name: 'nothing to bring in', current: pull(), kind: 'up_to_date' },
    {
      name: 'blocked, not behind: nothing to bring in',
      current: pull({ mergeableState: 'blocked' }),
      kind: 'up_to_date',
    },
    {
      name: 'a real conflict',
      current: pull({ mergeable: false, mergeableState: 'dirty' }),
      kind: 'conflict',
    },
    {
      name: 'mergeability not computed',
      current: pull({ mergeable: null, mergeableState: 'unknown' }),
      kind: 'unknown',
    },
    {
      name: 'still behind: the next event decides',
      current: pull({ mergeableState: 'behind' }),
      kind: 'unknown',
    },
    { name: 'closed meanwhile', current: pull({ open: false }), kind: 'unknown' },
    { name: 'gone', current: null, kind: 'unknown' },
  ])('$name', ({ current, kind }) => {
    expect(classifyUpdateRefusal(X, current).kind).toBe(kind);
  });
});
