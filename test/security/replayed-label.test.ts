import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  closeScenario,
  MAINTAINER,
  ONE_TASK_PLAN,
  REPO,
  startScenario,
  type Scenario,
} from '../e2e/harness.js';
import { comments, latestRun } from './security-helpers.js';

/**
 * SPEC.md §4: a captured delivery is signed, but its `X-GitHub-Delivery` id is not, so it can be
 * sent again under a new one. A replayed `issues.labeled` of the trigger label starts nothing
 * unless GitHub's issue still asks for a run (docs/lifecycle.md step 1).
 */
/** A maintainer's issue holding one task, labelled, and everything that follows handled. */
async function openLabelled(s: Scenario): Promise<number> {
  const issue = await s.double.openIssue(REPO, {
    title: 'A',
    body: ONE_TASK_PLAN,
    user: MAINTAINER,
  });
  await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
  await s.settle();
  return issue;
}

describe('a captured issues.labeled sent again under a new delivery id', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const start = async () => {
    s = await startScenario();
    s.double.setWorker(null); // the task's worker stays out: the run is in flight
    const issue = await openLabelled(s);
    expect(await latestRun(s, issue)).toMatchObject({ generation: 1, state: 'running' });
    const [captured] = s.double.deliveries({ event: 'issues', action: 'labeled' });
    return { issue, captured: captured! };
  };
  const replay = async (payload: unknown) => {
    const sent = await s.app.send('issues', payload, { id: randomUUID() });
    expect(sent.ok).toBe(true);
    await s.settle();
  };
  const workerRuns = () => s.double.runs(REPO).length;
  // GitHub dates an issue to the second; a person's relabel comes seconds after the first label.
  const relabel = async (issue: number) => {
    s.double.advanceClock(5_000);
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
  };

  it('after the label was removed and the issue closed: nothing starts; reopened and relabelled, a run does', async () => {
    const { issue, captured } = await start();
    await s.double.removeLabel(REPO, issue, 'agent', MAINTAINER);
    await s.double.closeIssue(REPO, issue, MAINTAINER);
    await s.settle();
    expect((await latestRun(s, issue))?.state).toBe('cancelled');
    const before = workerRuns();

    await replay(captured.payload);
    expect(await latestRun(s, issue)).toMatchObject({ generation: 1, state: 'cancelled' });
    expect(workerRuns()).toBe(before);

    await s.double.reopenIssue(REPO, issue, MAINTAINER);
    await relabel(issue);
    expect(await latestRun(s, issue)).toMatchObject({ generation: 2, state: 'running' });
  });

  it('after the label was removed from the open issue: nothing starts', async () => {
    const { issue, captured } = await start();
    await s.double.removeLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    expect((await latestRun(s, issue))?.state).toBe('cancelled');
    const before = workerRuns();

    await replay(captured.payload);
    expect(await latestRun(s, issue)).toMatchObject({ generation: 1, state: 'cancelled' });
    expect(workerRuns()).toBe(before);
  });

  it('after /cancel, with the label still on the open issue: the old label starts nothing, a relabel does', async () => {
    const { issue, captured } = await start();
    await s.double.comment(REPO, issue, '/cancel', MAINTAINER);
    await s.settle();
    expect((await latestRun(s, issue))?.state).toBe('cancelled');
    const before = workerRuns();

    await replay(captured.payload);
    expect(await latestRun(s, issue)).toMatchObject({ generation: 1, state: 'cancelled' });
    expect(workerRuns()).toBe(before);

    await s.double.removeLabel(REPO, issue, 'agent', MAINTAINER);
    await relabel(issue);
    expect(await latestRun(s, issue)).toMatchObject({ generation: 2, state: 'running' });
    // The relabel's own delivery, captured and sent again once its run has ended, starts nothing.
    const relabelled = s.double.deliveries({ event: 'issues', action: 'labeled' }).at(-1)!;
    await s.double.comment(REPO, issue, '/cancel', MAINTAINER);
    await s.settle();
    await replay(relabelled.payload);
    expect(await latestRun(s, issue)).toMatchObject({ generation: 2, state: 'cancelled' });
  });
});

/**
 * A label that started nothing because the repository's config is invalid is answered with the
 * config's errors. That answer is the App's write: the same label event sent again under new
 * delivery ids must not make it write the answer again (docs/commands.md, "Answers").
 */
describe('a captured issues.labeled refused for an invalid config, sent again', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  it('is answered once; a relabel is answered again', async () => {
    s = await startScenario({ config: 'merge:\n  method: fast-forward\n' });
    const issue = await openLabelled(s);
    const answers = () =>
      comments(s, issue).filter((c) =>
        c.body.includes('`.github/agent-coordinator.yml` is invalid'),
      );
    expect(answers()).toHaveLength(1);
    const [captured] = s.double.deliveries({ event: 'issues', action: 'labeled' });
    for (let i = 0; i < 3; i++) {
      const sent = await s.app.send('issues', captured!.payload, { id: randomUUID() });
      expect(sent.ok).toBe(true);
    }
    await s.settle();
    expect(answers()).toHaveLength(1);
    expect(await latestRun(s, issue)).toBeUndefined();

    await s.double.removeLabel(REPO, issue, 'agent', MAINTAINER);
    s.double.advanceClock(5_000);
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    expect(answers()).toHaveLength(2);
  });
});
