import { Octokit } from '@octokit/rest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectClean, startWorld, stopWorld, userOctokit, type World } from './helpers.js';

const owner = 'acme';
const repoName = 'widgets';
const BOT = 'agent-coordinator[bot]';
const SOURCE = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'].join('\n') + '\n';

/** Reviews with line comments, their threads, replies, resolution and outdating, as on GitHub. */
describe('pulls: reviews with line comments and review threads', () => {
  let w: World;
  beforeEach(async () => {
    w = await startWorld();
    await w.double.setPermission(w.repo, 'rita', 'write');
    await w.double.setPermission(w.repo, 'reader', 'read');
  });
  afterEach(async () => {
    await stopWorld(w);
    expectClean(w.double);
  });

  // An agent PR that adds src/app.ts (eight lines).
  async function agentPr(): Promise<number> {
    return w.double.openPr(w.repo, {
      head: 'agent/1/task_001',
      title: 'Task 1',
      by: BOT,
      files: { 'src/app.ts': SOURCE },
    });
  }

  const threadsQuery = `query($owner: String!, $name: String!, $number: Int!, $last: Int, $before: String) {
    repository(owner: $owner, name: $name) {
      pullRequest(number: $number) {
        reviewThreads(last: $last, before: $before) {
          totalCount
          pageInfo { hasPreviousPage startCursor }
          nodes {
            id isResolved isOutdated path line startLine diffSide originalLine
            comments(first: 10) { totalCount nodes { body author { login } url diffHunk createdAt } }
          }
        }
      }
    }
  }`;

  interface ThreadsAnswer {
    repository: {
      pullRequest: {
        reviewThreads: {
          totalCount: number;
          pageInfo: { hasPreviousPage: boolean; startCursor: string | null };
          nodes: Array<{
            id: string;
            isResolved: boolean;
            isOutdated: boolean;
            path: string;
            line: number | null;
            startLine: number | null;
            diffSide: string;
            originalLine: number;
            comments: {
              totalCount: number;
              nodes: Array<{
                body: string;
                author: { login: string };
                url: string;
                diffHunk: string;
                createdAt: string;
              }>;
            };
          }>;
        };
      };
    };
  }

  function threads(number: number, vars: { last?: number; before?: string } = {}) {
    return w.octokit.graphql<ThreadsAnswer>(threadsQuery, {
      owner,
      name: repoName,
      number,
      last: vars.last ?? 50,
      ...(vars.before ? { before: vars.before } : {}),
    });
  }

  it('a "request changes" review with line comments opens one thread each and sends their webhooks', async () => {
    const n = await agentPr();
    const reviewId = await w.double.review(w.repo, n, {
      event: 'REQUEST_CHANGES',
      body: 'A few things.',
      by: 'rita',
      comments: [
        { path: 'src/app.ts', line: 2, body: 'Name this better.' },
        { path: 'src/app.ts', startLine: 4, line: 6, side: 'RIGHT', body: 'Split this block.' },
      ],
    });
    await w.double.waitForDeliveries();
    expect(w.receiver.names().slice(-3)).toEqual([
      'pull_request_review_comment.created',
      'pull_request_review_comment.created',
      'pull_request_review.submitted',
    ]);
    const submitted = w.receiver.of('pull_request_review', 'submitted')[0]!.payload;
    expect(submitted['review']).toMatchObject({
      id: reviewId,
      state: 'changes_requested',
      body: 'A few things.',
      user: { login: 'rita' },
    });
    const created = w.receiver.of('pull_request_review_comment', 'created')[1]!.payload;
    expect(created['comment']).toMatchObject({
      pull_request_review_id: reviewId,
      path: 'src/app.ts',
      line: 6,
      start_line: 4,
      side: 'RIGHT',
      start_side: 'RIGHT',
      body: 'Split this block.',
      user: { login: 'rita' },
    });

    const { data: reviews } = await w.octokit.rest.pulls.listReviews({
      owner,
      repo: repoName,
      pull_number: n,
    });
    expect(reviews.map((r) => [r.user?.login, r.state])).toEqual([['rita', 'CHANGES_REQUESTED']]);
    const { data: comments } = await w.octokit.rest.pulls.listReviewComments({
      owner,
      repo: repoName,
      pull_number: n,
    });
    expect(comments.map((c) => [c.line, c.position, c.diff_hunk.split('\n')[0]])).toEqual([
      [2, 2, '@@ -0,0 +1,8 @@'],
      [6, 6, '@@ -0,0 +1,8 @@'],
    ]);
    // The hunk quotes the diff up to the commented line.
    expect(comments[1]!.diff_hunk.split('\n').slice(1)).toEqual([
      '+one',
      '+two',
      '+three',
      '+four',
      '+five',
      '+six',
    ]);

    const answer = await threads(n);
    const list = answer.repository.pullRequest.reviewThreads;
    expect(list.totalCount).toBe(2);
    expect(list.nodes[1]).toMatchObject({
      isResolved: false,
      isOutdated: false,
      path: 'src/app.ts',
      line: 6,
      startLine: 4,
      diffSide: 'RIGHT',
      comments: {
        totalCount: 1,
        nodes: [
          {
            body: 'Split this block.',
            author: { login: 'rita' },
            url: `${w.double.url}/acme/widgets/pull/${n}#discussion_r${comments[1]!.id}`,
            diffHunk: comments[1]!.diff_hunk,
          },
        ],
      },
    });
  });

  it('refuses a comment off the diff (the whole review) and changes requested on your own PR', async () => {
    const n = await agentPr();
    const review = (comments: Array<{ path: string; line: number; body: string }>) =>
      userOctokit(w.double, 'rita').rest.pulls.createReview({
        owner,
        repo: repoName,
        pull_number: n,
        event: 'REQUEST_CHANGES',
        body: 'No.',
        comments,
      });
    await expect(review([{ path: 'README.md', line: 1, body: 'x' }])).rejects.toMatchObject({
      status: 422,
      response: { data: { errors: [{ message: 'Path could not be resolved' }] } },
    });
    await expect(
      review([
        { path: 'src/app.ts', line: 1, body: 'fine' },
        { path: 'src/app.ts', line: 40, body: 'past the end' },
      ]),
    ).rejects.toMatchObject({
      status: 422,
      response: { data: { errors: [{ message: 'Line could not be resolved' }] } },
    });
    expect(w.double.reviews(w.repo, n)).toEqual([]);
    expect(w.double.reviewThreads(w.repo, n)).toEqual([]);
    await expect(
      w.octokit.rest.pulls.createReview({
        owner,
        repo: repoName,
        pull_number: n,
        event: 'REQUEST_CHANGES',
        body: 'Mine.',
      }),
    ).rejects.toMatchObject({
      status: 422,
      response: {
        data: { errors: [{ message: 'Can not request changes on your own pull request' }] },
      },
    });
    await expect(
      w.octokit.rest.pulls.createReview({
        owner,
        repo: repoName,
        pull_number: n,
        event: 'APPROVE',
      }),
    ).rejects.toMatchObject({ status: 422 });
  });

  it('a reply joins the thread as a one-comment COMMENTED review; a reply to a reply too', async () => {
    const n = await agentPr();
    await w.double.review(w.repo, n, {
      event: 'REQUEST_CHANGES',
      body: 'See line 2.',
      by: 'rita',
      comments: [{ path: 'src/app.ts', line: 2, body: 'Rename.' }],
    });
    const [root] = w.double.reviewThreads(w.repo, n)[0]!.comments;
    const { data: reply } = await w.octokit.rest.pulls.createReplyForReviewComment({
      owner,
      repo: repoName,
      pull_number: n,
      comment_id: root!.id,
      body: 'Renamed in abc123.',
    });
    expect(reply).toMatchObject({
      in_reply_to_id: root!.id,
      path: 'src/app.ts',
      line: 2,
      user: { login: BOT },
      body: 'Renamed in abc123.',
    });
    const again = await w.double.replyToReviewComment(w.repo, n, reply.id, 'Thanks!', 'rita');
    expect(w.double.reviewThreads(w.repo, n)).toMatchObject([
      {
        comments: [
          { id: root!.id, inReplyTo: null },
          { id: reply.id, inReplyTo: root!.id, user: BOT },
          { id: again, inReplyTo: root!.id, user: 'rita' },
        ],
      },
    ]);
    expect(w.double.reviews(w.repo, n).map((r) => [r.user, r.state])).toEqual([
      ['rita', 'CHANGES_REQUESTED'],
      [BOT, 'COMMENTED'],
      ['rita', 'COMMENTED'],
    ]);
    await w.double.waitForDeliveries();
    expect(w.receiver.names().slice(-2)).toEqual([
      'pull_request_review_comment.created',
      'pull_request_review.submitted',
    ]);
    await expect(
      w.octokit.rest.pulls.createReplyForReviewComment({
        owner,
        repo: repoName,
        pull_number: n,
        comment_id: 123,
        body: 'nowhere',
      }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('POST .../pulls/{n}/comments with in_reply_to replies in the thread, ignoring every other field', async () => {
    const n = await agentPr();
    await w.double.review(w.repo, n, {
      event: 'REQUEST_CHANGES',
      body: 'Two things.',
      by: 'rita',
      comments: [
        { path: 'src/app.ts', line: 2, body: 'Rename.' },
        { path: 'src/app.ts', line: 6, body: 'Split.' },
      ],
    });
    const [, second] = w.double.reviewThreads(w.repo, n);
    const root = second!.comments[0]!;
    const before = w.receiver.received.length;
    const { status, data: reply } = await w.octokit.rest.pulls.createReviewComment({
      owner,
      repo: repoName,
      pull_number: n,
      in_reply_to: root.id,
      body: 'Split in abc123.',
      // GitHub ignores these with in_reply_to: the reply sits where the thread does.
      commit_id: w.double.branch(w.repo, 'agent/1/task_001')!.sha,
      path: 'elsewhere.ts',
      line: 1,
    });
    expect(status).toBe(201);
    expect(reply).toMatchObject({
      in_reply_to_id: root.id,
      path: 'src/app.ts',
      line: 6,
      user: { login: BOT },
      body: 'Split in abc123.',
    });
    expect(w.double.reviewThreads(w.repo, n).map((t) => t.comments.map((c) => c.id))).toEqual([
      [w.double.reviewThreads(w.repo, n)[0]!.comments[0]!.id],
      [root.id, reply.id],
    ]);
    expect(w.double.reviews(w.repo, n).map((r) => [r.user, r.state])).toEqual([
      ['rita', 'CHANGES_REQUESTED'],
      [BOT, 'COMMENTED'],
    ]);
    await w.double.waitForDeliveries();
    expect(w.receiver.names().slice(before)).toEqual([
      'pull_request_review_comment.created',
      'pull_request_review.submitted',
    ]);
    const { data: listed } = await w.octokit.rest.pulls.listReviewComments({
      owner,
      repo: repoName,
      pull_number: n,
    });
    expect(listed.map((c) => [c.id, c.in_reply_to_id ?? null])).toEqual([
      [w.double.reviewThreads(w.repo, n)[0]!.comments[0]!.id, null],
      [root.id, null],
      [reply.id, root.id],
    ]);
    await expect(
      w.octokit.rest.pulls.createReviewComment({
        owner,
        repo: repoName,
        pull_number: n,
        in_reply_to: 123,
        body: 'nowhere',
        commit_id: 'abc',
        path: 'src/app.ts',
      }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('a push that changes the commented lines outdates the thread; other lines leave it be', async () => {
    const n = await agentPr();
    await w.double.review(w.repo, n, {
      event: 'COMMENT',
      body: 'Two notes.',
      by: 'rita',
      comments: [
        { path: 'src/app.ts', line: 2, body: 'On two.' },
        { path: 'src/app.ts', line: 7, body: 'On seven.' },
      ],
    });
    await w.double.pushCommit(w.repo, 'agent/1/task_001', {
      message: 'fix two',
      by: BOT,
      files: { 'src/app.ts': SOURCE.replace('two', 'TWO') },
    });
    const list = (await threads(n)).repository.pullRequest.reviewThreads.nodes;
    expect(list.map((t) => [t.originalLine, t.line, t.isOutdated])).toEqual([
      [2, null, true],
      [7, 7, false],
    ]);
    const { data: comments } = await w.octokit.rest.pulls.listReviewComments({
      owner,
      repo: repoName,
      pull_number: n,
    });
    expect(comments.map((c) => [c.original_line, c.line, c.position])).toEqual([
      [2, null, null],
      [7, 7, 7],
    ]);
  });

  it('resolveReviewThread resolves for a writer, FORBIDDEN for a reader; threads page from the newest', async () => {
    const n = await agentPr();
    for (const line of [1, 3, 5])
      await w.double.review(w.repo, n, {
        event: 'COMMENT',
        body: `line ${line}`,
        by: 'rita',
        comments: [{ path: 'src/app.ts', line, body: `on ${line}` }],
      });
    const newest = (await threads(n, { last: 2 })).repository.pullRequest.reviewThreads;
    expect(newest.nodes.map((t) => t.line)).toEqual([3, 5]);
    expect(newest.pageInfo.hasPreviousPage).toBe(true);
    const older = (await threads(n, { last: 2, before: newest.pageInfo.startCursor! })).repository
      .pullRequest.reviewThreads;
    expect(older.nodes.map((t) => t.line)).toEqual([1]);
    expect(older.pageInfo.hasPreviousPage).toBe(false);

    const mutation = `mutation($id: ID!) { resolveReviewThread(input: { threadId: $id }) { thread { id isResolved } } }`;
    const target = newest.nodes[0]!.id;
    await expect(
      userOctokit(w.double, 'reader').graphql(mutation, { id: target }),
    ).rejects.toMatchObject({ errors: [{ type: 'FORBIDDEN' }] });
    const resolved = await userOctokit(w.double, 'rita').graphql<{
      resolveReviewThread: { thread: { id: string; isResolved: boolean } };
    }>(mutation, { id: target });
    expect(resolved.resolveReviewThread.thread).toEqual({ id: target, isResolved: true });
    const after = (await threads(n)).repository.pullRequest.reviewThreads.nodes;
    expect(after.map((t) => t.isResolved)).toEqual([false, true, false]);
    // The reader's refusal came from GitHub's rules, not from a gap in the double.
    expect(w.double.violations).toEqual([]);
  });

  it('dismissing: a writer or the App (pull_requests: write) dismisses an approval or a request for changes, once; pull_request_review.dismissed follows', async () => {
    const n = await agentPr();
    const approval = await w.double.approvePr(w.repo, n, 'rita');
    const comment = await w.double.review(w.repo, n, { event: 'COMMENT', body: 'Hm.', by: 'rita' });
    const dismiss = (octokit: Pick<Octokit, 'rest'>, reviewId: number) =>
      octokit.rest.pulls.dismissReview({
        owner,
        repo: repoName,
        pull_number: n,
        review_id: reviewId,
        message: 'Not this one.',
      });
    // People without write access cannot; a token without pull_requests: write cannot either.
    await expect(dismiss(userOctokit(w.double, 'reader'), approval)).rejects.toMatchObject({
      status: 403,
    });
    const readOnly = new Octokit({
      baseUrl: w.double.apiUrl,
      auth: w.double.createInstallationToken(owner, { permissions: { pull_requests: 'read' } }),
      log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    });
    await expect(dismiss(readOnly, approval)).rejects.toMatchObject({
      status: 403,
      response: { data: { message: 'Resource not accessible by integration' } },
    });
    // A plain comment review is no approval to dismiss.
    await expect(dismiss(userOctokit(w.double, 'rita'), comment)).rejects.toMatchObject({
      status: 422,
      response: {
        data: {
          message: 'Validation Failed',
          errors: ['Can not dismiss a commented pull request review'],
        },
      },
    });
    expect(w.double.reviews(w.repo, n).map((r) => r.state)).toEqual(['APPROVED', 'COMMENTED']);

    const { data: dismissed } = await dismiss(userOctokit(w.double, 'rita'), approval);
    expect(dismissed).toMatchObject({ id: approval, state: 'DISMISSED', user: { login: 'rita' } });
    const { data: read } = await w.octokit.rest.pulls.getReview({
      owner,
      repo: repoName,
      pull_number: n,
      review_id: approval,
    });
    expect(read).toMatchObject({ id: approval, state: 'DISMISSED' });
    await w.double.waitForDeliveries();
    const [delivery, ...more] = w.receiver.of('pull_request_review', 'dismissed');
    expect(more).toEqual([]);
    expect(delivery!.payload['review']).toMatchObject({
      id: approval,
      state: 'dismissed',
      user: { login: 'rita' },
      commit_id: w.double.reviews(w.repo, n)[0]!.commitId,
    });
    expect(delivery!.payload['sender']).toMatchObject({ login: 'rita' });
    await expect(dismiss(userOctokit(w.double, 'rita'), approval)).rejects.toMatchObject({
      status: 422,
      response: { data: { errors: ['Can not dismiss a dismissed pull request review'] } },
    });

    // The App dismisses a request for changes; the scenario verb is a person doing it.
    const changes = await w.double.review(w.repo, n, { event: 'REQUEST_CHANGES', by: 'rita' });
    await dismiss(w.octokit, changes);
    const another = await w.double.approvePr(w.repo, n, 'rita');
    await expect(w.double.dismissReview(w.repo, n, another, 'reader')).rejects.toMatchObject({
      status: 403,
    });
    await w.double.dismissReview(w.repo, n, another, 'rita');
    await w.double.waitForDeliveries();
    expect(
      w.receiver.of('pull_request_review', 'dismissed').map((d) => d.payload['sender']),
    ).toEqual([
      expect.objectContaining({ login: 'rita' }),
      expect.objectContaining({ login: BOT }),
      expect.objectContaining({ login: 'rita' }),
    ]);
    expect(w.double.reviews(w.repo, n).map((r) => r.state)).toEqual([
      'DISMISSED',
      'COMMENTED',
      'DISMISSED',
      'DISMISSED',
    ]);
  });

  it('requested reviewers: on the pull, review_requested per reviewer, 422 for the author, cleared by a review', async () => {
    const n = await agentPr();
    const { data: pull } = await w.octokit.rest.pulls.requestReviewers({
      owner,
      repo: repoName,
      pull_number: n,
      reviewers: ['rita'],
    });
    expect(pull.requested_reviewers?.map((u) => u.login)).toEqual(['rita']);
    await w.double.waitForDeliveries();
    const requested = w.receiver.of('pull_request', 'review_requested');
    expect(requested).toHaveLength(1);
    expect(requested[0]!.payload['requested_reviewer']).toMatchObject({ login: 'rita' });
    await expect(
      w.octokit.rest.pulls.requestReviewers({
        owner,
        repo: repoName,
        pull_number: n,
        reviewers: [BOT],
      }),
    ).rejects.toMatchObject({
      status: 422,
      response: { data: { message: 'Review cannot be requested from pull request author.' } },
    });
    await expect(
      w.octokit.rest.pulls.requestReviewers({
        owner,
        repo: repoName,
        pull_number: n,
        reviewers: ['stranger'],
      }),
    ).rejects.toMatchObject({ status: 422 });
    const { data: listed } = await w.octokit.rest.pulls.listRequestedReviewers({
      owner,
      repo: repoName,
      pull_number: n,
    });
    expect(listed.users.map((u) => u.login)).toEqual(['rita']);
    await w.double.approvePr(w.repo, n, 'rita');
    expect(w.double.requestedReviewers(w.repo, n)).toEqual([]);
    await w.double.requestReviewers(w.repo, n, ['rita'], BOT);
    const { data: removed } = await w.octokit.rest.pulls.removeRequestedReviewers({
      owner,
      repo: repoName,
      pull_number: n,
      reviewers: ['rita'],
    });
    expect(removed.requested_reviewers).toEqual([]);
    await w.double.waitForDeliveries();
    expect(w.receiver.names().at(-1)).toBe('pull_request.review_request_removed');
  });
});
