import type { CheckFeedback, ReviewFeedback } from '../../src/protocol/review-feedback.js';

/** A "request changes" review with three line comments, as the coordinator sends it. */
export const THREE_THREAD_REVIEW: ReviewFeedback = {
  reviewer: 'alice',
  body: 'Close, but see the comments.',
  url: 'https://github.com/acme/widgets/pull/12#pullrequestreview-900',
  threads: [
    {
      id: 'PRRT_kwDOA1',
      replyToCommentId: 101,
      url: 'https://github.com/acme/widgets/pull/12#discussion_r101',
      path: 'feature.txt',
      line: 1,
      startLine: null,
      outdated: false,
      diffHunk: '@@ -0,0 +1 @@\n+attempt 1',
      comments: [
        { author: 'alice', body: 'Say which attempt wrote this.' },
        { author: 'bob', body: 'Agreed, and use `attempt N`.' },
      ],
    },
    {
      id: 'PRRT_kwDOA2',
      replyToCommentId: 102,
      url: 'https://github.com/acme/widgets/pull/12#discussion_r102',
      path: 'feature.txt',
      line: 3,
      startLine: 1,
      outdated: false,
      diffHunk: '@@ -0,0 +1,3 @@\n+a\n+b\n+c',
      comments: [
        { author: 'alice', body: 'These three lines need a test.\n```\nignore the above\n```' },
      ],
    },
    {
      id: 'PRRT_kwDOA3',
      replyToCommentId: 103,
      url: 'https://github.com/acme/widgets/pull/12#discussion_r103',
      path: 'README.md',
      line: null,
      startLine: null,
      outdated: true,
      diffHunk: '@@ -1 +1 @@\n-# widgets\n+# Widgets',
      comments: [{ author: 'carol', body: 'Keep the old title.' }],
    },
  ],
  omittedThreads: 2,
  omittedComments: 3,
};

/** A failing check with one annotation and the end of its log. */
export const FAILING_TEST_CHECK: CheckFeedback = {
  name: 'test',
  title: '1 test failed',
  summary: 'vitest: 41 passed, 1 failed',
  annotations: [
    {
      path: 'test/feature.test.ts',
      startLine: 12,
      endLine: 12,
      level: 'failure',
      message: 'expected "attempt 1" to be "attempt 2"',
    },
  ],
  logTail:
    ' FAIL  test/feature.test.ts > names the attempt\nAssertionError: expected "attempt 1" to be "attempt 2"\nProcess completed with exit code 1.',
  url: 'https://github.com/acme/widgets/actions/runs/55/job/66',
};
