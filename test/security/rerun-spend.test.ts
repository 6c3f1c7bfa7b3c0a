import { afterEach, describe, expect, it } from 'vitest';
import {
  closeScenario,
  MAINTAINER,
  REPO,
  repositoryIdOf,
  startScenario,
  type Scenario,
} from '../e2e/harness.js';

/**
 * Anyone with write access, or a workflow whose token may write actions, may re-run a worker
 * run's jobs; within the attempt's timeout the agent job runs the agent again with the old
 * assignment (docs/worker.md, "What the agent spent"). Each re-run's end says, in its own jobs'
 * annotations, what that agent spent: the attempt is charged it, once, with a bounded number of
 * reads, and the budget is checked before the attempt's retry.
 */
describe("a re-run of an attempt's jobs", () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  it('is charged what its agent job said, once, and the budget holds the run before the retry', async () => {
    s = await startScenario({
      config: 'budget:\n  maxCostUsdPerRun: 1\nretries:\n  backoff: [1m]\n',
    });
    const usage = { costUsd: 0.6, inputTokens: 5000, outputTokens: 400 };
    // Every run of the worker, a re-run's too, spends and fails.
    s.double.setWorker(() => ({ kind: 'fail', reason: 'agent_failed', detail: 'exit 1', usage }));
    const issue = await s.double.openIssue(REPO, {
      title: 'Spend',
      body: ['```tasks', '- id: a', '  title: A', '```'].join('\n'),
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    const run = (await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue))!;
    const attempt = async () => (await s.app.store.attempts.ofRun(run.id))[0];
    // The attempt failed and was charged; its retry waits for its backoff.
    expect(await attempt()).toMatchObject({ conclusion: 'failure', costUsd: 0.6 });
    expect((await s.app.store.runs.getRun(run.id))?.state).toBe('running');

    // A person re-runs its failed jobs: the agent spends again.
    const runId = Number(s.double.runs(REPO)[0]!.id);
    await s.double.rerunFailedJobs(runId, MAINTAINER);
    await s.settle();
    expect(await attempt()).toMatchObject({
      costUsd: 1.2,
      inputTokens: 10_000,
      outputTokens: 800,
      chargedRunAttempts: [2],
    });
    expect((await s.app.store.runs.getRun(run.id))?.state).toBe('held');
    // The re-run's own jobs were read: one listing of its attempt, then each job's annotations.
    const reads = () =>
      s.double.requests.filter((r) => r.path.includes(`/runs/${runId}/attempts/`));
    expect(reads()).toHaveLength(1);

    // The re-run's end, replayed under a new delivery id, reads and charges nothing more.
    const ended = s.double
      .deliveries({ event: 'workflow_run', action: 'completed' })
      .filter(
        (d) =>
          (d.payload as { workflow_run: { run_attempt: number } }).workflow_run.run_attempt === 2,
      );
    expect(ended).toHaveLength(1);
    await s.app.send('workflow_run', ended[0]!.payload, { id: 'replayed-rerun-end' });
    await s.settle();
    expect((await attempt())?.costUsd).toBe(1.2);
    expect(reads()).toHaveLength(1);

    // The retry's backoff passes: the held run dispatches nothing.
    s.clock.advance(2 * 60_000);
    await s.app.sweep();
    await s.settle();
    expect(s.double.runs(REPO)).toHaveLength(1);
  });
});
