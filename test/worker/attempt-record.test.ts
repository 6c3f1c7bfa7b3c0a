import { describe, expect, it } from 'vitest';
import { feedbackSummary } from '../../src/worker/attempt-record.js';
import { FAILING_TEST_CHECK, THREE_THREAD_REVIEW } from './feedback-fixture.js';

type AttemptEnv = Parameters<typeof feedbackSummary>[0];

const env: AttemptEnv = {
  attempt: 2,
  mode: 'fix',
  serverUrl: 'https://github.com',
  owner: 'acme',
  repo: 'widgets',
  runId: '987',
  feedback: '',
  checks: [],
};

describe("an attempt's row in the PR's history: what it was asked to address", () => {
  it.each<[string, AttemptEnv, string]>([
    [
      'a review, its threads and those left out',
      { ...env, review: THREE_THREAD_REVIEW },
      'changes requested by alice (5 threads, 2 left out)',
    ],
    [
      'threads past what the coordinator reads, said where the reviewer sees it',
      { ...env, review: { ...THREE_THREAD_REVIEW, omittedThreads: 1002, unreadThreads: 1000 } },
      'changes requested by alice (1005 threads, 1002 left out (1000 not read))',
    ],
    [
      'a review and a failing check',
      {
        ...env,
        review: { ...THREE_THREAD_REVIEW, omittedThreads: 0 },
        checks: [FAILING_TEST_CHECK],
      },
      'changes requested by alice (3 threads); failing: test',
    ],
    ['text feedback alone', { ...env, feedback: 'Use  the\nhelper.' }, '"Use the helper."'],
  ])('%s', (_, record, expected) => {
    expect(feedbackSummary(record)).toBe(expected);
  });
});
