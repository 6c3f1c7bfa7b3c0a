import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { replyMarker } from '../../src/protocol/markers.js';
import { readSection } from '../../src/protocol/pull-sections.js';
import { git } from './helpers/git-fixture.js';
import { API, pullFixture, REPO, strictGitHub } from './helpers/github-mock.js';
import { createHarness, type Harness } from './helpers/harness.js';
import { FAILING_TEST_CHECK, THREE_THREAD_REVIEW } from './feedback-fixture.js';

const BRANCH = 'agent/7/task_001';
const HEAD_QUERY = { head: `acme:${BRANCH}`, state: 'open', per_page: '100' };
const PR_BODY = [
  'Task `task_001`: Add the feature file',
  'Part of #7',
  '<!-- agent-coordinator:task issue=7 task=task_001 attempt=1 -->',
].join('\n\n');

strictGitHub();

let h: Harness;
beforeEach(() => {
  h = createHarness(BRANCH);
  h.fx.commitOnOrigin(BRANCH, { 'feature.txt': 'attempt 1\n' }, 'task_001: Add the feature file');
});
afterEach(() => h.fx.cleanup());

/** A pull request review comment as GitHub's REST API returns one (pull-request-review-comment). */
function reviewComment(id: number, body: string, inReplyTo?: number, login = 'alice') {
  return {
    url: `${API}${REPO}/pulls/comments/${id}`,
    id,
    node_id: `PRRC_${id}`,
    pull_request_review_id: 900,
    diff_hunk: '@@ -0,0 +1 @@\n+attempt 1',
    path: 'feature.txt',
    commit_id: 'a'.repeat(40),
    original_commit_id: 'a'.repeat(40),
    ...(inReplyTo === undefined ? {} : { in_reply_to_id: inReplyTo }),
    user: { login, id: 1, type: login.endsWith('[bot]') ? 'Bot' : 'User' },
    body,
    created_at: '2026-12-01T12:00:00Z',
    updated_at: '2026-12-01T12:00:00Z',
    html_url: `https://github.com/acme/widgets/pull/12#discussion_r${id}`,
    pull_request_url: `${API}${REPO}/pulls/12`,
    author_association: 'MEMBER',
    _links: {
      self: { href: `${API}${REPO}/pulls/comments/${id}` },
      html: { href: `https://github.com/acme/widgets/pull/12#discussion_r${id}` },
      pull_request: { href: `${API}${REPO}/pulls/12` },
    },
  };
}

const ORIGINALS = [
  reviewComment(101, 'Say which attempt wrote this.'),
  reviewComment(102, 'These three lines need a test.'),
  reviewComment(103, 'Keep the old title.'),
];

function expectPullUpdate(): { body?: string } {
  const seen: { body?: string } = {};
  nock(API)
    .get(`${REPO}/pulls`)
    .query(HEAD_QUERY)
    .reply(200, [pullFixture(12, BRANCH, PR_BODY)]);
  nock(API)
    .patch(`${REPO}/pulls/12`, (body: { body: string }) => {
      seen.body = body.body;
      return true;
    })
    .reply(200, pullFixture(12, BRANCH, ''));
  return seen;
}

/** The PR's review comments as GitHub lists them: the threads' starters, then `replies`. */
function expectReviewComments(replies: ReturnType<typeof reviewComment>[] = []): void {
  nock(API)
    .get(`${REPO}/pulls/12/comments`)
    .query({ per_page: '100' })
    .reply(200, [...ORIGINALS, ...replies]);
}

/**
 * Replies to the given thread starters, as `POST /pulls/{n}/comments` with `in_reply_to`
 * (the route GitHub enables for Apps), answered as GitHub does: 201 and the new comment.
 */
function expectReplies(ids: number[], status = 201): Map<number, string> {
  const replies = new Map<number, string>();
  for (const id of ids) {
    nock(API)
      .post(`${REPO}/pulls/12/comments`, (body: { in_reply_to?: number; body: string }) => {
        if (body.in_reply_to !== id) return false;
        replies.set(id, body.body);
        return true;
      })
      .reply(status, (_uri, body) =>
        status === 201
          ? reviewComment(500 + id, (body as { body: string }).body, id, 'agent-coordinator[bot]')
          : { message: 'Resource not accessible by integration', status: String(status) },
      );
  }
  return replies;
}

const fixRun = { mode: 'fix', attempt: '2', FAKE_AGENT: 'write' };
const feedback = { review: THREE_THREAD_REVIEW, checks: [FAILING_TEST_CHECK] };

describe('answering the review', () => {
  it('gives the agent the threads and the check, then replies in each thread with the commit or why not', async () => {
    const pull = expectPullUpdate();
    expectReviewComments();
    const replies = expectReplies([101, 102, 103]);

    const result = await h.run(fixRun, h.fx.freshWorkspace(BRANCH), feedback);

    expect(result.outcome).toMatchObject({ ok: true, pullRequest: { number: 12 } });
    expect(result.outcome.ok && result.outcome.summary).toContain('answered 3 of 3 review threads');
    const stdin = h.record()!.stdin;
    expect(stdin).toContain('### Thread 2: feature.txt, lines 1-3');
    expect(stdin).toContain(
      'test/feature.test.ts:12 failure: expected "attempt 1" to be "attempt 2"',
    );

    const head = h.fx.originRev(BRANCH);
    expect(git(h.fx.origin, 'show', `${BRANCH}:feature.txt`)).toBe('attempt 2');
    // The agent changed feature.txt: those two threads are addressed by the pushed commit.
    expect(replies.get(101)).toBe(`Addressed in ${head}.\n\n${replyMarker('task_001', 2, 101)}\n`);
    expect(replies.get(102)).toBe(`Addressed in ${head}.\n\n${replyMarker('task_001', 2, 102)}\n`);
    expect(replies.get(103)).toBe(
      `Attempt 2 (${head}) did not change README.md: the agent left that file as it was. What it did instead is summarised in the pull request description.\n\n${replyMarker('task_001', 2, 103)}\n`,
    );

    expect(readSection(pull.body, 'history')).toContain(
      '| 2 | fix | pushed | $0.25 | 1000 / 200 | [run](https://github.com/acme/widgets/actions/runs/987654321) | changes requested by alice (5 threads, 2 left out); failing: test |',
    );
  });

  it('does not answer twice when the job is re-run: threads already answered by this attempt are skipped', async () => {
    expectPullUpdate();
    expectReviewComments([
      reviewComment(
        601,
        `Addressed in ${'b'.repeat(40)}.\n\n${replyMarker('task_001', 2, 101)}\n`,
        101,
        'agent-coordinator[bot]',
      ),
      // An earlier attempt's reply does not count for this one.
      reviewComment(
        602,
        `Addressed in ${'c'.repeat(40)}.\n\n${replyMarker('task_001', 1, 102)}\n`,
        102,
        'agent-coordinator[bot]',
      ),
    ]);
    const replies = expectReplies([102, 103]);

    const result = await h.run(fixRun, h.fx.freshWorkspace(BRANCH), feedback);

    expect(result.outcome.ok && result.outcome.summary).toContain('answered 3 of 3 review threads');
    expect([...replies.keys()].sort()).toEqual([102, 103]);
    expect(result.log).toContain('answered 2 review thread(s), 1 already answered');
  });

  it("takes a reply with the marker as answered only when it is the App's", async () => {
    expectPullUpdate();
    expectReviewComments([
      // A reader writes this attempt's marker first, to keep the worker's reply out.
      reviewComment(601, `Done.\n\n${replyMarker('task_001', 2, 101)}\n`, 101, 'a-reader'),
      reviewComment(602, `Done.\n\n${replyMarker('task_001', 2, 102)}\n`, 102, 'other[bot]'),
    ]);
    const replies = expectReplies([101, 102, 103]);

    const result = await h.run(fixRun, h.fx.freshWorkspace(BRANCH), feedback);

    expect([...replies.keys()].sort()).toEqual([101, 102, 103]);
    expect(result.log).toContain('answered 3 review thread(s)');
  });

  it('keeps the pushed work when GitHub refuses a reply, and says so in the log', async () => {
    expectPullUpdate();
    expectReviewComments();
    expectReplies([101, 102]);
    expectReplies([103], 403);

    const result = await h.run(fixRun, h.fx.freshWorkspace(BRANCH), feedback);

    expect(result.outcome).toMatchObject({ ok: true });
    expect(result.outcome.ok && result.outcome.summary).toContain('answered 2 of 3 review threads');
    expect(result.log).toContain(
      'could not reply in the thread on README.md (comment 103): GitHub answered 403',
    );
  });
});
