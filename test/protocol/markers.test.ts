import { describe, expect, it } from 'vitest';
import {
  boundedUsage,
  markerBlock,
  parsePlanMarker,
  parsePlanUsage,
  parseTaskMarker,
  parseUsageMarker,
  planMarker,
  taskMarker,
  updateBodyMarkers,
  USAGE_CEILING,
  usageFigures,
  usageMarker,
} from '../../src/protocol/markers.js';

// What the worker writes, the coordinator reads back (docs/worker.md, "Pull request markers").
describe('markers round-trip', () => {
  it.each([
    [1, 'a', 1],
    [7, 'task_001', 2],
    [9_999_999_999, 'plan', 9999],
    [42, 'x'.repeat(40), 3],
  ])('the task marker of issue %i, task %s, attempt %i', (issue, task, attempt) => {
    expect(parseTaskMarker(taskMarker(issue, task, attempt))).toEqual({ issue, task, attempt });
    expect(parseTaskMarker(`Summary.\n\n${markerBlock(issue, task, attempt)}\n`)).toEqual({
      issue,
      task,
      attempt,
    });
  });

  it.each([
    { costUsd: 0, inputTokens: 0, outputTokens: 0 },
    { costUsd: 0.42, inputTokens: 12_000, outputTokens: 3_400 },
    { costUsd: 1234.567891, inputTokens: 1, outputTokens: 999_999_999 },
  ])('the usage marker of %j', (usage) => {
    expect(parseUsageMarker(usageMarker(usage))).toEqual(usage);
    expect(parseUsageMarker(markerBlock(7, 'a', 1, usage))).toEqual(usage);
  });

  it('rounds what it writes to what it reads: six decimals, whole tokens', () => {
    expect(
      parseUsageMarker(usageMarker({ costUsd: 0.1 + 0.2, inputTokens: 3.4, outputTokens: 4.6 })),
    ).toEqual({ costUsd: 0.3, inputTokens: 3, outputTokens: 5 });
  });

  it.each([
    { costUsd: 1e21, inputTokens: 0, outputTokens: 0 },
    { costUsd: 0.5, inputTokens: 1e21, outputTokens: 0 },
    { costUsd: 0.5, inputTokens: 0, outputTokens: Number.MAX_VALUE },
    { costUsd: 2e6, inputTokens: 2 ** 60, outputTokens: 1.5e300 },
  ])('writes a figure past its ceiling in digits, and reads the ceiling back: %j', (usage) => {
    const figures = usageFigures(usage);
    expect(figures).not.toMatch(/e[+-]?\d/);
    expect(parseUsageMarker(usageMarker(usage))).toEqual(boundedUsage(usage));
    expect(boundedUsage(usage).costUsd).toBeLessThanOrEqual(USAGE_CEILING.costUsd);
    expect(boundedUsage(usage).inputTokens).toBeLessThanOrEqual(USAGE_CEILING.tokens);
    expect(boundedUsage(usage).outputTokens).toBeLessThanOrEqual(USAGE_CEILING.tokens);
  });

  it('reads a figure a person wrote past its ceiling as the ceiling', () => {
    expect(
      parseUsageMarker(
        '<!-- agent-coordinator:usage cost_usd=123456789012.5 input_tokens=99999999999999999999 output_tokens=1 -->',
      ),
    ).toEqual({
      costUsd: USAGE_CEILING.costUsd,
      inputTokens: USAGE_CEILING.tokens,
      outputTokens: 1,
    });
  });

  it('reads the total the worker keeps over attempts', () => {
    const first = markerBlock(7, 'a', 1, { costUsd: 1.5, inputTokens: 100, outputTokens: 10 });
    const second = updateBodyMarkers(`Body.\n\n${first}`, {
      issue: 7,
      taskId: 'a',
      attempt: 2,
      usage: { costUsd: 0.25, inputTokens: 50, outputTokens: 5 },
    });
    expect(parseTaskMarker(second)).toEqual({ issue: 7, task: 'a', attempt: 2 });
    expect(parseUsageMarker(second)).toEqual({ costUsd: 1.75, inputTokens: 150, outputTokens: 15 });
  });

  it('drops a malformed marker a person left on an update, and reads none from it', () => {
    const edited =
      'Body.\n<!-- agent-coordinator:usage cost_usd=0 -->\n<!--agent-coordinator:task x -->';
    expect(parseUsageMarker(edited)).toBeUndefined();
    expect(parseTaskMarker(edited)).toBeUndefined();
    const body = updateBodyMarkers(edited, { issue: 7, taskId: 'a', attempt: 1 });
    expect(body).toBe('Body.\n\n<!-- agent-coordinator:task issue=7 task=a attempt=1 -->\n');
  });

  it.each([9876543210, '987654321'])('the plan marker of run %s', (runId) => {
    expect(parsePlanMarker(`Plan:\n\n${planMarker(runId)}\n`)).toBe(Number(runId));
  });

  it.each([
    ['no marker', 'Part of #7'],
    ['issue 0', '<!-- agent-coordinator:task issue=0 task=a attempt=1 -->'],
    ['a leading zero', '<!-- agent-coordinator:task issue=07 task=a attempt=1 -->'],
    ['attempt 0', '<!-- agent-coordinator:task issue=7 task=a attempt=0 -->'],
    ['an upper-case task', '<!-- agent-coordinator:task issue=7 task=Task attempt=1 -->'],
    [
      'a task key past 40',
      `<!-- agent-coordinator:task issue=7 task=${'x'.repeat(41)} attempt=1 -->`,
    ],
    ['fields reordered', '<!-- agent-coordinator:task task=a issue=7 attempt=1 -->'],
    ['a neutralized marker', '&lt;!-- agent-coordinator:task issue=7 task=a attempt=1 -->'],
  ])('reads no task marker from %s', (_what, body) => {
    expect(parseTaskMarker(body)).toBeUndefined();
  });
});

describe('markers', () => {
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
});

describe('parsePlanUsage', () => {
  const usage = { costUsd: 0.25, inputTokens: 10, outputTokens: 5 };
  const marker = usageMarker(usage);
  const plan = (block: string) =>
    ['Plan:', '', '```tasks', block, '```', '', planMarker(7), marker].join('\n');

  it.each([
    { name: 'under the plan marker', body: plan('- id: a'), expected: usage },
    {
      name: 'only in the tasks block, as a planner could write it',
      body: ['```tasks', `- id: a\n  title: ${usageMarker({ ...usage, costUsd: 0 })}`, '```'].join(
        '\n',
      ),
      expected: undefined,
    },
    {
      name: 'under the marker, with another in the tasks block',
      body: plan(`- id: a\n  prompt: ${usageMarker({ ...usage, costUsd: 0 })}`),
      expected: usage,
    },
    { name: 'quoted', body: `> ${marker}`, expected: undefined },
    { name: 'inline in a sentence', body: `It spent ${marker} so far.`, expected: undefined },
    {
      name: 'two different ones',
      body: `${marker}\n${usageMarker({ ...usage, costUsd: 0 })}`,
      expected: undefined,
    },
    { name: 'the same one twice', body: `${marker}\n\n${marker}`, expected: usage },
  ])('$name', ({ body, expected }) => {
    expect(parsePlanUsage(body)).toEqual(expected);
  });
});
