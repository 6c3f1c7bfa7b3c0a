import { afterEach, describe, expect, it } from 'vitest';
import {
  BUILD_THEN_DOCS,
  MAINTAINER,
  REPO,
  repositoryIdOf,
  startScenario,
  statusComment,
  taskOf,
  type Scenario,
  closeScenario,
} from './harness.js';

const PLAN = BUILD_THEN_DOCS;

/** Failed attempts, timeouts, invalid plans, permissions and duplicate deliveries (docs/lifecycle.md, docs/worker.md). */
describe('attempts that go wrong (GitHub double)', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const start = async (body: string, label = 'agent', by = MAINTAINER) => {
    const issue = await s.double.openIssue(REPO, { title: 'Feature', body, user: MAINTAINER });
    await s.double.addLabel(REPO, issue, label, by);
    await s.settle();
    return issue;
  };
  const runsOn = (branch: string) => s.double.runs(REPO).filter((r) => r.head_branch === branch);
  const task = (issue: number, key: string) => taskOf(s, issue, key);
  const issueComments = (issue: number) =>
    (s.double.comments(REPO, issue) as Array<{ body: string }>).map((c) => c.body);

  it('retries a failed attempt on the same branch and the same PR', async () => {
    s = await startScenario();
    s.double.setWorker((_run, ctx) =>
      ctx.dispatchesOnBranch === 1
        ? { kind: 'fail', conclusion: 'failure' }
        : { kind: 'pr', costUsd: 0.1 },
    );
    const issue = await start(PLAN);
    const runs = runsOn('agent/1/build');
    expect(runs.map((r) => r.inputs.attempt)).toEqual(['1', '2']);
    expect(runs.map((r) => r.conclusion)).toEqual(['failure', 'success']);
    expect((await task(issue, 'build'))?.state).toBe('in_review');
    expect((await task(issue, 'build'))?.attemptCount).toBe(2);
    expect(s.double.pulls(REPO)).toHaveLength(1);
  });

  it('fails the task after retries.max, blocks its dependents and says how to /retry', async () => {
    s = await startScenario({ config: 'retries:\n  max: 1\n  backoff: [0s]\n' });
    s.double.setWorker(() => ({ kind: 'fail', conclusion: 'startup_failure' }));
    const issue = await start(PLAN);
    expect(runsOn('agent/1/build')).toHaveLength(2);
    expect((await task(issue, 'build'))?.state).toBe('failed');
    expect((await task(issue, 'docs'))?.state).toBe('blocked');
    const failure = issueComments(issue).find((b) => b.includes('task `build` failed'));
    expect(failure).toContain('after 2 attempts');
    expect(failure).toContain('/retry build');
    expect(failure).toMatch(/Log: http/);
    expect(failure).toContain('`docs`');
    expect(statusComment(s.double, issue)).toContain('failed');
    expect(runsOn('agent/1/docs')).toHaveLength(0);
  });

  it('counts a run that ends with no PR as a failed attempt (no_changes)', async () => {
    s = await startScenario({ config: 'retries:\n  max: 1\n  backoff: [0s]\n' });
    s.double.setWorker(() => ({ kind: 'no_changes' }));
    const issue = await start(PLAN);
    expect(runsOn('agent/1/build')).toHaveLength(2);
    expect((await task(issue, 'build'))?.state).toBe('failed');
    expect(issueComments(issue).join('\n')).toContain('no_changes');
  });

  it('waits out the retry backoff before dispatching again', async () => {
    s = await startScenario({ config: 'retries:\n  max: 2\n  backoff: [30s, 5m]\n' });
    s.double.setWorker((_run, ctx) =>
      ctx.dispatchesOnBranch === 1 ? { kind: 'fail' } : { kind: 'pr' },
    );
    const issue = await start(PLAN);
    expect(runsOn('agent/1/build')).toHaveLength(1);
    expect((await task(issue, 'build'))?.state).toBe('pending');
    await s.app.sweep();
    await s.settle();
    expect(runsOn('agent/1/build')).toHaveLength(1);
    s.clock.advance(31_000);
    await s.app.sweep();
    await s.settle();
    expect(runsOn('agent/1/build')).toHaveLength(2);
    expect((await task(issue, 'build'))?.state).toBe('in_review');
  });

  it('cancels a run past its timeout from the sweep and retries it', async () => {
    s = await startScenario({ config: 'worker:\n  timeoutMinutes: 5\n' });
    s.double.setWorker((_run, ctx) =>
      ctx.dispatchesOnBranch === 1 ? { kind: 'hang' } : { kind: 'pr' },
    );
    const issue = await start(PLAN);
    expect(runsOn('agent/1/build')[0]?.status).toBe('in_progress');
    s.clock.advance(4 * 60_000);
    await s.app.sweep();
    await s.settle();
    expect(runsOn('agent/1/build')).toHaveLength(1);
    s.clock.advance(2 * 60_000);
    const report = await s.app.sweep();
    await s.settle();
    expect(report?.timedOut).toBe(1);
    const runs = runsOn('agent/1/build');
    expect(runs[0]?.conclusion).toBe('cancelled');
    expect(runs).toHaveLength(2);
    expect((await task(issue, 'build'))?.state).toBe('in_review');
    const attempts = await s.app.store.attempts.ofRun(
      (await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue))!.id,
    );
    expect(attempts[0]?.conclusion).toBe('timed_out');
  });

  it("charges a run it cancelled at its timeout what the run's agent job said, and holds the run before the retry", async () => {
    // The worker stops the agent a grace margin before the timeout and says what it spent; what
    // the agent left then holds the job (a FIFO git reads) until the coordinator cancels it.
    s = await startScenario({
      config:
        'worker:\n  timeoutMinutes: 5\nbudget:\n  maxCostUsdPerRun: 1\nretries:\n  backoff: [1m]\n',
    });
    s.double.setWorker(() => ({
      kind: 'hang',
      usage: { costUsd: 2.5, inputTokens: 9000, outputTokens: 700 },
    }));
    const issue = await start(PLAN);
    s.clock.advance(6 * 60_000);
    expect((await s.app.sweep())?.timedOut).toBe(1);
    await s.settle();
    expect(runsOn('agent/1/build').map((r) => r.conclusion)).toEqual(['cancelled']);
    const run = (await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue))!;
    const [attempt] = await s.app.store.attempts.ofRun(run.id);
    expect(attempt).toMatchObject({ conclusion: 'timed_out', costUsd: 2.5, inputTokens: 9000 });
    expect((await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue))?.state).toBe('held');
    // The retry's backoff passes: the held run dispatches nothing.
    s.clock.advance(2 * 60_000);
    await s.app.sweep();
    await s.settle();
    expect(runsOn('agent/1/build')).toHaveLength(1);
  });

  it('shows an invalid plan in the status comment and dispatches nothing', async () => {
    s = await startScenario();
    const cyclic = [
      '```tasks',
      '- id: task_a',
      '  title: A',
      '  deps: [task_b]',
      '- id: task_b',
      '  title: B',
      '  deps: [task_a]',
      '```',
    ].join('\n');
    const issue = await start(cyclic);
    expect(s.double.runs(REPO)).toEqual([]);
    const status = statusComment(s.double, issue);
    expect(status).toContain('task_a -> task_b -> task_a');
    expect(status).toMatch(/plan_invalid|invalid/i);
  });

  it('replies once to a label from a user without write access and starts nothing', async () => {
    s = await startScenario();
    await s.double.setPermission(REPO, 'drive-by', 'triage');
    const issue = await start(PLAN, 'agent', 'drive-by');
    expect(s.double.runs(REPO)).toEqual([]);
    const replies = issueComments(issue);
    expect(replies).toHaveLength(1);
    expect(replies[0]).toContain('only people with write access');
  });

  it('handles a redelivered webhook once', async () => {
    s = await startScenario();
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await start(PLAN);
    const labeled = s.double.deliveries({ event: 'issues', action: 'labeled' });
    expect(labeled).toHaveLength(1);
    const response = await s.app.send('issues', labeled[0]!.payload, { id: labeled[0]!.guid });
    expect(response.status).toBe(200);
    await s.settle();
    expect(runsOn('agent/1/build')).toHaveLength(1);
    expect(issueComments(issue).filter((b) => b.includes('agent-coordinator:status'))).toHaveLength(
      1,
    );
  });

  it('plans with the planner job when the issue has no tasks block', async () => {
    s = await startScenario();
    s.double.setWorker((run) =>
      run.inputs.mode === 'plan' ? { kind: 'plan', tasksBlock: PLAN } : { kind: 'pr' },
    );
    const issue = await start('Please build the feature; no plan here.');
    const planner = runsOn('agent/1/plan');
    expect(planner).toHaveLength(1);
    expect(planner[0]?.inputs).toMatchObject({ task_id: 'plan', mode: 'plan', attempt: '1' });
    expect(runsOn('agent/1/build')).toHaveLength(1);
    expect((await task(issue, 'build'))?.state).toBe('in_review');
  });

  it('ignores a plan comment for a run id it did not dispatch, or from anyone but the App', async () => {
    s = await startScenario();
    s.double.setWorker((run) => (run.inputs.mode === 'plan' ? { kind: 'manual' } : { kind: 'pr' }));
    const issue = await start('No plan.');
    const plannerRun = runsOn('agent/1/plan')[0]!;
    const planFor = (runId: number) => `${PLAN}\n<!-- agent-coordinator:plan run_id=${runId} -->`;
    // The App itself, naming a run it did not dispatch.
    await s.double.commentAsApp(REPO, issue, planFor(999999));
    // The planner's own run id, from a person and from the Actions bot (any workflow's
    // GITHUB_TOKEN comments as github-actions[bot], and run ids are public).
    await s.double.comment(REPO, issue, planFor(plannerRun.id as number), MAINTAINER);
    await s.double.comment(REPO, issue, planFor(plannerRun.id as number), 'github-actions[bot]');
    await s.settle();
    expect(runsOn('agent/1/build')).toHaveLength(0);
    expect((await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue))?.state).toBe(
      'planning',
    );
    await s.double.commentAsApp(REPO, issue, planFor(plannerRun.id as number));
    await s.settle();
    expect(runsOn('agent/1/build')).toHaveLength(1);
  });

  it('accepts the plan from the App itself (a planner commenting with the App token)', async () => {
    s = await startScenario();
    s.double.setWorker((run) => (run.inputs.mode === 'plan' ? { kind: 'manual' } : { kind: 'pr' }));
    const issue = await start('No plan.');
    const plannerRun = runsOn('agent/1/plan')[0]!;
    await s.double.commentAsApp(
      REPO,
      issue,
      `${PLAN}\n<!-- agent-coordinator:plan run_id=${plannerRun.id as number} -->`,
    );
    await s.settle();
    expect(runsOn('agent/1/build')).toHaveLength(1);
    expect((await task(issue, 'docs'))?.state).toBe('pending');
  });

  it('cancels the run when the label is removed: workflow runs cancelled, PRs left open', async () => {
    s = await startScenario();
    s.double.setWorker(() => ({ kind: 'hang' }));
    const issue = await start(PLAN);
    expect(runsOn('agent/1/build')[0]?.status).toBe('in_progress');
    await s.double.removeLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    expect(runsOn('agent/1/build')[0]?.conclusion).toBe('cancelled');
    expect((await task(issue, 'build'))?.state).toBe('cancelled');
    expect(statusComment(s.double, issue)).toContain('cancelled');
  });
});
