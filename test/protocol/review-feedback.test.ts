import { describe, expect, it } from 'vitest';
import { assignmentResponseSchema } from '../../src/protocol/assignment.js';
import { agentStopTime, stopGraceMs } from '../../src/protocol/deadline.js';
import {
  boundChecks,
  boundReview,
  FEEDBACK_LIMITS,
  reviewFeedbackSchema,
  checksFeedbackSchema,
  type ReviewThread,
} from '../../src/protocol/review-feedback.js';

const thread = (n: number): ReviewThread => ({
  id: `PRRT_${n}`,
  replyToCommentId: n,
  url: `https://github.com/acme/widgets/pull/12#discussion_r${n}`,
  path: 'src/a.ts',
  line: 3,
  startLine: null,
  outdated: false,
  diffHunk: '@@ -1,3 +1,3 @@\n a\n-b\n+c',
  comments: [{ author: 'alice', body: 'Rename this.' }],
});

describe('review feedback bounds', () => {
  it('keeps the newest threads within the bound and counts the rest as left out', () => {
    const review = boundReview({
      reviewer: 'alice',
      body: 'x'.repeat(FEEDBACK_LIMITS.reviewBodyChars + 50),
      url: 'https://github.com/acme/widgets/pull/12#pullrequestreview-1',
      threads: Array.from({ length: FEEDBACK_LIMITS.threads + 3 }, (_, i) => thread(i + 1)),
      omittedThreads: 2,
    });
    expect(review.threads.map((t) => t.id).slice(0, 2)).toEqual(['PRRT_1', 'PRRT_2']);
    expect(review.threads).toHaveLength(FEEDBACK_LIMITS.threads);
    expect(review.omittedThreads).toBe(5);
    expect(review.body.length).toBe(FEEDBACK_LIMITS.reviewBodyChars);
    expect(review.body.endsWith('… (cut)')).toBe(true);
    expect(reviewFeedbackSchema.safeParse(review).success).toBe(true);
  });

  it("keeps a log's tail and a hunk's end, where the failure and the commented line are", () => {
    const log = `${'noise\n'.repeat(5000)}FAIL test/a.test.ts`;
    const [check] = boundChecks([
      {
        name: 'test',
        title: null,
        summary: null,
        annotations: [],
        logTail: log,
        url: null,
      },
    ]);
    expect(check!.logTail!.length).toBe(FEEDBACK_LIMITS.logTailChars);
    expect(check!.logTail!.startsWith('… (cut)\n')).toBe(true);
    expect(check!.logTail!.endsWith('FAIL test/a.test.ts')).toBe(true);
    expect(checksFeedbackSchema.safeParse([check]).success).toBe(true);
  });

  it('is refused past its bounds, as any malformed assignment is', () => {
    const base = {
      token: 't',
      expires_at: '2026-01-01T00:00:00Z',
      task_id: 'task_001',
      issue: '7',
      attempt: '2',
      mode: 'fix',
      title: null,
      prompt: null,
      feedback: null,
      base: null,
      model: null,
      max_turns: null,
      timeout_minutes: null,
    };
    const review = {
      reviewer: 'alice',
      body: '',
      url: 'u',
      threads: [thread(1)],
      omittedThreads: 0,
    };
    expect(assignmentResponseSchema.safeParse({ ...base, review }).success).toBe(true);
    expect(assignmentResponseSchema.safeParse(base).success).toBe(true);
    const long = { ...thread(1), diffHunk: 'x'.repeat(FEEDBACK_LIMITS.hunkChars + 1) };
    const parsed = assignmentResponseSchema.safeParse({
      ...base,
      review: { ...review, threads: [long] },
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path).toEqual(['review', 'threads', 0, 'diffHunk']);
  });
});

describe('the stop deadline', () => {
  it.each([
    // limit (min), grace (min): two minutes, a tenth, at most half
    [1, 0.5],
    [3, 1.5],
    [10, 2],
    [20, 2],
    [30, 3],
    [340, 34],
  ])('a %s-minute limit keeps %s minutes of grace', (minutes, grace) => {
    expect(stopGraceMs(minutes * 60_000)).toBe(grace * 60_000);
    expect(agentStopTime(1_000_000_000, minutes)).toBe(1_000_000_000 - grace * 60_000);
  });
});
