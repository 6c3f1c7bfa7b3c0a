import { afterEach, describe, expect, it } from 'vitest';
import {
  MAINTAINER,
  REPO,
  closeScenario,
  startRun,
  startScenario,
  taskOf,
  workerOpensPr,
  type Scenario,
} from './harness.js';

const CANCEL_RUN = /^\/repos\/[^/]+\/[^/]+\/actions\/runs\/\d+\/cancel$/;
const SERVER_ERROR = { method: 'POST', path: CANCEL_RUN, status: 500, body: { message: 'Boom' } };
/** Handlings of one delivery before it waits for a redelivery (the processor's retries). */
const HANDLINGS = 2;

/**
 * docs/commands.md, "Cancelling": a `/cancel` whose call to cancel GitHub's workflow run fails
 * leaves the attempt open; the delivery's retries or, once they are spent, the sweep cancel the
 * run and end the attempt, and nothing is dispatched again.
 */
describe('a /cancel that GitHub fails to carry out', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const runsOn = (branch: string) => s.double.runs(REPO).filter((r) => r.head_branch === branch);
  const start = async () => {
    s = await startScenario({ processor: { maxAttempts: HANDLINGS } });
    s.double.setWorker(() => ({ kind: 'hang' }));
    const issue = await startRun(s);
    expect(runsOn('agent/1/a').map((r) => r.status)).toEqual(['in_progress']);
    return issue;
  };
  const expectCancelled = async (issue: number) => {
    expect(s.double.faults.pending).toBe(0);
    expect(runsOn('agent/1/a').map((r) => [r.status, r.conclusion])).toEqual([
      ['completed', 'cancelled'],
    ]);
    const task = await taskOf(s, issue, 'a');
    expect(task?.state).toBe('cancelled');
    const attempt = await s.app.store.attempts.latestOf(task!.id);
    expect([attempt?.phase, attempt?.conclusion, attempt?.attempt]).toEqual([
      'completed',
      'cancelled',
      1,
    ]);
  };

  /** GitHub's run still going after the command; the sweep cancels it, and the next does nothing. */
  const expectCancelledBySweep = async (issue: number) => {
    expect(runsOn('agent/1/a')[0]?.status).toBe('in_progress');
    await s.app.sweep();
    await s.settle();
    await expectCancelled(issue);
    // Nothing more: the next sweep finds nothing to cancel or dispatch.
    s.clock.advance(10 * 60_000);
    await s.app.sweep();
    await s.settle();
    expect(runsOn('agent/1/a')).toHaveLength(1);
  };

  it('is carried out by the delivery’s retry when GitHub fails once', async () => {
    const issue = await start();
    s.double.faults.add(SERVER_ERROR);
    await s.double.comment(REPO, issue, '/cancel', MAINTAINER);
    await s.settle();
    await expectCancelled(issue);
  });

  it('is carried out by the sweep once the delivery’s retries are spent', async () => {
    const issue = await start();
    s.double.faults.add({ ...SERVER_ERROR, times: HANDLINGS });
    await s.double.comment(REPO, issue, '/cancel', MAINTAINER);
    await s.settle();
    await expectCancelledBySweep(issue);
  });

  it('cancels one task from its PR through the sweep when GitHub fails once', async () => {
    s = await startScenario({ processor: { maxAttempts: HANDLINGS } });
    const { issue, pr } = await workerOpensPr(s);
    s.double.faults.add(SERVER_ERROR);
    await s.double.comment(REPO, pr, '/cancel', MAINTAINER);
    await s.settle();
    // The delivery's retry finds the task cancelled already and refuses: only the sweep is left.
    await expectCancelledBySweep(issue);
  });
});
