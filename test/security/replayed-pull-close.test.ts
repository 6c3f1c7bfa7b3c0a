import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CHAIN_OF_TWO,
  closeScenario,
  MAINTAINER,
  REPO,
  startRun,
  startScenario,
  type Scenario,
} from '../e2e/harness.js';
import { latestRun, pulls, taskState } from './security-helpers.js';

/**
 * docs/security.md, "The network": a captured delivery is signed, but its `X-GitHub-Delivery` id
 * is not, so it can be sent again. A maintainer's close of an agent PR rejects its task and blocks
 * its dependents; sent again once the task went on, it rejects nothing.
 */
describe('a captured pull_request.closed sent again under a new delivery id', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const agentPulls = (issue: number) =>
    pulls(s)
      .filter((p) => p.head.ref === `agent/${issue}/a`)
      .map((p) => ({ number: p.number, state: p.state }));

  it('after the task was retried into a new PR: the task stays in review, its dependent pending', async () => {
    s = await startScenario();
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await startRun(s, { body: CHAIN_OF_TWO });
    const [first] = agentPulls(issue);
    await s.double.closePr(REPO, first!.number, MAINTAINER);
    await s.settle();
    expect(await taskState(s, issue, 'a')).toBe('rejected');
    expect(await taskState(s, issue, 'b')).toBe('blocked');
    const [captured] = s.double.deliveries({ event: 'pull_request', action: 'closed' });

    await s.double.comment(REPO, issue, '/retry a', MAINTAINER);
    await s.settle();
    const second = agentPulls(issue).find((p) => p.state === 'open')!;
    expect(second.number).not.toBe(first!.number);
    expect(await taskState(s, issue, 'a')).toBe('in_review');
    expect(await taskState(s, issue, 'b')).toBe('pending');

    const sent = await s.app.send('pull_request', captured!.payload, { id: randomUUID() });
    expect(sent.ok).toBe(true);
    await s.settle();
    expect(await taskState(s, issue, 'a')).toBe('in_review');
    expect(await taskState(s, issue, 'b')).toBe('pending');
    const run = await latestRun(s, issue);
    expect((await s.app.store.runs.task(run!.id, 'a'))?.prNumber).toBe(second.number);
  });

  it('after the maintainer opened the PR again: the task stays in review, its dependent pending', async () => {
    s = await startScenario();
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await startRun(s, { body: CHAIN_OF_TWO });
    const [pr] = agentPulls(issue);
    await s.double.closePr(REPO, pr!.number, MAINTAINER);
    await s.settle();
    const [captured] = s.double.deliveries({ event: 'pull_request', action: 'closed' });
    await s.double.reopenPr(REPO, pr!.number, MAINTAINER);
    await s.double.comment(REPO, issue, '/retry a', MAINTAINER);
    await s.settle();
    expect(await taskState(s, issue, 'a')).toBe('in_review');
    expect(agentPulls(issue)).toEqual([{ number: pr!.number, state: 'open' }]);

    const sent = await s.app.send('pull_request', captured!.payload, { id: randomUUID() });
    expect(sent.ok).toBe(true);
    await s.settle();
    expect(await taskState(s, issue, 'a')).toBe('in_review');
    expect(await taskState(s, issue, 'b')).toBe('pending');
  });
});
