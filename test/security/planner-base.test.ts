import { afterEach, describe, expect, it } from 'vitest';
import {
  closeScenario,
  MAINTAINER,
  REPO,
  startScenario,
  statusComment,
  type Scenario,
} from '../e2e/harness.js';
import { latestRun } from './security-helpers.js';

/** A planner's plan that moves the run onto another branch than the one people chose. */
const RETARGETED_PLAN = [
  '```tasks',
  'base: release',
  'tasks:',
  '  - id: a',
  '    title: A',
  '```',
].join('\n');

/**
 * The planner is an agent steered by the issue's text, which anyone may have written (SPEC §2).
 * A plan's `base` is where every task starts, where it takes its agent configuration from, and
 * where its PR merges, on its own when `merge.requireApproval` is off: only a person's tasks block
 * (the labelled issue's, `/plan`) may name it, as the planner's prompt never asks for one.
 */
describe("a planner's plan that names a base", () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  it('is refused, and nothing is dispatched onto that branch', { timeout: 60_000 }, async () => {
    s = await startScenario({ private: false });
    await s.double.pushCommit(REPO, 'release', {
      message: 'Release branch',
      files: { 'RELEASE.md': 'release\n' },
      by: MAINTAINER,
    });
    s.double.setWorker((run) =>
      run.inputs.mode === 'plan' ? { kind: 'plan', tasksBlock: RETARGETED_PLAN } : { kind: 'pr' },
    );
    const issue = await s.double.openIssue(REPO, {
      title: 'Feature',
      body: 'Please build it. (An outsider wrote this issue; the planner reads it.)',
      user: 'outsider',
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();

    expect((await latestRun(s, issue))?.state).toBe('plan_invalid');
    expect(statusComment(s.double, issue)).toContain("a planner's plan names no `base`");
    const dispatched = s.double.runs(REPO).map((r) => String(r.inputs.task_id));
    expect(dispatched).toEqual(['plan']);
    expect(s.double.pulls(REPO)).toEqual([]);
    s.double.assertNoViolations();
  });
});
