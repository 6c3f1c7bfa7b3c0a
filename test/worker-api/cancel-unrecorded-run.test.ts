import { afterEach, describe, expect, it } from 'vitest';
import { TEST_PUBLIC_URL } from '../helpers/app.js';
import {
  closeScenario,
  MAINTAINER,
  REPO,
  startScenario,
  taskOf,
  type Scenario,
} from '../e2e/harness.js';
import { REFUSALS } from '../../src/worker-api/refusals.js';
import { ask, bodyOf, runsOn, startIssue } from './fixture.js';

/**
 * `/cancel` ends the task's open attempt whether or not its run id is recorded yet
 * (docs/commands.md). GitHub Enterprise Server up to 3.19 answers the dispatch 204 without the
 * run, and with workflow_run left out nothing records it before its worker asks: that worker must
 * get no assignment and no token for a task a person cancelled.
 */
describe('a worker run whose id was not recorded yet, after /cancel', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  /** Task `a` with its agent PR in review, once the sweep has seen its first run end. */
  const startInReview = async ({ runIds = false } = {}) => {
    s = await startScenario({
      subscribedEvents: ['issues', 'issue_comment', 'pull_request', 'pull_request_review'],
    });
    s.double.dispatchReturnsNoContent = !runIds;
    s.double.setWorker(() => ({ kind: 'pr' }));
    // Task `b` keeps the run going: the assignment then answers for `a`'s attempt alone.
    const issue = await startIssue(s, ['a', 'b']);
    s.clock.advance(5 * 60_000);
    await s.app.sweep();
    await s.settle();
    expect((await taskOf(s, issue, 'a'))?.state).toBe('in_review');
    const pulls = s.double.pulls(REPO) as Array<{ number: number; head: { ref: string } }>;
    const pr = pulls.find((p) => p.head.ref === `agent/${issue}/a`)!.number;
    // The next run stays queued until the test starts it.
    s.double.setWorker(null);
    return { issue, pr };
  };

  const say = async (n: number, body: string) => {
    await s.double.comment(REPO, n, body, MAINTAINER);
    await s.settle();
  };

  /** The dispatched run starts and its genuine token asks for the assignment. */
  const askAsRun = async (run: Record<string, unknown> & { inputs: Record<string, string> }) => {
    await s.double.startWorkflowRun(run.id as number);
    const token = await s.double.oidc.mint(run.id as number, { audience: TEST_PUBLIC_URL });
    return ask(s, `Bearer ${token}`, bodyOf(run));
  };

  it('on the PR: the fix attempt ends, and its run gets no assignment and no token', async () => {
    const { issue, pr } = await startInReview();
    await say(pr, '/retry use the builder');
    const fix = runsOn(s, issue, 'a')[1]!;
    expect(fix.inputs.mode).toBe('fix');
    const [open] = await s.app.store.attempts.open();
    expect(open?.attempt.workflowRunId).toBeNull();

    await say(pr, '/cancel');
    const answer = await askAsRun(fix);
    expect(answer.json).toEqual({ error: REFUSALS.run_finished.error });
    expect(answer.status).toBe(403);
    expect(answer.json['token']).toBeUndefined();
    const [attempt] = await s.app.store.attempts.ofTask(open!.task.id).then((a) => a.slice(-1));
    expect(attempt).toMatchObject({ phase: 'completed', conclusion: 'cancelled' });
  });

  it('on the issue: the attempt ends with the run, and the sweep looks for its run no more', async () => {
    const { issue, pr } = await startInReview();
    await say(pr, '/retry use the builder');
    const [open] = await s.app.store.attempts.open();
    expect(open?.attempt.workflowRunId).toBeNull();

    await say(issue, '/cancel');
    expect(await s.app.store.attempts.open()).toEqual([]);
    const [attempt] = await s.app.store.attempts.ofTask(open!.task.id).then((a) => a.slice(-1));
    expect(attempt).toMatchObject({ phase: 'completed', conclusion: 'cancelled' });
    const listings = () =>
      s.double.requests.filter((r) => r.route?.endsWith('/workflows/{workflow_id}/runs')).length;
    const before = listings();
    s.clock.advance(5 * 60_000);
    expect((await s.app.sweep())?.adopted).toBe(0);
    expect(listings()).toBe(before);
  });

  it('a dispatch still out when /cancel lands does not reopen the attempt; its run is cancelled', async () => {
    const { issue, pr } = await startInReview({ runIds: true });
    const dispatches = /\/actions\/workflows\/[^/]+\/dispatches$/;
    // The fix attempt's first dispatch fails: its intent waits for the sweep to send it again.
    s.double.faults.add({ method: 'POST', path: dispatches, status: 502 });
    await say(pr, '/retry use the builder');
    expect(runsOn(s, issue, 'a')).toHaveLength(1);

    // The sweep's dispatch is held at GitHub while the maintainer's /cancel is handled.
    let arrived!: () => void;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    s.double.faults.add({
      method: 'POST',
      path: dispatches,
      hold: () => {
        arrived();
        return gate;
      },
    });
    s.clock.advance(5 * 60_000);
    const sweeping = s.app.sweep();
    await reached;
    await say(pr, '/cancel');
    release();
    expect((await sweeping)?.redispatched).toBe(1);
    await s.settle();

    expect(await s.app.store.attempts.open()).toEqual([]);
    const fix = runsOn(s, issue, 'a')[1]!;
    const token = await s.double.oidc.mint(fix.id as number, { audience: TEST_PUBLIC_URL });
    const answer = await ask(s, `Bearer ${token}`, bodyOf(fix));
    expect(answer.json).toEqual({ error: REFUSALS.run_finished.error });
    expect(answer.status).toBe(403);
    expect(runsOn(s, issue, 'a')[1]).toMatchObject({
      status: 'completed',
      conclusion: 'cancelled',
    });
  });
});
