import { afterEach, describe, expect, it } from 'vitest';
import {
  closeScenario,
  REPO,
  startRun,
  startScenario,
  taskOf,
  type Scenario,
} from '../e2e/harness.js';

type Pull = { number: number; head: { ref: string } };

const OUTSIDER = 'outsider';

/**
 * Anyone may review a public repository's PRs. A review by someone without write access does
 * nothing, so it costs the installation its one permission read and nothing more
 * (docs/commands.md): not the PR's, not the review's state.
 */
describe("an outsider's approvals", () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  it('cost one permission read each and approve nothing', async () => {
    s = await startScenario({ private: false });
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await startRun(s);
    expect((await taskOf(s, issue, 'a'))?.state).toBe('in_review');
    const pr = (s.double.pulls(REPO) as Pull[]).find((p) => p.head.ref === 'agent/1/a')!.number;
    const before = s.double.requests.length;

    for (let i = 0; i < 3; i++) {
      await s.double.review(REPO, pr, { event: 'APPROVE', body: 'LGTM', by: OUTSIDER });
      await s.double.review(REPO, pr, { event: 'REQUEST_CHANGES', body: 'No.', by: OUTSIDER });
    }
    await s.settle();

    const reads = s.double.requests
      .slice(before)
      .filter((r) => r.actor !== OUTSIDER && r.method === 'GET')
      .map((r) => r.route ?? r.path);
    expect(reads.filter((r) => r.endsWith('/collaborators/{username}/permission'))).toHaveLength(6);
    expect(reads.filter((r) => r.includes('/reviews/'))).toEqual([]);
    expect(reads.filter((r) => r === 'GET /repos/{owner}/{repo}/pulls/{pull_number}')).toEqual([]);
    expect((await taskOf(s, issue, 'a'))?.state).toBe('in_review');
  });

  it('on a PR that is no agent PR (their fork’s), a command costs one permission read each', async () => {
    s = await startScenario({ private: false });
    const pr = await s.double.openPr(REPO, {
      head: 'feature',
      title: 'Mine',
      by: OUTSIDER,
      fromFork: true,
    });
    await s.settle();
    const before = s.double.requests.length;

    for (const body of ['/approve', '/retry please', '/hold'])
      await s.double.comment(REPO, pr, body, OUTSIDER);
    await s.settle();

    const reads = s.double.requests
      .slice(before)
      .filter((r) => r.actor !== OUTSIDER && r.method === 'GET')
      .map((r) => r.route ?? r.path);
    expect(reads).toEqual(
      Array(3).fill('GET /repos/{owner}/{repo}/collaborators/{username}/permission'),
    );
  });
});
