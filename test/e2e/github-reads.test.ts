import { afterEach, describe, expect, it } from 'vitest';
import {
  assignmentFor,
  closeScenario,
  MAINTAINER,
  REPO,
  startRun,
  startScenario,
  type Scenario,
} from './harness.js';
import { REVIEW_THREADS_READ_MAX } from '../../src/github/port.js';

const CHAIN = [
  '```tasks',
  '- id: a',
  '  title: A',
  '- id: b',
  '  title: B',
  '  deps: [a]',
  '- id: c',
  '  title: C',
  '  deps: [b]',
  '```',
].join('\n');

/**
 * What the coordinator reads of each agent PR (issue 25: GitHub's primary limit binds): the
 * opened delivery's PR is taken as delivered, and the attempt's completion reads the PR once,
 * by number, for the merge decision that follows. The checks are read once a head.
 */
describe('reads of agent PRs (GitHub double)', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  it('reads each PR once from its worker run to its merge, and never looks it up by branch', async () => {
    s = await startScenario({ config: 'merge:\n  requireApproval: false\n' });
    s.double.setWorker(() => ({ kind: 'pr', costUsd: 0.1 }));
    const issue = await s.double.openIssue(REPO, { title: 'Chain', body: CHAIN, user: MAINTAINER });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    expect((s.double.issue(REPO, issue) as { state: string }).state).toBe('closed');

    const pulls = s.double.pulls(REPO) as Array<{ number: number; merged: boolean }>;
    expect(pulls).toHaveLength(3);
    const app = s.double.requests.filter((r) => r.actor !== MAINTAINER);
    const count = (route: string) => app.filter((r) => r.route === route).length;
    for (const pull of pulls) {
      expect(pull.merged).toBe(true);
      expect(
        app.filter(
          (r) =>
            r.route === 'GET /repos/{owner}/{repo}/pulls/{pull_number}' &&
            r.path.endsWith(`/pulls/${pull.number}`),
        ),
      ).toHaveLength(1);
    }
    expect(count('GET /repos/{owner}/{repo}/pulls')).toBe(0);
    expect(count('GET /repos/{owner}/{repo}/commits/{ref}/check-runs')).toBe(3);
    expect(count('GET /repos/{owner}/{repo}/commits/{ref}/statuses')).toBe(3);
  });

  // docs/lifecycle.md, "Which checks count": a suite's workflow run never changes its origin.
  it("reads where a GitHub Actions suite's run came from once, however often its head's checks are read", async () => {
    s = await startScenario();
    s.double.pullRequestCi(REPO, [
      { name: 'test', attempts: [{ conclusion: 'success' }] },
      { name: 'lint', attempts: [{ conclusion: 'success' }] },
    ]);
    s.double.setWorker(() => ({ kind: 'pr' }));
    await startRun(s);
    const ci = (s.double.runs(REPO) as unknown as Array<{ id: number; event: string }>).filter(
      (r) => r.event === 'pull_request',
    );
    expect(ci).toHaveLength(1);
    await s.double.releaseCi(ci[0]!.id);
    await s.settle();
    const [pull] = s.double.pulls(REPO) as Array<{ number: number; merged: boolean }>;
    await s.double.comment(REPO, pull!.number, '/approve', MAINTAINER);
    await s.settle();
    expect((s.double.pulls(REPO) as Array<{ merged: boolean }>)[0]!.merged).toBe(true);

    const app = s.double.requests.filter((r) => r.actor !== MAINTAINER);
    const count = (route: string) => app.filter((r) => r.route === route).length;
    // The suite's completion events and the head's checks both need the suite's run: GitHub is
    // asked for it once.
    expect(count('GET /repos/{owner}/{repo}/commits/{ref}/check-runs')).toBe(1);
    expect(count('GET /repos/{owner}/{repo}/actions/runs')).toBe(1);
  });

  // docs/lifecycle.md, "Vetted feedback": threads past the most read are counted and said, not read.
  it(
    "reads a send-back's review threads 50 a read, up to REVIEW_THREADS_READ_MAX, and says how many it did not read",
    { timeout: 300_000 },
    async () => {
      s = await startScenario({ private: false });
      s.double.setWorker(() => ({ kind: 'pr', files: { 'src/app.ts': 'a\nb\nc\n' } }));
      await startRun(s);
      const [pull] = s.double.pulls(REPO) as Array<{ number: number }>;
      await s.double.review(REPO, pull!.number, {
        event: 'COMMENT',
        body: 'First notes.',
        by: MAINTAINER,
        comments: [{ path: 'src/app.ts', line: 2, body: 'Rename this.' }],
      });
      // One review of an outsider's, one API call: more threads than are read, all newer.
      await s.double.review(REPO, pull!.number, {
        event: 'COMMENT',
        body: 'More.',
        by: 'outsider',
        comments: Array.from({ length: REVIEW_THREADS_READ_MAX }, (_, i) => ({
          path: 'src/app.ts',
          line: 1 + (i % 3),
          body: `noise ${i}`,
        })),
      });
      const threadReads = () =>
        s.double.requests.filter(
          (r) =>
            r.path === '/graphql' &&
            r.actor !== MAINTAINER &&
            JSON.stringify(r.body).includes('reviewThreads('),
        ).length;
      const before = threadReads();
      await s.double.comment(REPO, pull!.number, '/retry', MAINTAINER);
      await s.settle();
      expect(threadReads() - before).toBe(REVIEW_THREADS_READ_MAX / 50);
      const [fix] = s.double.runs(REPO).filter((r) => r.inputs.mode === 'fix');
      // The maintainer's thread is the one not read, and the worker is told one was not.
      expect((await assignmentFor(s, fix!)).review).toMatchObject({
        threads: [],
        omittedThreads: 1,
        omittedComments: REVIEW_THREADS_READ_MAX,
        unreadThreads: 1,
      });
    },
  );

  // docs/lifecycle.md step 8: GitHub's answer to the update names its merge commit, and only that
  // commit's push keeps the approval: nothing of the pushed commit is read to tell it apart.
  it("reads nothing of the update's commit: GitHub's answer names it", async () => {
    s = await startScenario();
    await s.double.setRequiredChecks(REPO, 'main', [], { strict: true });
    s.double.setWorker(() => ({ kind: 'pr' }));
    await startRun(s);
    await s.double.advanceBranch(REPO, 'main');
    await s.settle();
    const [pull] = s.double.pulls(REPO) as Array<{ number: number }>;
    await s.double.comment(REPO, pull!.number, '/approve', MAINTAINER);
    await s.settle();
    expect((s.double.pulls(REPO) as Array<{ merged: boolean }>)[0]!.merged).toBe(true);

    const app = s.double.requests.filter((r) => r.actor !== MAINTAINER);
    const count = (route: string) => app.filter((r) => r.route === route).length;
    expect(count('POST /repos/{owner}/{repo}/merges')).toBe(1);
    expect(count('GET /repos/{owner}/{repo}/git/commits/{commit_sha}')).toBe(0);
    expect(count('GET /repos/{owner}/{repo}/compare/{basehead}')).toBe(0);
  });
});
