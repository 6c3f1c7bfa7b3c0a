import { describe, expect, it } from 'vitest';
import { boundPlannerPlan, parsePlanYaml, type Plan } from '../../../src/core/plan/index.js';
import { LIMITS } from './fixtures.js';

function plan(yaml: string): Plan {
  const result = parsePlanYaml(yaml, LIMITS);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.plan;
}

const task = (id: string, extra: string) => `- id: ${id}\n  title: ${id}\n${extra}`;

describe('boundPlannerPlan', () => {
  it.each([
    // [asked priority, kept priority]
    [5, 3],
    [4, 3],
    [3, 3],
    [2, 2],
    [1, 1],
  ])('a planner asking priority %i gets %i', (asked, kept) => {
    const [bounded] = boundPlannerPlan(plan(task('a', `  priority: ${asked}\n`)), 10).tasks;
    expect(bounded!.priority).toBe(kept);
  });

  it.each([
    // [asked timeout, worker.timeoutMinutes, kept timeout]
    [340, 10, 10],
    [11, 10, 10],
    [10, 10, 10],
    [5, 10, 5],
    [undefined, 10, undefined],
  ])('a planner asking %s minutes under worker.timeoutMinutes %i gets %s', (asked, limit, kept) => {
    const extra = asked === undefined ? '' : `  timeoutMinutes: ${asked}\n`;
    const [bounded] = boundPlannerPlan(plan(task('a', extra)), limit).tasks;
    expect(bounded!.timeoutMinutes).toBe(kept);
  });

  it('changes nothing else of a task', () => {
    const given = plan(
      task('a', '  priority: 5\n  type: test\n  files: [src/a/**]\n') +
        task('b', '  deps: [a]\n  prompt: do b\n'),
    );
    const bounded = boundPlannerPlan(given, 10);
    expect(bounded.tasks.map(({ priority: _, ...rest }) => rest)).toEqual(
      given.tasks.map(({ priority: _, ...rest }) => rest),
    );
  });
});
