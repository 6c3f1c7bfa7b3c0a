import { afterEach, describe, expect, it } from 'vitest';
import {
  closeScenario,
  MAINTAINER,
  REPO,
  startScenario,
  statusComment,
  taskOf,
  type Scenario,
} from './harness.js';

const PLAN = ['```tasks', '- id: build', '  title: Build it', '```'].join('\n');
const ONE_ATTEMPT = 'retries:\n  max: 0\n';

/** Why a worker failed, read from its job's error annotation, reaches the issue. */
describe("the worker's failure reason (GitHub double)", () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const failingWith = async (outcome: { reason: string; detail: string }) => {
    s.double.setWorker(() => ({ kind: 'fail', conclusion: 'failure', ...outcome }));
    const issue = await s.double.openIssue(REPO, {
      title: 'Feature',
      body: PLAN,
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    const failure = (s.double.comments(REPO, issue) as Array<{ body: string }>)
      .map((c) => c.body)
      .find((b) => b.includes('task `build` failed'));
    const task = await taskOf(s, issue, 'build');
    const attempt = await s.app.store.attempts.byTaskAttempt(task!.id, 1);
    return { failure, task, attempt, status: statusComment(s.double, issue) };
  };

  it('names workflow_files_changed and the files in the failure comment', async () => {
    s = await startScenario({ config: ONE_ATTEMPT });
    const { failure, task, attempt, status } = await failingWith({
      reason: 'workflow_files_changed',
      detail:
        "the commits to push change files under .github/workflows/, which the worker's token may not push: .github/workflows/ci.yml",
    });
    expect(task?.state).toBe('failed');
    // Stored as the attempt's reason, which the dashboard shows.
    expect(attempt?.failureReason).toBe(
      "workflow_files_changed: the commits to push change files under .github/workflows/, which the worker's token may not push: .github/workflows/ci.yml",
    );
    expect(failure).toContain('the worker failed: workflow_files_changed: ');
    expect(failure).toContain('.github/workflows/ci.yml');
    expect(failure).not.toContain('ended with failure');
    // The status comment's row says why too (its cell is cut short).
    expect(status).toContain('| failed: workflow_files_changed: the commits to push');
  });

  it("brings the agent's own error to the issue, rendered inert", async () => {
    s = await startScenario({ config: ONE_ATTEMPT });
    const { failure, attempt, status } = await failingWith({
      reason: 'agent_failed',
      detail:
        'the agent reported an error: error_max_turns: Reached maximum number of turns (3) @octocat <img src=x>',
    });
    expect(attempt?.failureReason).toBe(
      'agent_failed: the agent reported an error: error_max_turns: Reached maximum number of turns (3) @octocat <img src=x>',
    );
    expect(failure).toContain('error_max_turns: Reached maximum number of turns (3)');
    // The agent's text mentions nobody and opens no HTML.
    expect(failure).not.toMatch(/@octocat|<img/);
    expect(failure).toContain('&lt;img src=x&gt;');
    expect(status).toContain('failed: agent_failed: the agent reported an error: error_max_turns');
    expect(status).not.toMatch(/@octocat|<img/);
  });

  it("falls back to the run's conclusion when GitHub will not give the annotations", async () => {
    s = await startScenario({ config: ONE_ATTEMPT });
    s.double.faults.add({ method: 'GET', path: /\/check-runs\/\d+\/annotations$/, status: 502 });
    const { failure, task, attempt } = await failingWith({
      reason: 'no_changes',
      detail: 'the agent left nothing to commit',
    });
    expect(task?.state).toBe('failed');
    expect(attempt?.failureReason).toBe('failure');
    expect(failure).toContain('the worker run ended with failure');
  });
});
