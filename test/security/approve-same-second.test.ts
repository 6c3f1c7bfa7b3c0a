import { afterEach, describe, expect, it } from 'vitest';
import {
  closeScenario,
  MAINTAINER,
  REPO,
  startScenario,
  taskOf,
  type Scenario,
  APP_BOT,
  workerOpensPr,
} from '../e2e/harness.js';

type Pull = { number: number; merged: boolean; head: { ref: string; sha: string } };
type Delivery = { event: string; payload: unknown; guid: string };

/**
 * docs/commands.md "Approvals": a plain `/approve` covers only a head its author could have seen.
 * GitHub dates comments and pushes to the second, so a push GitHub dates in the same second as
 * the comment came, as far as anyone can tell, after it: nobody reviews new work in the second
 * it lands. The push is delivered first (GitHub delivers out of order).
 */
describe('a push dated the same second as a plain /approve', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const send = async (d: Delivery) => {
    expect((await s.app.send(d.event, d.payload, { id: d.guid })).ok).toBe(true);
    await s.settle();
  };
  const lastDelivery = (event: string, action: string): Delivery =>
    s.double.deliveries({ event, action }).at(-1)!;

  it.each(['the push', 'the /approve'])(
    'is not approved by it (%s handled first)',
    async (first) => {
      s = await startScenario();
      const { issue, pr, runId } = await workerOpensPr(s);

      // GitHub's clock at the start of a second: the comment and the push land within it.
      s.double.advanceClock(1000 - (Date.now() % 1000));
      s.double.webhooksDown = true;
      await s.double.comment(REPO, pr, '/approve', MAINTAINER);
      const unseen = await s.double.pushCommit(REPO, 'agent/1/a', {
        message: 'more work',
        files: { 'unseen.txt': 'x\n' },
        by: APP_BOT,
      });
      await s.double.completeWorkflowRun(runId, 'success');
      s.double.webhooksDown = false;
      const approve = lastDelivery('issue_comment', 'created');
      const push = lastDelivery('pull_request', 'synchronize');
      const completed = lastDelivery('workflow_run', 'completed');
      const writtenAt = (approve.payload as { comment: { created_at: string } }).comment.created_at;
      const pushedAt = (push.payload as { pull_request: { updated_at: string } }).pull_request
        .updated_at;
      expect(pushedAt).toBe(writtenAt);

      for (const d of first === 'the push'
        ? [push, approve, completed]
        : [approve, push, completed])
        await send(d);
      await s.app.sweep();
      await s.settle();

      const pull = (s.double.pulls(REPO) as Pull[]).find((p) => p.number === pr)!;
      expect(pull).toMatchObject({ merged: false, head: { sha: unseen } });
      expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'in_review', approvedSha: null });
    },
  );
});
