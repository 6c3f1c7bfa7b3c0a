import { describe, expect, it } from 'vitest';
import { decideChangesRequested, type SubmittedReview } from '../../../src/core/lifecycle/index.js';
import type { TaskState } from '../../../src/core/states.js';

const REQUEST: SubmittedReview = {
  state: 'changes_requested',
  authorIsBot: false,
  authorCanWrite: true,
};
const IN_REVIEW = {
  state: 'in_review' as TaskState,
  runFinished: false,
  reviewAlreadySentBack: false,
  enqueued: false,
};

describe('decideChangesRequested', () => {
  it.each<{
    name: string;
    review?: Partial<SubmittedReview>;
    task?: Partial<typeof IN_REVIEW>;
    expected: 'send_back' | 'send_back_from_queue' | RegExp;
  }>([
    { name: 'changes requested by a writer on a PR in review', expected: 'send_back' },
    {
      name: 'on an approved PR: new feedback wins',
      task: { state: 'approved' },
      expected: 'send_back',
    },
    {
      name: 'upper case, as REST spells it',
      review: { state: 'CHANGES_REQUESTED' },
      expected: 'send_back',
    },
    {
      name: 'an approval is handled elsewhere',
      review: { state: 'approved' },
      expected: /approved review/,
    },
    {
      name: 'a plain comment review never starts work',
      review: { state: 'commented' },
      expected: /commented review/,
    },
    { name: 'a dismissed review', review: { state: 'dismissed' }, expected: /dismissed review/ },
    { name: 'a bot', review: { authorIsBot: true }, expected: /bots/ },
    { name: 'a reader, or a triager', review: { authorCanWrite: false }, expected: /cannot write/ },
    { name: 'a finished run', task: { runFinished: true }, expected: /run is finished/ },
    {
      name: 'the same review again (a redelivery)',
      task: { reviewAlreadySentBack: true },
      expected: /already sent back/,
    },
    { name: 'a worker is on it', task: { state: 'running' }, expected: /running/ },
    { name: 'dispatched', task: { state: 'dispatched' }, expected: /dispatched/ },
    { name: 'waiting for its next attempt', task: { state: 'pending' }, expected: /pending/ },
    { name: 'a direct merge in flight', task: { state: 'merging' }, expected: /merging/ },
    {
      // GitHub's queue lands it on its group's checks alone unless taken out.
      name: "in GitHub's merge queue",
      task: { state: 'merging', enqueued: true },
      expected: 'send_back_from_queue',
    },
    {
      name: 'in the merge queue, from a reader',
      review: { authorCanWrite: false },
      task: { state: 'merging', enqueued: true },
      expected: /cannot write/,
    },
    {
      name: 'already sent back, its PR still recorded in the queue',
      task: { state: 'pending', enqueued: true },
      expected: /pending/,
    },
    {
      name: 'cancelled, its PR still recorded in the queue',
      task: { state: 'cancelled', enqueued: true },
      expected: /cancelled/,
    },
    { name: 'merged', task: { state: 'merged' }, expected: /merged/ },
    { name: 'vetoed (/retry revives it)', task: { state: 'vetoed' }, expected: /vetoed/ },
  ])('$name', ({ review, task, expected }) => {
    const verdict = decideChangesRequested({ ...REQUEST, ...review }, { ...IN_REVIEW, ...task });
    if (expected === 'send_back')
      expect(verdict).toEqual({ kind: 'send_back', inMergeQueue: false });
    else if (expected === 'send_back_from_queue')
      expect(verdict).toEqual({ kind: 'send_back', inMergeQueue: true });
    else {
      expect(verdict.kind).toBe('ignore');
      expect(verdict.kind === 'ignore' && verdict.why).toMatch(expected);
    }
  });
});
