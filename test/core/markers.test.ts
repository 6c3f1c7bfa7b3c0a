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
    expect(parsePlanMarker('<!-- agent-coordinator:plan run_id=9876543210 -->')).toBe(9876543210);
    expect(parsePlanMarker('<!-- agent-coordinator:plan run_id=abc -->')).toBeUndefined();
    expect(
      parseTaskMarker('<!-- agent-coordinator:task issue=7 task=task_001 attempt=2 -->'),
    ).toEqual({
      issue: 7,
      task: 'task_001',
      attempt: 2,
    });
  });

  const MARKER = '<!-- agent-coordinator:plan run_id=42 -->';
  const FENCE = '```tasks\n- id: a\n  title: A\n```';
  it.each([
    ['the last line', `${FENCE}\n${MARKER}`, 42],
    ['the last line, then a newline', `${FENCE}\n${MARKER}\n`, 42],
    ['the first line', `${MARKER}\n${FENCE}`, 42],
    ['a line between paragraphs', `Plan:\n\n${MARKER}\n\n${FENCE}\n\nDone.`, 42],
    ['right after a paragraph line', `Here is the plan.\n${MARKER}\n${FENCE}`, 42],
    ['with CRLF line endings', `${FENCE}\r\n${MARKER}\r\n`, 42],
    ['indented up to three spaces', `${FENCE}\n   ${MARKER}`, 42],
    ['with trailing spaces', `${FENCE}\n${MARKER}  `, 42],
    ['twice with the same run id', `${MARKER}\n${FENCE}\n${MARKER}`, 42],
    ['after a closed HTML comment', `<!-- note -->\n${MARKER}`, 42],
    ['inside a code fence', `\`\`\`\n${MARKER}\n\`\`\``, undefined],
    ['inside the tasks block', '```tasks\n' + MARKER + '\n```', undefined],
    ['inside a tilde fence', `~~~\n${MARKER}\n~~~`, undefined],
    ['inside an unclosed fence', `\`\`\`\n${MARKER}`, undefined],
    ['in a blockquote', `> ${MARKER}`, undefined],
    ['in a nested blockquote', `> > ${MARKER}`, undefined],
    ['inline after text', `Plan ${MARKER}`, undefined],
    ['inline before text', `${MARKER} done`, undefined],
    ['in a code span', `\`${MARKER}\``, undefined],
    ['indented four spaces', `${FENCE}\n\n    ${MARKER}`, undefined],
    ['inside an open HTML comment', `<!--\n${MARKER}\n-->`, undefined],
    ['in a list item', `- ${MARKER}`, undefined],
    ['with another run id too', `${MARKER}\n<!-- agent-coordinator:plan run_id=43 -->`, undefined],
    ['with a word joiner after <', MARKER.replace('<', '<\u2060'), undefined],
    ['with an entity for <', MARKER.replace('<', '&lt;'), undefined],
    [
      'with a run id past 19 digits',
      '<!-- agent-coordinator:plan run_id=12345678901234567890 -->',
      undefined,
    ],
    [
      'with an unsafe run id',
      '<!-- agent-coordinator:plan run_id=9999999999999999999 -->',
      undefined,
    ],
    ['nowhere', FENCE, undefined],
  ])('reads the plan marker on %s', (_where, body, id) => {
    expect(parsePlanMarker(body)).toBe(id);
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
