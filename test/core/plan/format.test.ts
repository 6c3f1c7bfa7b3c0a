import { describe, expect, it } from 'vitest';
import { formatPlanErrors, parsePlanYaml } from '../../../src/core/plan/index.js';
import type { PlanError } from '../../../src/core/plan/index.js';

const one = (message: string, extra: Partial<PlanError> = {}) =>
  formatPlanErrors([{ code: 'invalid_value', message, ...extra }]);

describe('formatPlanErrors', () => {
  it('renders one bullet per error with its position and path', () => {
    const text = formatPlanErrors([
      { code: 'no_tasks_block', message: 'no `tasks` code block found' },
      { code: 'invalid_value', message: 'bad', line: 3, column: 5, path: '[0].priority' },
      { code: 'invalid_value', message: 'worse', line: 4 },
    ]);
    expect(text).toBe(
      [
        '- no `tasks` code block found',
        '- line 3, column 5 `[0].priority`: bad',
        '- line 4: worse',
      ].join('\n'),
    );
  });

  it('keeps the cycle readable verbatim in the raw comment', () => {
    const result = parsePlanYaml(
      '- id: task_a\n  title: A\n  deps: [task_b]\n- id: task_b\n  title: B\n  deps: [task_a]\n',
      { maxTasks: 50 },
    );
    expect(!result.ok && formatPlanErrors(result.errors)).toContain('`task_a -> task_b -> task_a`');
  });

  it.each([
    { name: 'newlines', message: 'a\nb\r\nc\u2028d', has: 'a b c d' },
    {
      name: 'HTML outside code',
      message: '<img src=x> & <!-- c -->',
      has: '&lt;img src=x&gt; &amp; &lt;!-- c --&gt;',
    },
    {
      name: 'markdown outside code',
      message: '*b* _i_ [l](u) ~s~ |t|',
      has: '\\*b\\* \\_i\\_ \\[l\\](u) \\~s\\~ \\|t\\|',
    },
    {
      name: 'mentions and references',
      message: 'ping @octocat about #12',
      has: '@\u2060octocat about #\u206012',
    },
    { name: 'an unpaired backtick', message: 'a ` b `c` d', has: 'a \\` b \\`c\\` d' },
    { name: 'an empty code span', message: 'x `` y', has: 'x \\`\\` y' },
    { name: 'HTML inside a code span stays literal', message: 'key `<b>` x', has: 'key `<b>` x' },
  ])('neutralises $name', ({ message, has }) => {
    const text = one(message);
    expect(text).toContain(has);
    expect(text.split('\n')).toHaveLength(1);
  });

  it('neutralises untrusted keys, ids and titles that come through the parser', () => {
    const nasty = '"x`\\n- injected <script>`@team ${{ secrets.X }}"';
    const result = parsePlanYaml(`- id: a\n  title: A\n  ${nasty}: 1\n  deps: [${nasty}]\n`, {
      maxTasks: 50,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const text = formatPlanErrors(result.errors);
    const lines = text.split('\n');
    expect(lines).toHaveLength(result.errors.length);
    for (const line of lines) {
      expect(line.startsWith('- ')).toBe(true);
      // backticks pair up, so every untrusted fragment is inside a code span
      expect((line.match(/(?<!\\)`/g) ?? []).length % 2).toBe(0);
      const outsideCode = line
        .split('`')
        .filter((_, i) => i % 2 === 0)
        .join('');
      expect(outsideCode).not.toMatch(/<|@team/);
    }
  });

  it.each([
    ['- nested', '- \\- nested'],
    ['+ nested', '- \\+ nested'],
    ['1. ordered', '- 1\\. ordered'],
    ['---', '- \\---'],
    ['      indented code', '- indented code'],
  ])('does not let %j open a nested block', (message, rendered) => {
    expect(one(message)).toBe(rendered);
  });

  it('renders an empty list as an empty string', () => {
    expect(formatPlanErrors([])).toBe('');
  });
});
