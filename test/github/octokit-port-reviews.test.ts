import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  actionsJobOf,
  actionsRunOrigin,
  createOctokitPort,
} from '../../src/github/octokit-port.js';
import { REVIEW_THREAD_COMMENT_PAGE, REVIEW_THREAD_COMMENTS } from '../../src/github/port.js';
import { expectClean, startWorld, stopWorld, type World } from '../github-double-tests/helpers.js';

const repo = { owner: 'acme', repo: 'widgets' };
const BOT = 'agent-coordinator[bot]';
const LINES = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`);
const SOURCE = `${LINES.join('\n')}\n`;

/** The port's reads of reviews, CI evidence and re-runs, against the GitHub double. */
describe("the GitHub port's review threads, check evidence and re-runs", () => {
  let w: World;
  let pr: number;
  beforeEach(async () => {
    w = await startWorld();
    await w.double.setPermission(w.repo, 'rita', 'write');
    pr = await w.double.openPr(w.repo, {
      head: 'agent/1/task_001',
      title: 'Task 1',
      by: BOT,
      files: { 'src/app.ts': SOURCE },
    });
  });
  afterEach(async () => {
    await stopWorld(w);
    expectClean(w.double);
  });

  const port = () => createOctokitPort(w.octokit);
  const graphqlCalls = () => w.double.requests.filter((r) => r.path === '/graphql').length;

  it('reads unresolved threads newest first, with flags, lines, hunk, comments and url', async () => {
    await w.double.review(w.repo, pr, {
      event: 'REQUEST_CHANGES',
      body: 'Please fix.',
      by: 'rita',
      comments: [
        { path: 'src/app.ts', line: 2, body: 'first' },
        { path: 'src/app.ts', startLine: 9, line: 10, body: 'second' },
        { path: 'src/app.ts', line: 20, body: 'third' },
      ],
    });
    const [first, second, third] = w.double.reviewThreads(w.repo, pr);
    await w.double.replyToReviewComment(w.repo, pr, second!.comments[0]!.id, 'and this', 'rita');
    await w.double.replyToReviewComment(w.repo, pr, first!.comments[0]!.id, 'done', BOT);
    await w.double.resolveReviewThread(w.repo, pr, third!.id, 'rita');
    await w.double.pushCommit(w.repo, 'agent/1/task_001', {
      message: 'touch line 2',
      by: BOT,
      files: { 'src/app.ts': SOURCE.replace('line 2\n', 'line two\n') },
    });

    const read = await port().reviewThreads(repo, pr, { limit: 10 });
    expect(read).toMatchObject({ leftOut: 0, unread: 0 });
    expect(read.threads.map((t) => t.id)).toEqual([second!.id, first!.id]);
    expect(read.threads[0]).toEqual({
      id: second!.id,
      isResolved: false,
      isOutdated: false,
      path: 'src/app.ts',
      line: 10,
      startLine: 9,
      originalLine: 10,
      originalStartLine: 9,
      diffSide: 'RIGHT',
      diffHunk: expect.stringMatching(/^@@ -0,0 \+1,60 @@\n\+line 1\n[^]*\+line 10$/) as string,
      url: `${w.double.url}/acme/widgets/pull/${pr}#discussion_r${second!.comments[0]!.id}`,
      firstCommentId: second!.comments[0]!.id,
      comments: [
        {
          author: 'rita',
          authorIsBot: false,
          body: 'second',
          url: expect.any(String) as string,
          createdAt: expect.any(String) as string,
        },
        {
          author: 'rita',
          authorIsBot: false,
          body: 'and this',
          url: expect.any(String) as string,
          createdAt: expect.any(String) as string,
        },
      ],
      commentsLeftOut: 0,
      laterComments: null,
    });
    expect(read.threads[1]).toMatchObject({ isOutdated: true, line: null, originalLine: 2 });
    // GraphQL names a bot by its App's slug, without REST's `[bot]`; its type says it is one.
    expect(read.threads[1]!.comments.map((c) => [c.author, c.authorIsBot])).toEqual([
      ['rita', false],
      ['agent-coordinator', true],
    ]);

    const all = await port().reviewThreads(repo, pr, { limit: 10, includeResolved: true });
    expect(all.threads.map((t) => [t.originalLine, t.isResolved])).toEqual([
      [20, true],
      [10, false],
      [2, false],
    ]);
    expect(await port().reviewThreads(repo, pr, { limit: 1 })).toMatchObject({
      threads: [{ id: second!.id }],
      leftOut: 1,
    });
  });

  it('pages back through more threads than one GraphQL page, and stops at the limit', async () => {
    await w.double.review(w.repo, pr, {
      event: 'COMMENT',
      body: 'Many notes.',
      by: 'rita',
      comments: LINES.slice(0, 55).map((_, i) => ({
        path: 'src/app.ts',
        line: i + 1,
        body: `note ${i + 1}`,
      })),
    });
    const before = graphqlCalls();
    const read = await port().reviewThreads(repo, pr, { limit: 52 });
    expect(read.threads.map((t) => t.originalLine)).toEqual(
      Array.from({ length: 52 }, (_, i) => 55 - i),
    );
    // Read but past the limit: left out, not unread.
    expect(read).toMatchObject({ leftOut: 3, unread: 0 });
    expect(graphqlCalls() - before).toBe(2);
    const few = await port().reviewThreads(repo, pr, { limit: 5 });
    expect(few.threads).toHaveLength(5);
    // The older five are on a page not read.
    expect(few).toMatchObject({ leftOut: 50, unread: 5 });
    expect(graphqlCalls() - before).toBe(3);
  });

  it("reads a thread's later comments 100 at a time, as many reads as asked", async () => {
    await w.double.review(w.repo, pr, {
      event: 'COMMENT',
      body: 'Two threads.',
      by: 'rita',
      comments: [
        { path: 'src/app.ts', line: 2, body: 'short' },
        { path: 'src/app.ts', line: 3, body: 'long' },
      ],
    });
    const [, long] = w.double.reviewThreads(w.repo, pr);
    // Its first read, and two more of 100.
    const replies = REVIEW_THREAD_COMMENTS - 1 + 2 * REVIEW_THREAD_COMMENT_PAGE;
    for (let i = 1; i <= replies; i++)
      await w.double.replyToReviewComment(w.repo, pr, long!.comments[0]!.id, `r${i}`, 'outsider');
    const before = graphqlCalls();
    const [first, second] = (await port().reviewThreads(repo, pr, { limit: 10 })).threads;
    expect(graphqlCalls() - before).toBe(1);
    expect(first).toMatchObject({ id: long!.id, commentsLeftOut: replies + 1 - 30 });
    expect(first!.comments).toHaveLength(REVIEW_THREAD_COMMENTS);
    expect(first!.laterComments).toEqual(expect.any(String));
    expect(second).toMatchObject({ commentsLeftOut: 0, laterComments: null });

    const once = await port().laterReviewComments(first!, 1);
    expect(graphqlCalls() - before).toBe(2);
    expect(once.comments).toHaveLength(REVIEW_THREAD_COMMENTS + REVIEW_THREAD_COMMENT_PAGE);
    expect(once.comments.at(-1)!.body).toBe(`r${REVIEW_THREAD_COMMENTS + 99}`);
    expect(once.commentsLeftOut).toBe(replies + 1 - once.comments.length);
    // Read on from where the last read stopped, and no further than the thread's end.
    const rest = await port().laterReviewComments({ ...first!, ...once }, 5);
    expect(graphqlCalls() - before).toBe(3);
    expect(rest.comments.map((c) => c.body)).toEqual([
      'long',
      ...Array.from({ length: replies }, (_, i) => `r${i + 1}`),
    ]);
    expect(rest).toMatchObject({ commentsLeftOut: 0, laterComments: null });
    expect(await port().laterReviewComments(second!, 3)).toEqual({
      comments: second!.comments,
      commentsLeftOut: 0,
      laterComments: null,
    });
    expect(graphqlCalls() - before).toBe(3);
  });

  it('requests reviewers, and returns the refusal for the PR author as an answer', async () => {
    expect(await port().requestReviewers(repo, pr, ['rita'])).toEqual({ ok: true });
    expect(w.double.requestedReviewers(w.repo, pr)).toEqual(['rita']);
    expect(await port().requestReviewers(repo, pr, [BOT])).toEqual({
      ok: false,
      status: 422,
      message: expect.stringContaining(
        'Review cannot be requested from pull request author',
      ) as string,
    });
  });

  it('tells Actions jobs from other checks, and reads their annotations, log tail and output', async () => {
    const sha = w.double.branch(w.repo, 'agent/1/task_001')!.sha;
    const runId = await w.double.runCi(w.repo, sha, {
      jobs: [
        {
          name: 'test',
          attempts: [
            {
              conclusion: 'failure',
              annotations: [
                {
                  message: 'expected 2 to be 3',
                  annotation_level: 'failure',
                  path: 'src/sum.test.ts',
                  start_line: 12,
                },
              ],
              steps: [
                { name: 'npm ci', lines: ['added 200 packages'] },
                {
                  name: 'npm test',
                  lines: ['> vitest run', 'FAIL sums', 'expected 2 to be 3'],
                  failed: true,
                },
                { name: 'Post cleanup', lines: ['cleaning up'] },
              ],
            },
          ],
        },
      ],
    });
    await w.double.setCheck(w.repo, sha, 'lint', 'completed', 'failure', {
      output: { title: '2 problems', summary: 'no-unused-vars in src/app.ts' },
      annotations: [
        { message: 'x is unused', annotation_level: 'warning', path: 'src/app.ts', start_line: 3 },
      ],
    });
    // GitHub lists a commit's statuses newest first; a context counts by its newest.
    await w.double.setStatus(w.repo, sha, 'legacy-ci', 'pending');
    await w.double.setStatus(w.repo, sha, 'legacy-ci', 'failure');
    const { checks, actionsRuns } = await port().checksFor(repo, sha);
    const test = checks.find((c) => c.name === 'test')!;
    const suite = w.double.run(runId)!['check_suite_id'] as number;
    expect(test).toMatchObject({
      conclusion: 'failure',
      appSlug: 'github-actions',
      checkSuiteId: suite,
      actionsJob: { runId, jobId: test.checkRunId },
    });
    expect(actionsRuns).toEqual([
      {
        id: runId,
        checkSuiteId: suite,
        headRepositoryId: w.double.repository(w.repo)['id'],
        actorLogin: (w.double.run(runId)!['actor'] as { login: string }).login,
        workflowPath: w.double.run(runId)!['path'],
      },
    ]);
    expect(checks.find((c) => c.name === 'lint')).toMatchObject({
      appSlug: 'other-ci',
      actionsJob: null,
      title: '2 problems',
      summary: 'no-unused-vars in src/app.ts',
    });
    expect(checks.filter((c) => c.name === 'legacy-ci')).toMatchObject([
      {
        source: 'status',
        conclusion: 'failure',
        checkRunId: null,
        checkSuiteId: null,
        appSlug: null,
        actionsJob: null,
      },
    ]);

    expect(await port().checkRunAnnotations(repo, test.checkRunId!)).toEqual([
      {
        path: 'src/sum.test.ts',
        startLine: 12,
        endLine: 12,
        level: 'failure',
        title: '',
        message: 'expected 2 to be 3',
      },
    ]);
    const lint = checks.find((c) => c.name === 'lint')!;
    expect(await port().checkRunAnnotations(repo, lint.checkRunId!)).toMatchObject([
      { path: 'src/app.ts', startLine: 3, level: 'warning', message: 'x is unused' },
    ]);

    // The failed step's end, through the error line the runner prints; cleanup after it is not.
    expect(await port().jobLogTail(repo, test.actionsJob!.jobId, 10)).toEqual({
      step: 'npm test',
      lines: [
        '> vitest run',
        'FAIL sums',
        'expected 2 to be 3',
        '##[error]Process completed with exit code 1.',
      ],
      linesLeftOut: 1,
    });
    expect(await port().jobLogTail(repo, test.actionsJob!.jobId, 2)).toEqual({
      step: 'npm test',
      lines: ['expected 2 to be 3', '##[error]Process completed with exit code 1.'],
      linesLeftOut: 3,
    });
    expect(await port().jobLogTail(repo, 424242, 10)).toBeNull();
  });

  it("reads where each Actions job's run came from, only when a head has Actions jobs", async () => {
    const sha = w.double.branch(w.repo, 'agent/1/task_001')!.sha;
    const runsRead = () =>
      w.double.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/actions/runs'));
    await w.double.setCheck(w.repo, sha, 'lint', 'completed', 'success');
    expect((await port().checksFor(repo, sha)).actionsRuns).toEqual([]);
    expect(runsRead()).toEqual([]);

    // A fork's PR with the same head commit runs the repository's CI on it.
    w.double.pullRequestCi(w.repo, [{ name: 'test', attempts: [{ conclusion: 'success' }] }]);
    await w.double.openPr(w.repo, {
      head: 'agent/1/task_001',
      title: 'Same commit',
      by: 'outsider',
      fromFork: true,
    });
    const forkRun = w.double.runs(w.repo)[0]!;
    const fork = w.double.repository('outsider/widgets')['id'] as number;
    const origin = {
      id: forkRun.id,
      checkSuiteId: forkRun['check_suite_id'],
      headRepositoryId: fork,
      actorLogin: 'outsider',
      workflowPath: forkRun['path'],
    };
    const { checks, actionsRuns } = await port().checksFor(repo, sha);
    expect(checks.find((c) => c.name === 'test')).toMatchObject({
      checkSuiteId: origin.checkSuiteId,
    });
    expect(actionsRuns).toEqual([origin]);
    expect(runsRead()).toHaveLength(1);
    expect(await port().actionsRunOfSuite(repo, origin.checkSuiteId as number)).toEqual(origin);
    expect(await port().actionsRunOfSuite(repo, 424242)).toBeNull();
  });

  it('re-runs failed jobs, and returns GitHub refusing a run still going as an answer', async () => {
    const sha = w.double.branch(w.repo, 'agent/1/task_001')!.sha;
    const failed = await w.double.runCi(w.repo, sha, {
      jobs: [{ name: 'test', attempts: [{ conclusion: 'failure' }, { conclusion: 'success' }] }],
    });
    expect(await port().rerunFailedJobs(repo, failed)).toEqual({ ok: true });
    await w.double.waitFor((d) => d.run(failed)?.['conclusion'] === 'success', {
      description: 'the re-run to pass',
    });
    expect(w.double.run(failed)).toMatchObject({ run_attempt: 2 });
    const running = await w.double.runCi(w.repo, sha, {
      jobs: [{ name: 'build', attempts: [{ conclusion: 'failure' }] }],
      play: false,
    });
    expect(await port().rerunFailedJobs(repo, running)).toEqual({
      ok: false,
      status: 403,
      message: expect.stringContaining('already running') as string,
    });
  });
});

describe('actionsJobOf', () => {
  it.each([
    [
      {
        id: 7,
        app: { slug: 'github-actions' },
        details_url: 'https://github.com/a/b/actions/runs/3/job/7',
      },
      { runId: 3, jobId: 7 },
    ],
    [
      {
        id: 7,
        app: { slug: 'circleci' },
        details_url: 'https://github.com/a/b/actions/runs/3/job/7',
      },
      null,
    ],
    [
      { id: 7, app: { slug: 'github-actions' }, details_url: 'https://github.com/a/b/runs/7' },
      null,
    ],
    [
      {
        id: 8,
        app: { slug: 'github-actions' },
        details_url: 'https://github.com/a/b/actions/runs/3/job/7',
      },
      null,
    ],
    [{ id: 7, app: null, details_url: null }, null],
  ])('%j → %j', (run, expected) => {
    expect(actionsJobOf(run)).toEqual(expected);
  });
});

/** What core's countedChecks rests on, checked: a field GitHub leaves out is an error. */
describe('actionsRunOrigin', () => {
  it.each([
    [
      {
        id: 3,
        check_suite_id: 9,
        head_repository: { id: 5 },
        actor: { login: 'carol' },
        path: '.github/workflows/ci.yml@main',
      },
      {
        id: 3,
        checkSuiteId: 9,
        headRepositoryId: 5,
        actorLogin: 'carol',
        workflowPath: '.github/workflows/ci.yml@main',
      },
    ],
    // A fork deleted since: GitHub answers null (github/rest-api-description#1586).
    [
      { id: 3, check_suite_id: 9, head_repository: null, actor: { login: 'carol' } },
      { id: 3, checkSuiteId: 9, headRepositoryId: null, actorLogin: 'carol', workflowPath: null },
    ],
    // `actor` is not among the schema's required fields: core decides nothing on such a run.
    [
      { id: 3, check_suite_id: 9, head_repository: { id: 5 } },
      { id: 3, checkSuiteId: 9, headRepositoryId: 5, actorLogin: null, workflowPath: null },
    ],
  ])('%j → %j', (run, expected) => {
    expect(actionsRunOrigin(run)).toEqual(expected);
  });

  it.each([
    [{ id: 3, head_repository: { id: 5 } }, /without its check_suite_id/],
    [{ id: 3, check_suite_id: null, head_repository: { id: 5 } }, /without its check_suite_id/],
    [{ id: 3, check_suite_id: 9 }, /without its head_repository/],
    [{ id: 3, check_suite_id: 9, head_repository: {} }, /without its head_repository/],
  ])('%j is an error', (run, error) => {
    expect(() => actionsRunOrigin(run)).toThrow(error);
  });
});
