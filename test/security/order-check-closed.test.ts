import { Octokit } from '@octokit/rest';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_APP_ID } from '../helpers/app.js';
import {
  closeScenario,
  MAINTAINER,
  OWNER,
  REPO,
  REPO_NAME,
  startRun,
  startScenario,
  taskOf,
  type Scenario,
} from '../e2e/harness.js';
import { orderCheckOf, type Pull } from './security-helpers.js';

const ORDER = 'agent-coordinator/order';
const CAROL = 'carol';

/**
 * The order check passes once a head is approved and the task awaits its merge, and is the gate
 * GitHub enforces for anyone who may merge, the repository's CI running the agent's code among
 * them (docs/worker.md). GitHub keeps a completed check run completed when an update asks for
 * `in_progress`, and merging goes by a name's newest check run: an approval taken back, or a task
 * that will not merge, must close the gate at once with a new check run, or the passing one stays
 * and GitHub lets that head merge (docs/security.md).
 */
describe('the order check closes on an approved head', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const pullOf = () => (s.double.pulls(REPO) as Pull[]).find((p) => p.head.ref === 'agent/1/a')!;
  /** GitHub refuses the merge the agent's code attempts, and the PR stays unmerged. */
  const refused = async (mergeByWorkflow: () => Promise<unknown>) => {
    await expect(mergeByWorkflow()).rejects.toMatchObject({
      status: 405,
      message: expect.stringContaining(`Required status check "${ORDER}"`),
    });
    expect(pullOf().merged).toBe(false);
  };

  /** The agent's PR, approved by carol's review while its CI job (which may merge) runs. */
  const approvedWhileCiRuns = async () => {
    s = await startScenario();
    await s.double.setRequiredChecks(REPO, 'main', [ORDER], { apps: { [ORDER]: TEST_APP_ID } });
    await s.double.setPermission(REPO, CAROL, 'write');
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await startRun(s);
    const pr = pullOf();
    const ci = await s.double.runCi(REPO, pr.head.sha, {
      jobs: [{ name: 'test', attempts: [{ conclusion: 'success', hold: true }] }],
    });
    const review = await s.double.approvePr(REPO, pr.number, CAROL);
    await s.settle();
    expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'approved', approvedBy: CAROL });
    expect(orderCheckOf(s, pr.head.sha)).toMatchObject({ conclusion: 'success' });
    // The job's GITHUB_TOKEN under "Read and write permissions", as the agent's code finds it.
    const workflow = new Octokit({
      baseUrl: s.double.apiUrl,
      auth: s.double.jobToken(ci, { contents: 'write', pull_requests: 'write' }),
      log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    });
    const mergeByWorkflow = () =>
      workflow.rest.pulls.merge({
        owner: OWNER,
        repo: REPO_NAME,
        pull_number: pr.number,
        sha: pr.head.sha,
      });
    return { issue, pr, review, mergeByWorkflow };
  };

  it('when a maintainer dismisses its approving review', async () => {
    const { issue, pr, review, mergeByWorkflow } = await approvedWhileCiRuns();
    await s.double.dismissReview(REPO, pr.number, review, MAINTAINER);
    await s.settle();
    expect((await taskOf(s, issue, 'a'))?.state).toBe('in_review');

    expect(orderCheckOf(s, pr.head.sha)).toMatchObject({
      status: 'in_progress',
      output: { title: `waiting for /approve of ${pr.head.sha.slice(0, 7)}` },
    });
    await refused(mergeByWorkflow);
  });

  it('when a writer asks for changes after its approval', async () => {
    const { issue, pr, mergeByWorkflow } = await approvedWhileCiRuns();
    // The fix stays queued: the approved head is being reworked.
    s.double.setWorker(null);
    await s.double.review(REPO, pr.number, {
      event: 'REQUEST_CHANGES',
      body: 'The session must expire.',
      by: MAINTAINER,
    });
    await s.settle();
    expect(s.double.runs(REPO).filter((r) => r.inputs.mode === 'fix')).toHaveLength(1);
    expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'running' });

    expect(orderCheckOf(s, pr.head.sha)).toMatchObject({ status: 'in_progress' });
    await refused(mergeByWorkflow);
  });

  it('when the run is cancelled', async () => {
    const { issue, pr, mergeByWorkflow } = await approvedWhileCiRuns();
    await s.double.comment(REPO, issue, '/cancel', MAINTAINER);
    await s.settle();
    expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'cancelled' });

    expect(orderCheckOf(s, pr.head.sha)).toMatchObject({ status: 'in_progress' });
    await refused(mergeByWorkflow);
  });

  it('when the run is cancelled while GitHub fails the check run the first time', async () => {
    const { issue, pr, mergeByWorkflow } = await approvedWhileCiRuns();
    s.double.faults.add({ method: 'POST', path: /\/check-runs$/, status: 502 });
    await s.double.comment(REPO, issue, '/cancel', MAINTAINER);
    await s.settle();
    expect(s.double.faults.pending).toBe(0);
    expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'cancelled' });

    // The run is finished, so the sweep no longer decides its merges: the retried delivery must.
    expect(orderCheckOf(s, pr.head.sha)).toMatchObject({ status: 'in_progress' });
    await refused(mergeByWorkflow);
  });

  it('when its task is cancelled on its PR', async () => {
    const { issue, pr, mergeByWorkflow } = await approvedWhileCiRuns();
    await s.double.comment(REPO, pr.number, '/cancel', MAINTAINER);
    await s.settle();
    expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'cancelled' });

    expect(orderCheckOf(s, pr.head.sha)).toMatchObject({ status: 'in_progress' });
    await refused(mergeByWorkflow);
  });

  it.each([
    { where: 'its PR', on: (issue: number, pr: number) => pr },
    { where: 'its issue (the run)', on: (issue: number) => issue },
  ])('when it is held on $where, until /unhold', async ({ on }) => {
    const { issue, pr, mergeByWorkflow } = await approvedWhileCiRuns();
    await s.double.comment(REPO, on(issue, pr.number), '/hold', MAINTAINER);
    await s.settle();

    expect(orderCheckOf(s, pr.head.sha)).toMatchObject({
      status: 'in_progress',
      output: { title: expect.stringMatching(/^held: \/unhold on the (PR|issue) lets it merge$/) },
    });
    await refused(mergeByWorkflow);

    await s.double.comment(REPO, on(issue, pr.number), '/unhold', MAINTAINER);
    await s.settle();
    expect(orderCheckOf(s, pr.head.sha)).toMatchObject({ conclusion: 'success' });
    expect((await taskOf(s, issue, 'a'))?.state).toBe('approved');
  });

  it('when its task is retried on its PR', async () => {
    const { issue, pr, mergeByWorkflow } = await approvedWhileCiRuns();
    // The new attempt stays queued: the approved head is being redone.
    s.double.setWorker(null);
    await s.double.comment(REPO, pr.number, '/retry start over', MAINTAINER);
    await s.settle();
    expect(['dispatched', 'running']).toContain((await taskOf(s, issue, 'a'))?.state);

    expect(orderCheckOf(s, pr.head.sha)).toMatchObject({ status: 'in_progress' });
    await refused(mergeByWorkflow);
  });

  it("when a maintainer closes its PR and the agent's code opens it again", async () => {
    const { issue, pr, mergeByWorkflow } = await approvedWhileCiRuns();
    await s.double.closePr(REPO, pr.number, MAINTAINER);
    await s.settle();
    expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'rejected' });
    expect(orderCheckOf(s, pr.head.sha)).toMatchObject({ status: 'in_progress' });
    await s.double.reopenPr(REPO, pr.number, 'github-actions[bot]');
    await s.settle();

    expect(orderCheckOf(s, pr.head.sha)).toMatchObject({ status: 'in_progress' });
    await refused(mergeByWorkflow);
  });

  /**
   * The agent's PR approved by carol while another CI's check on it runs; the agent's code runs
   * in a CI run of the base branch, which may merge. `then` changes what GitHub shows, and one
   * merge turn follows (the sweep's; no event brings another).
   */
  const approvedThenOneTurn = async (then: (pr: Pull) => Promise<unknown>) => {
    s = await startScenario();
    await s.double.setRequiredChecks(REPO, 'main', [ORDER], { apps: { [ORDER]: TEST_APP_ID } });
    await s.double.setPermission(REPO, CAROL, 'write');
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await startRun(s);
    const pr = pullOf();
    const ci = await s.double.runCi(REPO, 'main', {
      jobs: [{ name: 'test', attempts: [{ conclusion: 'success', hold: true }] }],
    });
    await s.double.setCheck(REPO, pr.head.sha, 'ci', 'in_progress');
    await s.double.comment(REPO, pr.number, '/approve', CAROL);
    await s.settle();
    expect(orderCheckOf(s, pr.head.sha)).toMatchObject({ conclusion: 'success' });
    s.double.webhooksDown = true;
    await then(pr);
    await s.app.sweep();
    await s.settle();
    s.double.webhooksDown = false;
    const workflow = new Octokit({
      baseUrl: s.double.apiUrl,
      auth: s.double.jobToken(ci, { contents: 'write', pull_requests: 'write' }),
      log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    });
    const mergeByWorkflow = () =>
      workflow.rest.pulls.merge({ owner: OWNER, repo: REPO_NAME, pull_number: pr.number });
    return { issue, pr, mergeByWorkflow };
  };

  it('when its approver lost write access before the merge', async () => {
    const { issue, pr, mergeByWorkflow } = await approvedThenOneTurn(async (pr) => {
      await s.double.setPermission(REPO, CAROL, 'read');
      // The PR would merge now: the turn asks GitHub for carol's permission and withdraws her
      // approval.
      await s.double.setCheck(REPO, pr.head.sha, 'ci', 'completed', 'success');
    });
    expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'in_review', approvedBy: null });

    expect(orderCheckOf(s, pr.head.sha)).toMatchObject({ status: 'in_progress' });
    await refused(mergeByWorkflow);
  });

  it('when its checks fail after its approval and it goes back to its worker', async () => {
    const { issue, pr, mergeByWorkflow } = await approvedThenOneTurn(async (pr) => {
      // The fix stays queued: the approved head is being reworked.
      s.double.setWorker(null);
      await s.double.setCheck(REPO, pr.head.sha, 'ci', 'completed', 'failure');
    });
    expect(['pending', 'dispatched']).toContain((await taskOf(s, issue, 'a'))?.state);

    expect(orderCheckOf(s, pr.head.sha)).toMatchObject({ status: 'in_progress' });
    await refused(mergeByWorkflow);
  });

  /** The agent's PR approved and in GitHub's merge queue; `stop` ends its task or run there. */
  const stoppedInMergeQueue = async (stop: (issue: number, pr: number) => Promise<unknown>) => {
    s = await startScenario();
    await s.double.enableMergeQueue(REPO, 'main');
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await startRun(s);
    const pr = pullOf();
    await s.double.comment(REPO, pr.number, '/approve', MAINTAINER);
    await s.settle();
    expect(s.double.mergeQueue(REPO, 'main')).toEqual([pr.number]);

    await stop(issue, pr.number);
    await s.settle();
    // Out of the queue: a merge group checked before would land it.
    expect(s.double.mergeQueue(REPO, 'main')).toEqual([]);
    expect((await s.double.processMergeQueue(REPO, 'main')).merged).toEqual([]);
    expect(pullOf().merged).toBe(false);
    return (await taskOf(s, issue, 'a'))?.state;
  };

  it("when the run is cancelled while the PR is in GitHub's merge queue", async () => {
    const state = await stoppedInMergeQueue((issue) =>
      s.double.comment(REPO, issue, '/cancel', MAINTAINER),
    );
    expect(state).toBe('cancelled');
  });

  it("when its task is vetoed while the PR is in GitHub's merge queue", async () => {
    const state = await stoppedInMergeQueue((_, pr) =>
      s.double.comment(REPO, pr, '/veto not this way', MAINTAINER),
    );
    expect(state).toBe('vetoed');
  });
});
