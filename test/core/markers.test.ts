import { describe, expect, it } from 'vitest';
import { parsePlanMarker, parseTaskMarker, parseUsageMarker } from '../../src/core/markers.js';
import { parseRunName, parseTaskBranch, runName, taskBranch } from '../../src/engine/context.js';

describe('markers and names', () => {
  it.each([
    ['<!-- agent-coordinator:usage cost_usd=0.42 input_tokens=1200 output_tokens=300 -->', 0.42],
    [
      'a\n<!-- agent-coordinator:usage cost_usd=1 input_tokens=1 output_tokens=1 -->\n<!-- agent-coordinator:usage cost_usd=2.5 input_tokens=2 output_tokens=2 -->',
      2.5,
    ],
    ['<!-- agent-coordinator:usage cost_usd=-1 input_tokens=1 output_tokens=1 -->', undefined],
    ['<!-- agent-coordinator:usage cost_usd=abc input_tokens=1 output_tokens=1 -->', undefined],
    ['no marker', undefined],
    ['', undefined],
  ])('reads the usage marker of %j', (body, cost) => {
    expect(parseUsageMarker(body)?.costUsd).toBe(cost);
  });

  it('reads plan and task markers', () => {
    expect(parsePlanMarker('x <!-- agent-coordinator:plan run_id=9876543210 -->')).toBe(9876543210);
    expect(parsePlanMarker('<!-- agent-coordinator:plan run_id=abc -->')).toBeUndefined();
    expect(
      parseTaskMarker('<!-- agent-coordinator:task issue=7 task=task_001 attempt=2 -->'),
    ).toEqual({
      issue: 7,
      task: 'task_001',
      attempt: 2,
    });
  });

  it.each([
    ['agent/7/task_001', { issueNumber: 7, taskKey: 'task_001' }],
    ['agent/12/plan', { issueNumber: 12, taskKey: 'plan' }],
    ['agent-7/task_001', null],
    ['agent/7/task_001/x', null],
    ['agent/07/task_001', null],
    ['agent/7/Task', null],
    ['refs/heads/agent/7/task_001', null],
    ['xagent/7/task_001', null],
  ])('parses branch %s', (ref, expected) => {
    expect(parseTaskBranch(ref)).toEqual(expected);
  });

  it('round-trips branch and run-name', () => {
    expect(taskBranch(7, 'task_001')).toBe('agent/7/task_001');
    expect(runName(7, 'task_001', 3)).toBe('agent-coordinator #7 task_001 attempt 3');
    expect(parseRunName(runName(7, 'task_001', 3))).toEqual({
      issueNumber: 7,
      taskKey: 'task_001',
      attempt: 3,
    });
    expect(parseRunName('agent-coordinator #7 task_001 attempt 3 (copy)')).toBeNull();
  });
});
