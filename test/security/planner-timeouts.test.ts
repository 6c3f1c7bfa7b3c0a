import { afterEach, describe, expect, it } from 'vitest';
import {
  assignmentFor,
  closeScenario,
  MAINTAINER,
  REPO,
  startScenario,
  taskOf,
  type Scenario,
} from '../e2e/harness.js';

/** A planner's plan asking for the longest timeout a tasks block allows, for every task. */
const LONG_PLAN = [
  '```tasks',
  '- id: a',
  '  title: A',
  '  timeoutMinutes: 340',
  '- id: b',
  '  title: B',
  '  timeoutMinutes: 5',
  '```',
].join('\n');

/**
 * The planner is an agent, steered by the issue's text, which anyone may have written: its plan
 * may not give the tasks it plans more time than the maintainers' `worker.timeoutMinutes`, or one
 * issue could hold the repository's runners and the agent's API for hours per task.
 */
describe("a planner's task timeouts", () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  it('are at most worker.timeoutMinutes; a shorter one stays', { timeout: 60_000 }, async () => {
    s = await startScenario({ private: false, config: 'worker:\n  timeoutMinutes: 10\n' });
    s.double.setWorker((run) =>
      run.inputs.mode === 'plan' ? { kind: 'plan', tasksBlock: LONG_PLAN } : { kind: 'hang' },
    );
    const issue = await s.double.openIssue(REPO, {
      title: 'Feature',
      body: 'Please build it. (An outsider wrote this issue; the planner reads it.)',
      user: 'outsider',
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();

    expect((await taskOf(s, issue, 'a'))?.timeoutMinutes).toBe(10);
    expect((await taskOf(s, issue, 'b'))?.timeoutMinutes).toBe(5);
    const runA = s.double.runs(REPO).find((r) => r.inputs.task_id === 'a')!;
    const assignment = await assignmentFor(s, runA);
    expect(assignment.timeout_minutes).toBe('10');
  });
});
