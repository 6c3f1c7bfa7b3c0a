import { afterEach, describe, expect, it } from 'vitest';
import {
  closeScenario,
  MAINTAINER,
  ONE_TASK_PLAN,
  REPO,
  repositoryIdOf,
  startScenario,
  type Scenario,
} from '../e2e/harness.js';
import { answerText } from '../helpers/answer-text.js';

type Comment = { body: string; user: { login: string } };

const APP_BOT = 'agent-coordinator[bot]';

/**
 * On a public repository anyone may open an issue, and GitHub lets its author close it with no
 * access to the repository; the triage role closes any issue and removes labels. None of them
 * may cancel the run a person with write access started by labelling it, as `/cancel` needs write.
 */
describe('closing the issue or removing its label without write access', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const start = async () => {
    s = await startScenario({ private: false });
    s.double.setWorker(null); // the task's worker stays out: the run is in flight
    await s.double.setPermission(REPO, 'triager', 'triage');
    const issue = await s.double.openIssue(REPO, {
      title: 'Please add a feature',
      body: ONE_TASK_PLAN,
      user: 'reporter',
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    expect(await runState(issue)).toBe('running');
    return issue;
  };
  const runState = async (issue: number) =>
    (await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue))?.state;
  const replies = (issue: number) =>
    (s.double.comments(REPO, issue) as Comment[]).filter(
      (c) => c.user.login === APP_BOT && c.body.startsWith('@'),
    );

  it("the issue's author closing it leaves the run going, and is told so once", async () => {
    const issue = await start();
    await s.double.closeIssue(REPO, issue, 'reporter');
    await s.settle();
    expect(await runState(issue)).toBe('running');
    expect(s.double.runs(REPO).map((r) => r.conclusion)).not.toContain('cancelled');
    expect(s.double.runs(REPO)).not.toHaveLength(0);
    expect(replies(issue).map((c) => answerText(c.body))).toEqual([
      '@reporter closing the issue does not cancel the agent-coordinator run: only people with write access can (your role: read); the run goes on.',
    ]);

    await s.double.reopenIssue(REPO, issue, 'reporter');
    await s.double.closeIssue(REPO, issue, 'reporter');
    await s.settle();
    expect(await runState(issue)).toBe('running');
    expect(replies(issue)).toHaveLength(1); // the refusal budget: one reply an hour
  });

  it('a triager removing the label or closing the issue leaves the run going', async () => {
    const issue = await start();
    await s.double.removeLabel(REPO, issue, 'agent', 'triager');
    await s.settle();
    expect(await runState(issue)).toBe('running');
    await s.double.closeIssue(REPO, issue, 'triager');
    await s.settle();
    expect(await runState(issue)).toBe('running');
    const log = await s.app.store.commands.ofRepository(repositoryIdOf(s.double));
    expect(log.map((c) => [c.actorLogin, c.name, c.accepted])).toEqual([
      ['triager', 'unlabel', false],
      ['triager', 'close', false],
    ]);

    // A workflow's stale-issue sweep (a bot) neither: recorded, not answered.
    await s.double.reopenIssue(REPO, issue, MAINTAINER);
    await s.double.closeIssue(REPO, issue, 'github-actions[bot]');
    await s.settle();
    expect(await runState(issue)).toBe('running');
    expect(replies(issue).map((c) => c.body.split(' ')[0])).toEqual(['@triager']);
    const botRow = (await s.app.store.commands.ofRepository(repositoryIdOf(s.double))).at(-1);
    expect([botRow?.actorLogin, botRow?.name, botRow?.accepted]).toEqual([
      'github-actions[bot]',
      'close',
      false,
    ]);

    // Someone with write access still cancels it by closing.
    await s.double.reopenIssue(REPO, issue, MAINTAINER);
    await s.double.closeIssue(REPO, issue, MAINTAINER);
    await s.settle();
    expect(await runState(issue)).toBe('cancelled');
  });
});
