import { afterEach, describe, expect, it } from 'vitest';
import { TEST_PUBLIC_URL } from '../helpers/app.js';
import { closeScenario, startScenario, type Scenario } from '../e2e/harness.js';
import { REFUSALS } from '../../src/worker-api/refusals.js';
import { ask, bodyOf, runsOn, startIssue } from './fixture.js';

/**
 * Anyone with write access, or a workflow whose token may write actions, may re-run a worker
 * run's failed jobs (docs/worker.md, "What the agent spent"): the re-run is the same run id, on
 * the same branch, by the same workflow, with `run_attempt` 2 and on. The attempt ended with the
 * run's first attempt, whatever the coordinator has handled of that end yet: GitHub delivers late,
 * and while the re-run goes on GitHub shows the run in progress again.
 */
describe("a re-run of a worker run's jobs asks for the assignment", () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  it('before the coordinator has handled the end of the run: refused, the re-run and a replay of the first token alike', async () => {
    s = await startScenario({ config: 'retries:\n  max: 1\n  backoff: [0s]\n' });
    s.double.setWorker(null);
    const issue = await startIssue(s, ['a']);
    const run = runsOn(s, issue, 'a')[0]!;
    const runId = Number(run.id);
    await s.double.startWorkflowRun(runId);
    await s.settle();
    // The dispatched run's own token: granted.
    const first = await s.double.oidc.mint(runId, { audience: TEST_PUBLIC_URL });
    expect((await ask(s, `Bearer ${first}`, bodyOf(run))).status).toBe(200);

    // The run fails; its end reaches the coordinator late.
    s.double.webhooksDown = true;
    try {
      await s.double.completeWorkflowRun(runId, 'failure');
      await s.double.rerunFailedJobs(runId, 'maintainer');
      await s.double.startWorkflowRun(runId);
      const open = await s.app.store.attempts.open();
      expect(open.some((o) => o.task.taskKey === 'a')).toBe(true);

      const rerun = await s.double.oidc.mint(runId, { audience: TEST_PUBLIC_URL });
      const claims = JSON.parse(Buffer.from(rerun.split('.')[1]!, 'base64url').toString());
      expect(claims.run_attempt).toBe('2');
      const asked = await ask(s, `Bearer ${rerun}`, bodyOf(run));
      expect(asked.status).toBe(403);
      expect(asked.json).toEqual({ error: REFUSALS.run_attempt.error });
      // The first attempt's token, replayed while the re-run goes on: its jobs have ended.
      const replayed = await ask(s, `Bearer ${first}`, bodyOf(run));
      expect(replayed.status).toBe(403);
      expect(replayed.json).toEqual({ error: REFUSALS.run_attempt.error });
      expect(s.app.logs.text()).not.toContain(rerun);
    } finally {
      s.double.webhooksDown = false;
    }
  });
});
