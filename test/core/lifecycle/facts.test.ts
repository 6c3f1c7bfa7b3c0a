import { describe, expect, it } from 'vitest';
import {
  attemptSucceeded,
  awaitsNoMerge,
  inMergeQueue,
  isRunCancelled,
  isOpenPull,
  mergeReleased,
  phaseWithRun,
} from '../../../src/core/lifecycle/index.js';

/** The named rules the engine asks instead of comparing states itself (docs/lifecycle.md). */
describe('lifecycle facts', () => {
  it('a merged PR is not open, whatever its state field says', () => {
    expect(isOpenPull({ state: 'open' })).toBe(true);
    expect(isOpenPull({ state: 'open', merged: true })).toBe(false);
    expect(isOpenPull({ state: 'closed', merged: false })).toBe(false);
  });

  it('gives a merge claim back to approved only while the task holds an approval', () => {
    const approved = 'abc1234';
    expect(mergeReleased({ state: 'in_review', approvedSha: approved })).toEqual({
      event: 'merge released',
      to: 'in_review',
    });
    expect(mergeReleased({ state: 'merging', approvedSha: approved })).toEqual({
      event: 'merge released',
      to: 'approved',
    });
    // Withdrawn while claimed (a dismissed review): the fields are empty, the state `merging`.
    expect(mergeReleased({ state: 'merging', approvedSha: null })).toEqual({
      event: 'merge released',
      to: 'in_review',
    });
  });

  it('counts a PR in the merge queue under a merge claim, or once its task awaits no merge', () => {
    const at = new Date();
    expect(inMergeQueue('merging', at)).toBe(true);
    expect(inMergeQueue('merging', null)).toBe(false);
    // Let go by the queue: the claim given back clears the record.
    expect(inMergeQueue('approved', at)).toBe(false);
    expect(inMergeQueue('in_review', at)).toBe(false);
    // Sent back to its worker while queued (a review asking for changes): still to be taken out.
    expect(inMergeQueue('pending', at)).toBe(true);
    expect(inMergeQueue('running', at)).toBe(true);
    expect(inMergeQueue('pending', null)).toBe(false);
    // Cancelled, vetoed or failed while queued: GitHub's queue holds it until it is taken out.
    expect(inMergeQueue('cancelled', at)).toBe(true);
    expect(inMergeQueue('vetoed', at)).toBe(true);
    expect(inMergeQueue('failed', at)).toBe(true);
    expect(inMergeQueue('cancelled', null)).toBe(false);
    expect(inMergeQueue('merged', at)).toBe(false);
  });

  it('a task awaits no merge while reworked or once ended unmerged; merged or in review it does', () => {
    for (const state of ['pending', 'running', 'vetoed', 'cancelled', 'failed', 'blocked'] as const)
      expect(awaitsNoMerge(state)).toBe(true);
    for (const state of ['in_review', 'approved', 'merging', 'merged'] as const)
      expect(awaitsNoMerge(state)).toBe(false);
  });

  it('a run is cancelled only in its cancelled state', () => {
    expect(isRunCancelled('cancelled')).toBe(true);
    expect(isRunCancelled('failed')).toBe(false);
    expect(isRunCancelled('done')).toBe(false);
  });

  it('an attempt succeeds only on success without a failure of its own', () => {
    expect(attemptSucceeded({ conclusion: 'success', failureReason: null })).toBe(true);
    expect(attemptSucceeded({ conclusion: 'success', failureReason: 'no_changes' })).toBe(false);
    expect(attemptSucceeded({ conclusion: 'failure', failureReason: null })).toBe(false);
  });

  it('an intent becomes dispatched once its run is known; other phases stay', () => {
    expect(phaseWithRun('intent')).toBe('dispatched');
    expect(phaseWithRun('running')).toBe('running');
  });
});
