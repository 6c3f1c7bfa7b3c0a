import { afterEach, describe, expect, it } from 'vitest';
import {
  closeScenario,
  MAINTAINER,
  REPO,
  startScenario,
  taskOf,
  type Scenario,
  APP_BOT,
  workerOpensPr as openPrOfWorker,
} from './harness.js';
import { answerBody } from '../../src/core/commands/index.js';

type Pull = { number: number; head: { ref: string; sha: string } };
type Comment = { body: string; reaction_contents: string[] };

/**
 * On GitHub the worker opens its PR seconds before its job ends, so a reviewer's approval is
 * often handled before the run's `workflow_run.completed`. The approval counts for the head
 * it was given on, and stands once the run completes.
 */
describe('an approval given while the worker is still finishing', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const prComments = (pr: number) => (s.double.comments(REPO, pr) as Comment[]).map((c) => c.body);
  const pullOf = () => (s.double.pulls(REPO) as Pull[]).find((p) => p.head.ref === 'agent/1/a')!;
  /** The run is dispatched and started; the worker has pushed and opened its PR, no more. */
  const workerOpensPr = async () => {
    s = await startScenario();
    const opened = await openPrOfWorker(s);
    expect((await taskOf(s, opened.issue, 'a'))?.state).toBe('running');
    return opened;
  };

  it('merges an /approve handled before the run completed, once it completes', async () => {
    const { issue, pr, runId } = await workerOpensPr();
    await s.double.comment(REPO, pr, '/approve', MAINTAINER);
    await s.settle();
    const early = await taskOf(s, issue, 'a');
    expect(early?.state).toBe('running');
    expect(early?.approvedSha).toBe(pullOf().head.sha);
    const comments = s.double.comments(REPO, pr) as Comment[];
    expect(comments.map((c) => c.reaction_contents)).toEqual([[`${APP_BOT}:+1`]]);

    await s.double.completeWorkflowRun(runId, 'success');
    await s.settle();
    expect((await taskOf(s, issue, 'a'))?.state).toBe('merged');
  });

  it('merges after an approving review submitted before the run completed', async () => {
    const { issue, runId, pr } = await workerOpensPr();
    await s.double.approvePr(REPO, pr, MAINTAINER);
    await s.settle();
    expect((await taskOf(s, issue, 'a'))?.approvedSha).toBe(pullOf().head.sha);
    await s.double.completeWorkflowRun(runId, 'success');
    await s.settle();
    expect((await taskOf(s, issue, 'a'))?.state).toBe('merged');
  });

  it('needs approval again when the worker pushes more before its run ends', async () => {
    const { issue, pr, runId } = await workerOpensPr();
    const approvedHead = pullOf().head.sha;
    await s.double.comment(REPO, pr, '/approve', MAINTAINER);
    await s.settle();
    expect((await taskOf(s, issue, 'a'))?.approvedSha).toBe(approvedHead);
    s.double.advanceClock(1_000);
    await s.double.pushCommit(REPO, 'agent/1/a', {
      message: 'more work',
      files: { 'more.txt': 'x' },
      by: APP_BOT,
    });
    await s.double.completeWorkflowRun(runId, 'success');
    await s.settle();
    // The push came after the /approve was written: the approval is withdrawn, and says so.
    const task = await taskOf(s, issue, 'a');
    expect(task?.state).toBe('in_review');
    expect(task?.approvedSha).toBeNull();
    expect(pullOf().head.sha).not.toBe(approvedHead);
    expect(prComments(pr).at(-1)).toContain(
      `The \`/approve\` of \`${approvedHead.slice(0, 7)}\` was written before new commits`,
    );

    // A person reviews the new head: GitHub dates their comment after the push.
    s.double.advanceClock(1_000);
    await s.double.comment(REPO, pr, '/approve', MAINTAINER);
    await s.settle();
    expect((await taskOf(s, issue, 'a'))?.state).toBe('merged');
  });

  it.each(['the push', 'the /approve'])(
    'does not merge new work that reached the PR after the /approve was written (%s handled first)',
    async (first) => {
      const { issue, pr, runId } = await workerOpensPr();
      // GitHub takes both while the app is unreachable: the /approve, then 5 s later a push.
      s.double.webhooksDown = true;
      await s.double.comment(REPO, pr, '/approve', MAINTAINER);
      s.double.advanceClock(5_000);
      const newHead = await s.double.pushCommit(REPO, 'agent/1/a', {
        message: 'more work',
        files: { 'more.txt': 'x' },
        by: APP_BOT,
      });
      s.double.webhooksDown = false;
      const approve = s.double.deliveries({ event: 'issue_comment', action: 'created' }).at(-1)!;
      const push = s.double.deliveries({ event: 'pull_request', action: 'synchronize' }).at(-1)!;
      // Both handled after the push: the /approve always finds the new head on GitHub.
      for (const d of first === 'the push' ? [push, approve] : [approve, push]) {
        expect((await s.app.send(d.event, d.payload, { id: d.guid })).ok).toBe(true);
        await s.settle();
      }
      await s.double.completeWorkflowRun(runId, 'success');
      await s.settle();
      const task = await taskOf(s, issue, 'a');
      expect(task?.state).toBe('in_review');
      expect(task?.approvedSha).toBeNull();
      expect(pullOf().head.sha).toBe(newHead);
      // The reply says so: to the command (push handled first), or when the push withdraws it.
      const reply = prComments(pr).at(-1);
      expect(reply).toContain('new commits reached this pull request');
      expect(reply).toContain(`or \`/approve ${newHead.slice(0, 7)}\``);

      // The reviewer names the head they reviewed.
      await s.double.comment(REPO, pr, `/approve ${newHead.slice(0, 9)}`, MAINTAINER);
      await s.settle();
      expect((await taskOf(s, issue, 'a'))?.state).toBe('merged');
    },
  );

  it('approves with /approve <sha> only the head that SHA names', async () => {
    const { issue, pr, runId } = await workerOpensPr();
    const head = pullOf().head.sha;
    const other = head.startsWith('0') ? '1111111' : '0000000';
    const command = await s.double.comment(REPO, pr, `/approve ${other}`, MAINTAINER);
    await s.settle();
    expect((await taskOf(s, issue, 'a'))?.approvedSha).toBeNull();
    expect(prComments(pr).at(-1)).toBe(
      answerBody(
        `@${MAINTAINER} \`/approve\`: \`${other}\` is not the head of this pull request: its head is \`${head.slice(0, 7)}\`, nothing was approved.`,
        command,
      ),
    );

    await s.double.comment(REPO, pr, `/approve ${head.slice(0, 7).toUpperCase()}`, MAINTAINER);
    await s.settle();
    expect((await taskOf(s, issue, 'a'))?.approvedSha).toBe(head);
    await s.double.completeWorkflowRun(runId, 'success');
    await s.settle();
    expect((await taskOf(s, issue, 'a'))?.state).toBe('merged');
  });
});
