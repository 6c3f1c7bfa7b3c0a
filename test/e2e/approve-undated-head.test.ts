import { afterEach, describe, expect, it } from 'vitest';
import {
  closeScenario,
  MAINTAINER,
  REPO,
  startRun,
  startScenario,
  taskOf,
  type Scenario,
  APP_BOT,
  workerOpensPr as openPrOfWorker,
} from './harness.js';

type Pull = { number: number; state: string; merged: boolean; head: { ref: string; sha: string } };
type Delivery = { event: string; payload: unknown; guid: string };

const NOT_SEEN = 'whose push the coordinator has not handled yet';

/**
 * A push whose `pull_request.synchronize` delivery is late (GitHub slow, or its handling waits for
 * a retry while the repository's later deliveries go on): a plain `/approve` handled meanwhile
 * finds a head on GitHub that no handled delivery dated, so it cannot tell whether the comment
 * was written before it. It approves nothing, whichever of the `/approve` and the run's
 * completion is handled first, and the new head is merged only after an approval of it.
 */
describe('a plain /approve of a head whose push has not been delivered yet', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const pullOf = () => (s.double.pulls(REPO) as Pull[]).find((p) => p.head.ref === 'agent/1/a')!;
  const lastReply = (pr: number) =>
    (s.double.comments(REPO, pr) as { body: string }[]).map((c) => c.body).at(-1);
  const send = async (d: Delivery) => {
    expect((await s.app.send(d.event, d.payload, { id: d.guid })).ok).toBe(true);
    await s.settle();
  };
  const lastDelivery = (event: string, action: string): Delivery =>
    s.double.deliveries({ event, action }).at(-1)!;

  /** The worker has pushed and opened its PR; its run is still going. */
  const workerOpensPr = async () => {
    s = await startScenario();
    return openPrOfWorker(s);
  };
  const pushMore = () =>
    s.double.pushCommit(REPO, 'agent/1/a', {
      message: 'more work',
      files: { 'more.txt': 'x\n' },
      by: APP_BOT,
    });

  it.each(['the /approve', 'the run’s completion'])(
    'an /approve written before the push approves nothing (%s handled first), nor once the push is delivered',
    async (first) => {
      const { issue, pr, runId } = await workerOpensPr();
      // GitHub takes them while the app is unreachable: the /approve, 5 s later a push, then the
      // run's completion. The push's delivery stays held until the others are handled.
      s.double.webhooksDown = true;
      await s.double.comment(REPO, pr, '/approve', MAINTAINER);
      s.double.advanceClock(5_000);
      const newHead = await pushMore();
      await s.double.completeWorkflowRun(runId, 'success');
      s.double.webhooksDown = false;
      const approve = lastDelivery('issue_comment', 'created');
      const push = lastDelivery('pull_request', 'synchronize');
      const completed = lastDelivery('workflow_run', 'completed');

      for (const d of first === 'the /approve' ? [approve, completed] : [completed, approve])
        await send(d);
      let task = await taskOf(s, issue, 'a');
      expect(task?.state).toBe('in_review');
      expect(task?.approvedSha).toBeNull();
      expect(pullOf()).toMatchObject({ state: 'open', merged: false, head: { sha: newHead } });
      expect(lastReply(pr)).toContain(NOT_SEEN);
      expect(lastReply(pr)).toContain(`or \`/approve ${newHead.slice(0, 7)}\``);

      await send(push);
      task = await taskOf(s, issue, 'a');
      expect(task?.state).toBe('in_review');
      expect(task?.approvedSha).toBeNull();
      expect(pullOf().merged).toBe(false);

      // The push delivered, a plain /approve written now (a second on) covers the head it shows.
      s.double.advanceClock(1_000);
      await s.double.comment(REPO, pr, '/approve', MAINTAINER);
      await s.settle();
      expect((await taskOf(s, issue, 'a'))?.state).toBe('merged');
      expect(pullOf()).toMatchObject({ merged: true, head: { sha: newHead } });
    },
  );

  it('an /approve written after the push waits for it too; /approve <sha> approves at once', async () => {
    const { issue, pr, runId } = await workerOpensPr();
    s.double.webhooksDown = true;
    const newHead = await pushMore();
    s.double.webhooksDown = false;
    // The reviewer sees the new head on GitHub; its push's delivery is never handled here.
    s.double.advanceClock(5_000);
    await s.double.comment(REPO, pr, '/approve', MAINTAINER);
    await s.settle();
    expect((await taskOf(s, issue, 'a'))?.approvedSha).toBeNull();
    expect(lastReply(pr)).toContain(NOT_SEEN);

    await s.double.comment(REPO, pr, `/approve ${newHead.slice(0, 7)}`, MAINTAINER);
    await s.settle();
    expect((await taskOf(s, issue, 'a'))?.approvedSha).toBe(newHead);
    await s.double.completeWorkflowRun(runId, 'success');
    await s.settle();
    expect((await taskOf(s, issue, 'a'))?.state).toBe('merged');
  });

  it('approves the coordinator’s own update of the delivered head, its push still to come', async () => {
    s = await startScenario();
    await s.double.setRequiredChecks(REPO, 'main', [], { strict: true });
    await s.double.setPermission(REPO, 'second-maintainer', 'maintain');
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await startRun(s);
    const { number: pr, head } = pullOf();
    await s.double.advanceBranch(REPO, 'main');
    await s.settle();
    // Approved while behind main: the coordinator asks GitHub to merge main into the branch.
    s.double.deferBranchUpdates = true;
    await s.double.comment(REPO, pr, '/approve', MAINTAINER);
    await s.double.waitFor(() => s.double.heldBranchUpdates(REPO).includes(pr) || undefined, {
      timeoutMs: 10_000,
      description: 'the update asked for',
    });
    // GitHub merges main into the head and answers; the push's delivery is late.
    s.double.webhooksDown = true;
    const [landed] = await s.double.releaseBranchUpdates();
    s.double.webhooksDown = false;
    s.double.deferBranchUpdates = false;
    await s.settle();
    expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'approved', approvedSha: head.sha });
    const push = lastDelivery('pull_request', 'synchronize');
    expect(push.payload).toMatchObject({ after: landed!.sha });

    // A second maintainer's /approve finds the update's merge: no new work, approved.
    await s.double.comment(REPO, pr, '/approve', 'second-maintainer');
    await s.settle();
    expect(lastReply(pr)).not.toContain(NOT_SEEN);
    expect(await taskOf(s, issue, 'a')).toMatchObject({ approvedSha: landed!.sha });

    await send(push);
    expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'merged' });
    expect(pullOf()).toMatchObject({ merged: true, head: { sha: landed!.sha } });
  });
});
