import { afterEach, describe, expect, it } from 'vitest';
import {
  closeScenario,
  MAINTAINER,
  REPO,
  repositoryIdOf,
  startRun,
  startScenario,
  taskOf,
  type Scenario,
} from './harness.js';

type Pull = { number: number; head: { ref: string } };

/**
 * A PR whose task ended (cancelled, vetoed, failed) while GitHub's merge queue held it is taken
 * out of the queue (docs/lifecycle.md, step 9). The queue may have let go of it first, its
 * `dequeued` delivery not handled yet.
 */
describe("a PR that left GitHub's merge queue before its task ended", () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const pullOf = () => (s.double.pulls(REPO) as Pull[]).find((p) => p.head.ref === 'agent/1/a')!;

  // GitHub answers a dequeue of a PR no longer queued with an error (UNPROCESSABLE, "Failed to
  // remove PR"): taken for a failure, every merge turn of the run failed on it from then on.
  it('is taken as out of it: the merge turns go on', async () => {
    s = await startScenario();
    await s.double.enableMergeQueue(REPO, 'main');
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await startRun(s);
    const pr = pullOf();
    await s.double.comment(REPO, pr.number, '/approve', MAINTAINER);
    await s.settle();
    expect(s.double.mergeQueue(REPO, 'main')).toEqual([pr.number]);
    // The queue lets go of it; its `dequeued` delivery has not been handled when the veto is.
    s.double.webhooksDown = true;
    await s.double.removeFromMergeQueue(REPO, pr.number, MAINTAINER);
    s.double.webhooksDown = false;

    await s.double.comment(REPO, pr.number, '/veto not this way', MAINTAINER);
    await s.settle();
    expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'vetoed' });
    const replies = (s.double.comments(REPO, pr.number) as { body: string }[]).filter((c) =>
      c.body.startsWith('@maintainer'),
    );
    expect(replies).toEqual([]);
    // Merge turns go on: the sweep's, which decides the run again, does not fail on it.
    await s.app.sweep();
    const row = await s.app.store.pulls.withTask(repositoryIdOf(s.double), pr.number);
    expect(row?.pull.enqueuedAt).toBeNull();
  });
});
