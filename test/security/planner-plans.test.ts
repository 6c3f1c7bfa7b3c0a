import { afterEach, describe, expect, it } from 'vitest';
import {
  assignmentFor,
  closeScenario,
  MAINTAINER,
  REPO,
  startScenario,
  statusComment,
  taskOf,
  type Scenario,
} from '../e2e/harness.js';
import { latestRun } from './security-helpers.js';

const block = (...lines: string[]) => ['```tasks', ...lines, '```'].join('\n');

/**
 * The planner is an agent steered by the issue's text, which anyone may have written (SPEC §2):
 * its plan may not take what only the maintainers decide (docs/tasks-block.md).
 */
describe("a planner's plan, from an outsider's issue", () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  /** The maintainer labels an outsider's issue; the planner answers with `tasksBlock`. */
  const planned = async (tasksBlock: string, config?: string): Promise<number> => {
    s = await startScenario({ private: false, config });
    await s.double.pushCommit(REPO, 'release', {
      message: 'Release branch',
      files: { 'RELEASE.md': 'release\n' },
      by: MAINTAINER,
    });
    s.double.setWorker((run) =>
      run.inputs.mode === 'plan' ? { kind: 'plan', tasksBlock } : { kind: 'hang' },
    );
    const issue = await s.double.openIssue(REPO, {
      title: 'Feature',
      body: 'Please build it. (An outsider wrote this issue; the planner reads it.)',
      user: 'outsider',
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    return issue;
  };

  // A plan's `base` is where every task starts, where it takes its agent configuration from, and
  // where its PR merges, on its own when `merge.requireApproval` is off: only a person's tasks
  // block (the labelled issue's, `/plan`) may name it, as the planner's prompt never asks for one.
  it('naming a base is refused, and nothing is dispatched onto that branch', async () => {
    const issue = await planned(block('base: release', 'tasks:', '  - id: a', '    title: A'));
    expect((await latestRun(s, issue))?.state).toBe('plan_invalid');
    expect(statusComment(s.double, issue)).toContain("a planner's plan names no `base`");
    expect(s.double.runs(REPO).map((r) => String(r.inputs.task_id))).toEqual(['plan']);
    expect(s.double.pulls(REPO)).toEqual([]);
    s.double.assertNoViolations();
  });

  // Or one issue could hold the repository's runners and the agent's API for hours per task.
  it('gives no task more time than worker.timeoutMinutes; a shorter one stays', async () => {
    const issue = await planned(
      block(
        '- id: a',
        '  title: A',
        '  timeoutMinutes: 340',
        '- id: b',
        '  title: B',
        '  timeoutMinutes: 5',
      ),
      'worker:\n  timeoutMinutes: 10\n',
    );
    expect((await taskOf(s, issue, 'a'))?.timeoutMinutes).toBe(10);
    expect((await taskOf(s, issue, 'b'))?.timeoutMinutes).toBe(5);
    const runA = s.double.runs(REPO).find((r) => r.inputs.task_id === 'a')!;
    expect((await assignmentFor(s, runA)).timeout_minutes).toBe('10');
  });

  // Dispatch goes by priority across every run of the repository: a planner asking for 5 would
  // put an outsider's issue ahead of the work the maintainers started first.
  it("ranks no task above the default priority, and a maintainer's older run goes first", async () => {
    s = await startScenario({
      private: false,
      config: 'concurrency:\n  maxParallel: 1\nretries:\n  max: 0\n',
    });
    s.double.setWorker((run) =>
      run.inputs.mode === 'plan'
        ? { kind: 'plan', tasksBlock: block('- id: p1', '  title: P1', '  priority: 5') }
        : { kind: 'hang' },
    );
    const maintainers = await s.double.openIssue(REPO, {
      title: 'Maintainers',
      body: block('- id: m0', '  title: M0', '- id: m1', '  title: M1'),
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, maintainers, 'agent', MAINTAINER);
    await s.settle();
    const outsiders = await s.double.openIssue(REPO, {
      title: 'Feature',
      body: 'Please build it. (An outsider wrote this issue; the planner reads it.)',
      user: 'outsider',
    });
    await s.double.addLabel(REPO, outsiders, 'agent', MAINTAINER);
    await s.settle();
    expect((await taskOf(s, outsiders, 'p1'))?.priority).toBe(3);
    const dispatched = () =>
      s.double
        .runs(REPO)
        .map((r) => String(r.inputs.task_id))
        .filter((t) => t !== 'plan');
    expect(dispatched()).toEqual(['m0']);

    // The one slot frees: the maintainers' older run goes first, the planner's task waits.
    const m0 = s.double.runs(REPO).find((r) => r.inputs.task_id === 'm0')!;
    await s.double.completeWorkflowRun(m0.id as number, 'failure');
    await s.settle();
    expect(dispatched()).toEqual(['m0', 'm1']);
  });
});
