import { describe, expect, it } from 'vitest';
import {
  decideAttemptCompleted,
  decideRunAdoption,
  describeAttemptFailure,
  isOpenPullOfRepository,
  namedWorkerRun,
  readsAgentPull,
  type AttemptCompletedEffect,
  type AttemptCompletedEvent,
  type AttemptCompletedSnapshot,
} from '../../../src/core/lifecycle/index.js';
import { agentConfigMarker, usageMarker } from '../../../src/protocol/markers.js';
import { runName } from '../../../src/protocol/run-name.js';

const USAGE = { costUsd: 1.5, inputTokens: 1000, outputTokens: 200 };
/** What the agent job said the attempt spent: the PR's marker holds the task's total. */
const SAID = { costUsd: 0.5, inputTokens: 300, outputTokens: 20 };
const BODY = `Work.\n\n${usageMarker(USAGE)}\n${agentConfigMarker(['CLAUDE.md'])}`;
const withPull: AttemptCompletedSnapshot = { pull: { body: BODY } };
const noPull: AttemptCompletedSnapshot = { pull: null };
const inReview: AttemptCompletedEffect[] = [
  { kind: 'requestReviewAgain' },
  { kind: 'enforceBudget' },
  { kind: 'requestStatus' },
  { kind: 'advance' },
];
const succeeded = { conclusion: 'success', failureReason: null, costUsd: 1.5 };

/** docs/lifecycle.md steps 6–7 and "Failures": an attempt's work ended. */
describe('decideAttemptCompleted', () => {
  it.each<{
    name: string;
    snapshot: AttemptCompletedSnapshot;
    event: AttemptCompletedEvent;
    reads: boolean;
    expected: AttemptCompletedEffect[];
  }>([
    {
      name: 'success with a PR: charged what its agent job said, never the marker, then review, budget, merges',
      snapshot: withPull,
      event: { kind: 'succeeded', usage: SAID },
      reads: true,
      expected: [
        {
          kind: 'completeIntoReview',
          spend: { kind: 'own', usage: SAID },
          agentConfigChanged: ['CLAUDE.md'],
        },
        ...inReview,
      ],
    },
    {
      name: 'success with a PR whose job said nothing (an older worker): its share of the marker',
      snapshot: withPull,
      event: { kind: 'succeeded' },
      reads: true,
      expected: [
        {
          kind: 'completeIntoReview',
          spend: { kind: 'markerTotal', total: USAGE },
          agentConfigChanged: ['CLAUDE.md'],
        },
        ...inReview,
      ],
    },
    {
      name: 'success with a PR without markers, whose job said nothing',
      snapshot: { pull: { body: '' } },
      event: { kind: 'succeeded' },
      reads: true,
      expected: [
        { kind: 'completeIntoReview', spend: undefined, agentConfigChanged: [] },
        ...inReview,
      ],
    },
    {
      name: 'success without a PR: no_changes, charged what its job said, retried or failed',
      snapshot: noPull,
      event: { kind: 'succeeded', usage: SAID },
      reads: true,
      expected: [
        {
          kind: 'completeWithoutPull',
          failureReason: 'no_changes',
          spend: { kind: 'own', usage: SAID },
        },
        { kind: 'retryOrFail', reason: 'the worker finished without a pull request (no_changes)' },
      ],
    },
    {
      name: 'a failed run: its conclusion is the reason',
      snapshot: noPull,
      event: { kind: 'failed', conclusion: 'failure' },
      reads: false,
      expected: [
        { kind: 'completeFailed', conclusion: 'failure', failureReason: 'failure' },
        { kind: 'retryOrFail', reason: 'the worker run ended with failure' },
      ],
    },
    {
      name: 'a failed run whose worker said why',
      snapshot: noPull,
      event: {
        kind: 'failed',
        conclusion: 'failure',
        workerReason: 'workflow_files_changed: .github/workflows/ci.yml',
      },
      reads: false,
      expected: [
        {
          kind: 'completeFailed',
          conclusion: 'failure',
          failureReason: 'workflow_files_changed: .github/workflows/ci.yml',
        },
        {
          kind: 'retryOrFail',
          reason: 'the worker failed: workflow_files_changed: .github/workflows/ci.yml',
        },
      ],
    },
    {
      name: 'a failed run that spent: charged, and the budget checked before the retry',
      snapshot: noPull,
      event: {
        kind: 'failed',
        conclusion: 'failure',
        workerReason: 'no_changes: the agent left no changes to commit',
        usage: { costUsd: 0.04, inputTokens: 100, outputTokens: 20 },
      },
      reads: false,
      expected: [
        {
          kind: 'completeFailed',
          conclusion: 'failure',
          failureReason: 'no_changes: the agent left no changes to commit',
          usage: { costUsd: 0.04, inputTokens: 100, outputTokens: 20 },
        },
        { kind: 'enforceBudget' },
        {
          kind: 'retryOrFail',
          reason: 'the worker failed: no_changes: the agent left no changes to commit',
        },
      ],
    },
    {
      name: 'a failed run that had opened a PR: the PR is not read, the attempt fails',
      snapshot: withPull,
      event: { kind: 'failed', conclusion: 'cancelled' },
      reads: false,
      expected: [
        { kind: 'completeFailed', conclusion: 'cancelled', failureReason: 'cancelled' },
        { kind: 'retryOrFail', reason: 'the worker run ended with cancelled' },
      ],
    },
    {
      name: 'resumed after a success: the PR goes into review',
      snapshot: withPull,
      event: { kind: 'resumed', attempt: succeeded },
      reads: true,
      expected: [{ kind: 'enterReview', agentConfigChanged: ['CLAUDE.md'] }, ...inReview],
    },
    {
      name: 'resumed after a success whose PR was closed since: its closed event decides',
      snapshot: noPull,
      event: { kind: 'resumed', attempt: succeeded },
      reads: true,
      expected: [
        { kind: 'none', reason: 'the PR is gone since (closed): its closed event decides' },
      ],
    },
    {
      name: 'resumed after no_changes: retried or failed',
      snapshot: noPull,
      event: {
        kind: 'resumed',
        attempt: { conclusion: 'success', failureReason: 'no_changes', costUsd: null },
      },
      reads: false,
      expected: [
        { kind: 'retryOrFail', reason: 'the worker finished without a pull request (no_changes)' },
      ],
    },
    {
      name: 'resumed after a failure',
      snapshot: noPull,
      event: {
        kind: 'resumed',
        attempt: { conclusion: 'cancelled', failureReason: 'cancelled', costUsd: null },
      },
      reads: false,
      expected: [{ kind: 'retryOrFail', reason: 'the worker run ended with cancelled' }],
    },
    {
      name: 'resumed after a failure that spent: the budget is checked before the retry',
      snapshot: noPull,
      event: {
        kind: 'resumed',
        attempt: { conclusion: 'failure', failureReason: 'no_changes: nothing', costUsd: 0.5 },
      },
      reads: false,
      expected: [
        { kind: 'enforceBudget' },
        { kind: 'retryOrFail', reason: 'the worker failed: no_changes: nothing' },
      ],
    },
  ])('$name', ({ snapshot, event, reads, expected }) => {
    expect(readsAgentPull(event)).toBe(reads);
    expect(decideAttemptCompleted(snapshot, event)).toEqual(expected);
  });
});

describe('describeAttemptFailure', () => {
  it.each([
    {
      failureReason: 'no_changes',
      conclusion: 'success',
      text: 'the worker finished without a pull request (no_changes)',
    },
    {
      failureReason: 'agent_failed: 3 tests failing',
      conclusion: 'failure',
      text: 'the worker failed: agent_failed: 3 tests failing',
    },
    {
      failureReason: 'startup_failure',
      conclusion: 'startup_failure',
      text: 'the worker run ended with startup_failure',
    },
    { failureReason: null, conclusion: 'failure', text: 'the worker run ended with failure' },
    { failureReason: null, conclusion: null, text: 'the worker run ended with failure' },
  ])('$failureReason, $conclusion', ({ text, ...attempt }) => {
    expect(describeAttemptFailure(attempt)).toBe(text);
  });
});

/** Which attempt a workflow run GitHub announced without a known id belongs to. */
describe('namedWorkerRun and decideRunAdoption', () => {
  const title = runName(12, 'api', 2);
  it.each([
    {
      name: 'its name and branch agree',
      headBranch: 'agent/12/api',
      displayTitle: title,
      named: { issueNumber: 12, taskKey: 'api', attempt: 2 },
    },
    { name: 'another branch', headBranch: 'agent/12/web', displayTitle: title, named: null },
    { name: 'no branch', headBranch: null, displayTitle: title, named: null },
    {
      name: 'a name we did not choose',
      headBranch: 'agent/12/api',
      displayTitle: 'CI',
      named: null,
    },
  ])('$name', ({ headBranch, displayTitle, named }) => {
    expect(namedWorkerRun({ headBranch, displayTitle })).toEqual(named);
  });

  it.each([
    {
      name: 'an attempt with no run yet adopts it',
      workflowRunId: null,
      expected: { kind: 'adopt' },
    },
    { name: 'the run the attempt knows', workflowRunId: 9, expected: { kind: 'tracked' } },
    {
      name: 'an attempt that knows another run',
      workflowRunId: 8,
      expected: { kind: 'none', reason: 'the attempt tracks another workflow run' },
    },
  ])('$name', ({ workflowRunId, expected }) => {
    expect(decideRunAdoption({ workflowRunId }, 9)).toEqual(expected);
  });
});

describe('isOpenPullOfRepository', () => {
  it.each([
    { name: 'open, this repository', state: 'open', merged: false, headRepoId: 1, is: true },
    { name: 'closed', state: 'closed', merged: false, headRepoId: 1, is: false },
    { name: 'merged', state: 'closed', merged: true, headRepoId: 1, is: false },
    { name: 'a fork', state: 'open', merged: false, headRepoId: 2, is: false },
    { name: 'a deleted fork', state: 'open', merged: false, headRepoId: null, is: false },
  ])('$name', ({ is, ...pull }) => {
    expect(isOpenPullOfRepository(pull, 1)).toBe(is);
  });
});
