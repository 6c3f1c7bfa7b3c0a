import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildDispatchInputs } from '../../src/protocol/assignment.js';
import { parseRunName, runName, WORKFLOW_RUN_NAME } from '../../src/protocol/run-name.js';
import { interpolate, readRunName } from '../github-double/worker/workflow-template.js';

const TEMPLATE = 'templates/agent-worker.yml';

/** The run's display title GitHub renders from the template's run-name for these inputs. */
function rendered(issueNumber: number, taskKey: string, attempt: number): string {
  const expression = readRunName(TEMPLATE);
  const inputs = buildDispatchInputs({
    taskKey,
    issueNumber,
    attempt,
    mode: 'work',
    coordinatorUrl: 'https://coordinator.example',
  });
  return interpolate(expression, { inputs, vars: {}, secrets: {}, github: {}, runner: {} });
}

const CASES: [number, string, number][] = [
  [1, 'a', 1],
  [7, 'task_001', 3],
  [12, 'plan', 1],
  [9_999_999_999, 'x'.repeat(40), 9999],
];

describe('run names', () => {
  it.each(CASES)('round-trips issue %i, task %s, attempt %i', (issueNumber, taskKey, attempt) => {
    expect(parseRunName(runName(issueNumber, taskKey, attempt))).toEqual({
      issueNumber,
      taskKey,
      attempt,
    });
  });

  it('is the run-name the workflow template sets', () => {
    expect(readRunName(TEMPLATE)).toBe(WORKFLOW_RUN_NAME);
  });

  it.each(CASES)(
    "reads back the template's run-name rendered for issue %i, task %s, attempt %i",
    (issueNumber, taskKey, attempt) => {
      const title = rendered(issueNumber, taskKey, attempt);
      expect(title).toBe(runName(issueNumber, taskKey, attempt));
      expect(parseRunName(title)).toEqual({ issueNumber, taskKey, attempt });
    },
  );

  it('is the run-name docs/worker.md gives', () => {
    const described = /`run-name: (agent-coordinator[^`]*)`/.exec(
      readFileSync('docs/worker.md', 'utf8'),
    )?.[1];
    expect(described).toBe('agent-coordinator #<issue> <task_id> attempt <n>');
    const example = described!
      .replace('<issue>', '7')
      .replace('<task_id>', 'task_001')
      .replace('<n>', '3');
    expect(parseRunName(example)).toEqual({ issueNumber: 7, taskKey: 'task_001', attempt: 3 });
  });

  it.each([
    ['agent-coordinator #7 task_001 attempt 3 (copy)'],
    ['agent-coordinator #7 task_001 attempt 0'],
    ['agent-coordinator #7 task_001 attempt 03'],
    ['agent-coordinator #7 task_001 attempt 10000'],
    ['agent-coordinator #07 task_001 attempt 3'],
    ['agent-coordinator #0 task_001 attempt 3'],
    ['agent-coordinator #7 Task attempt 3'],
    ['agent-coordinator #7  task_001 attempt 3'],
    ['agent-coordinator 7 task_001 attempt 3'],
    ['Agent-coordinator #7 task_001 attempt 3'],
    [' agent-coordinator #7 task_001 attempt 3'],
    ['agent-coordinator #7 task_001'],
    ['agent-coordinator # task_001 attempt 3'],
    // The run-name rendered with an input left out, as a run someone started by hand could be.
    ['agent-coordinator #7  attempt 3'],
    ['agent coordinator worker'],
    [''],
  ])('reads no run name from %j', (title) => {
    expect(parseRunName(title)).toBeNull();
  });
});
