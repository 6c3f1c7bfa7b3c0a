import { afterEach, describe, expect, it } from 'vitest';
import {
  MAINTAINER,
  REPO,
  closeScenario,
  repositoryIdOf,
  startScenario,
  type Scenario,
  ONE_TASK_PLAN,
} from './harness.js';

type Comment = { id: number; body: string; user: { login: string }; reaction_contents: string[] };

/**
 * GitHub delivers in no set order: here the label's delivery is lost (the app was unreachable)
 * and comes back through the sweep's redelivery only after a command on the issue was handled.
 */
describe('a command handled before the label that starts the run (GitHub double)', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  it('waits for the run instead of answering that there is none', async () => {
    // Retried until the sweep below has brought the label's delivery back; a backoff longer
    // than the processor's quiet moment, so that `whenIdle` comes between two tries.
    s = await startScenario({ processor: { retryDelayMs: () => 100, maxAttempts: 50 } });
    s.double.setWorker(() => ({ kind: 'pr' }));
    const plan = ONE_TASK_PLAN;
    const issue = await s.double.openIssue(REPO, {
      title: 'Feature',
      body: plan,
      user: MAINTAINER,
    });
    await s.settle();
    s.double.webhooksDown = true;
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    s.double.webhooksDown = false;
    const id = await s.double.comment(REPO, issue, '/status', MAINTAINER);
    await s.double.waitForDeliveries();
    await s.app.whenIdle();
    expect(await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue)).toBeUndefined();

    await s.app.sweep(); // asks GitHub for the failed label delivery again
    await s.settle();
    const run = await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue);
    expect(run).toBeDefined();
    const comments = s.double.comments(REPO, issue) as Comment[];
    expect(comments.find((c) => c.id === id)?.reaction_contents).toEqual([
      'agent-coordinator[bot]:+1',
    ]);
    expect(comments.filter((c) => c.body.includes('no agent-coordinator run'))).toEqual([]);
  });
});
