import { afterEach, describe, expect, it } from 'vitest';
import {
  closeScenario,
  MAINTAINER,
  ONE_TASK_PLAN,
  REPO,
  startScenario,
  statusComment,
  type Scenario,
} from '../e2e/harness.js';
import { latestRun, taskState } from './security-helpers.js';

/**
 * A plan's `base` is written by whoever wrote the issue's tasks block or by the planner agent
 * the issue's text steers (SPEC §2). It becomes every task's start, the branch their PRs target,
 * the `run_base` a stacked task falls back to and takes its agent configuration from
 * (docs/stacking.md). A task branch (`agent/<issue>/<task_id>`) is an agent's unreviewed work:
 * naming one must not make the run's agents start from it and be configured by it.
 */
describe("a plan whose base is another task's branch", () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  it('is refused, and nothing is dispatched', async () => {
    s = await startScenario();
    const first = await s.double.openIssue(REPO, {
      title: 'A',
      body: ONE_TASK_PLAN,
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, first, 'agent', MAINTAINER);
    await s.settle();
    expect(await taskState(s, first, 'a')).toBe('in_review');
    expect(s.double.branches(REPO)).toContain(`agent/${first}/a`);

    const body = [
      '```tasks',
      `base: agent/${first}/a`,
      'tasks:',
      '  - id: b',
      '    title: B',
      '```',
    ];
    const issue = await s.double.openIssue(REPO, {
      title: 'B',
      body: body.join('\n'),
      user: 'a-stranger',
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();

    expect((await latestRun(s, issue))?.state).toBe('plan_invalid');
    expect(statusComment(s.double, issue)).toContain(`is a task's branch`);
    const dispatched = s.double.runs(REPO).map((r) => String(r.head_branch));
    expect(dispatched.filter((b) => b.startsWith(`agent/${issue}/`))).toEqual([]);
    s.double.assertNoViolations();
  });
});
