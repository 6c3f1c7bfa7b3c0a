import { afterEach, describe, expect, it } from 'vitest';
import {
  closeScenario,
  MAINTAINER,
  REPO,
  startScenario,
  taskOf,
  type Scenario,
  ONE_TASK_PLAN,
} from './harness.js';

type Pull = { number: number; head: { ref: string; sha: string } };
type Comment = { body: string; reaction_contents: string[] };

const APP_BOT = 'agent-coordinator[bot]';

/**
 * On GitHub the worker opens its PR seconds before its job ends, so a reviewer's approval is
 * often handled before the run's `workflow_run.completed`. The approval counts for the head
 * it was given on, and stands once the run completes.
 */
describe('an approval given while the worker is still finishing', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const pullOf = () => (s.double.pulls(REPO) as Pull[]).find((p) => p.head.ref === 'agent/1/a')!;
  /** The run is dispatched and started; the worker has pushed and opened its PR, no more. */
  const workerOpensPr = async () => {
    s = await startScenario();
    s.double.setWorker(null);
    const issue = await s.double.openIssue(REPO, {
      title: 'Feature',
      body: ONE_TASK_PLAN,
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    const run = s.double.runs(REPO).find((r) => r.head_branch === 'agent/1/a')!;
    const runId = run.id as number;
    await s.double.startWorkflowRun(runId);
    await s.double.pushCommit(REPO, 'agent/1/a', {
      message: 'a: A',
      files: { 'a.txt': 'A\n' },
      by: APP_BOT,
    });
    const pr = await s.double.openPr(REPO, { head: 'agent/1/a', title: 'A', by: APP_BOT });
    await s.settle();
    expect((await taskOf(s, issue, 'a'))?.state).toBe('running');
    return { issue, pr, runId };
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
    await s.double.pushCommit(REPO, 'agent/1/a', {
      message: 'more work',
      files: { 'more.txt': 'x' },
      by: APP_BOT,
    });
    await s.double.completeWorkflowRun(runId, 'success');
    await s.settle();
    const task = await taskOf(s, issue, 'a');
    expect(task?.state).toBe('in_review');
    expect(task?.approvedSha).toBe(approvedHead);
    expect(pullOf().head.sha).not.toBe(approvedHead);

    await s.double.comment(REPO, pr, '/approve', MAINTAINER);
    await s.settle();
    expect((await taskOf(s, issue, 'a'))?.state).toBe('merged');
  });
});
