import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { describeParseError } from '../../../src/core/commands/index.js';
import type { CommandParseError } from '../../../src/core/commands/index.js';
import { codeSpan } from '../../../src/core/commands/code-span.js';

describe('describeParseError', () => {
  it.each<[CommandParseError, string]>([
    [
      { kind: 'unknown_command', name: 'aprove', suggestion: 'approve' },
      'Unknown command `/aprove`; did you mean `/approve`?',
    ],
    [
      { kind: 'wrong_context', name: 'plan', context: 'pull_request' },
      '`/plan` only works on the issue, not on an agent pull request.',
    ],
    [
      { kind: 'missing_argument', name: 'veto', argument: 'task_id' },
      '`/veto` needs `<task_id>`: `/veto <task_id> [reason]`.',
    ],
    [
      { kind: 'missing_argument', name: 'plan', argument: 'tasks block' },
      '`/plan` needs a tasks block after it.',
    ],
    [
      { kind: 'unexpected_argument', name: 'hold', text: 'foo' },
      'Unexpected text after `/hold`: `foo`.',
    ],
    [
      { kind: 'invalid_task_id', name: 'approve', text: 'Task_1' },
      '`Task_1` is not a valid task id: use up to 40 lowercase letters, digits, `_` or `-`, starting with a letter or digit.',
    ],
  ])('%o', (error, expected) => {
    expect(describeParseError(error)).toBe(expected);
  });

  it('keeps hostile text inside one code span on one line', () => {
    const message = describeParseError({
      kind: 'unexpected_argument',
      name: 'hold',
      text: '`x` @everyone <img src=x>\n\n# title',
    });
    expect(message).toBe('Unexpected text after `/hold`: `` `x` @everyone <img src=x> # title ``.');
  });

  it('never throws and always gives one line', () => {
    const text = fc.string({ unit: 'binary', maxLength: 200 });
    const error: fc.Arbitrary<CommandParseError> = fc.oneof(
      fc.record({ kind: fc.constant('unknown_command'), name: text, suggestion: text }),
      fc.record({
        kind: fc.constant('wrong_context'),
        name: text,
        context: fc.constantFrom('issue', 'pull_request'),
      }),
      fc.record({ kind: fc.constant('missing_argument'), name: text, argument: text }),
      fc.record({ kind: fc.constant('unexpected_argument'), name: text, text }),
      fc.record({ kind: fc.constant('invalid_task_id'), name: text, text }),
    );
    fc.assert(
      fc.property(error, (e) => {
        const message = describeParseError(e);
        expect(message).not.toMatch(/[\r\n]/);
        expect(message.length).toBeLessThan(400);
      }),
    );
  });
});

describe('codeSpan', () => {
  it.each([
    ['plain', '`plain`'],
    ['a`b', '``a`b``'],
    ['`start', '`` `start ``'],
    ['end``', '``` end`` ```'],
    ['two\nlines', '`two lines`'],
    ['   ', '` `'],
    ['x'.repeat(100), `\`${'x'.repeat(59)}…\``],
  ])('%j', (text, expected) => {
    expect(codeSpan(text)).toBe(expected);
  });

  it('does not split a surrogate pair when cutting', () => {
    const span = codeSpan(`${'x'.repeat(58)}😀😀`);
    expect(span).toBe(`\`${'x'.repeat(58)}…\``);
  });

  it('no backtick run inside the span is as long as its fence', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        const span = codeSpan(text);
        const fence = /^`+/.exec(span)?.[0] ?? '';
        const inner = span.slice(fence.length, span.length - fence.length);
        expect(span.endsWith(fence)).toBe(true);
        for (const run of inner.match(/`+/g) ?? []) {
          expect(run.length).toBeLessThan(fence.length);
        }
      }),
    );
  });
});
