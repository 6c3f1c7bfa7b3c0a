import { Octokit } from '@octokit/rest';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_APP_ID } from '../helpers/app.js';
import {
  CHAIN_OF_TWO,
  closeScenario,
  MAINTAINER,
  OWNER,
  REPO,
  REPO_NAME,
  startRun,
  startScenario,
  taskOf,
  type Scenario,
} from './harness.js';

type Pull = {
  number: number;
  merged?: boolean;
  merged_by?: { login: string } | null;
  head: { ref: string; sha: string };
};
type CheckRun = {
  id: number;
  name: string;
  status: string;
  conclusion: string | null;
  app: { slug: string };
  output: { title: string | null };
};

const ORDER = 'agent-coordinator/order';

/**
 * The publish job pushes the agent's branch, so the repository's own CI runs the agent's code,
 * and under "permissive" workflow permissions its GITHUB_TOKEN may merge. With the order check
 * required from this App (docs/worker.md, "Your CI runs the agent's change"), GitHub itself
 * refuses that merge until the head is approved, and the coordinator merges once it is.
 */
describe('the order check is the approval gate GitHub enforces (GitHub double)', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const prOf = (task: string) =>
    (s.double.pulls(REPO) as Pull[]).find((p) => p.head.ref.endsWith(`/${task}`))!;
  const ourOrderCheck = (sha: string) =>
    (s.double.checkRuns(REPO, sha) as CheckRun[]).filter(
      (c) => c.name === ORDER && c.app.slug !== 'github-actions',
    );

  it("refuses the agent's own merge of its unapproved PR, and merges it after /approve", async () => {
    s = await startScenario();
    await s.double.setRequiredChecks(REPO, 'main', [ORDER], { apps: { [ORDER]: TEST_APP_ID } });
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await startRun(s, { body: CHAIN_OF_TWO });

    // a has no dependencies; unapproved, its required check waits, so it cannot merge.
    const a = prOf('a');
    expect(ourOrderCheck(a.head.sha).map((c) => `${c.status}: ${c.output.title}`)).toEqual([
      `in_progress: waiting for /approve of ${a.head.sha.slice(0, 7)}`,
    ]);
    await s.double.comment(REPO, a.number, '/approve', MAINTAINER);
    await s.settle();
    expect((await taskOf(s, issue, 'a'))?.state).toBe('merged');

    // b's dependency is merged; b is not approved. The repository's CI runs b's code.
    const b = prOf('b');
    const [waiting] = ourOrderCheck(b.head.sha);
    expect(waiting).toMatchObject({
      status: 'in_progress',
      output: { title: `waiting for /approve of ${b.head.sha.slice(0, 7)}` },
    });
    const ci = await s.double.runCi(REPO, b.head.sha, {
      jobs: [{ name: 'test', attempts: [{ conclusion: 'success', hold: true }] }],
    });
    // The job's GITHUB_TOKEN under "Read and write permissions", as the agent's test script
    // finds it in .git/config.
    const workflow = new Octokit({
      baseUrl: s.double.apiUrl,
      auth: s.double.jobToken(ci, { contents: 'write', pull_requests: 'write', checks: 'write' }),
      log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    });
    const where = { owner: OWNER, repo: REPO_NAME };
    // A passing check of that name from GitHub Actions does not count: the rule names this App.
    await workflow.rest.checks.create({
      ...where,
      name: ORDER,
      head_sha: b.head.sha,
      status: 'completed',
      conclusion: 'success',
    });
    await expect(
      workflow.rest.pulls.merge({ ...where, pull_number: b.number, sha: b.head.sha }),
    ).rejects.toMatchObject({
      status: 405,
      message: expect.stringContaining(`Required status check "${ORDER}" is expected.`),
    });
    await s.double.releaseCi(ci);
    await s.settle();
    expect(prOf('b').merged).toBe(false);
    expect((await taskOf(s, issue, 'b'))?.state).toBe('in_review');

    // Approved: the check on that head passes first, then the coordinator merges.
    await s.double.comment(REPO, b.number, '/approve', MAINTAINER);
    await s.settle();
    expect((await taskOf(s, issue, 'b'))?.state).toBe('merged');
    expect(prOf('b')).toMatchObject({
      merged: true,
      merged_by: { login: 'agent-coordinator[bot]' },
    });
    // One check run on the head, brought to success in place.
    expect(ourOrderCheck(b.head.sha).map((c) => [c.id, c.conclusion])).toEqual([
      [waiting!.id, 'success'],
    ]);
    s.double.assertNoViolations();
  });
});
