import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { COMMAND_NAMES, parseCommands } from '../../../src/core/commands/index.js';
import type { CommandContext, ParsedCommand } from '../../../src/core/commands/index.js';

const context = fc.constantFrom<CommandContext>('issue', 'pull_request');

const FRAGMENTS = [
  '/approve',
  '/Approve',
  '/veto',
  '/retry',
  '/hold',
  '/unhold',
  '/cancel',
  '/plan',
  '/status',
  '/help',
  '/aprove',
  '/usr/bin',
  '/',
  ' task_001',
  ' Task 1',
  ' reason',
  '```',
  '````',
  '~~~',
  '```tasks',
  '> ',
  '>',
  '<!--',
  '-->',
  '<!-- x -->',
  '\r\n',
  '\n',
  '\r',
  ' ',
  '\t',
  'é',
  '😀',
  '\u00a0',
  '\u2028',
  '\ufeff',
  'text',
];
const fragmentBody = fc
  .array(fc.constantFrom(...FRAGMENTS), { maxLength: 60 })
  .map((parts) => parts.join(''));
const anyBody = fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fragmentBody);

function lineCount(body: string): number {
  return body.split(/\r\n|\r|\n/).length;
}

function checkShape(body: string, ctx: CommandContext, parsed: ParsedCommand[]): void {
  let previous = 0;
  for (const entry of parsed) {
    expect(entry.line).toBeGreaterThan(previous);
    expect(entry.line).toBeLessThanOrEqual(lineCount(body));
    previous = entry.line;
    if (entry.ok) {
      expect(COMMAND_NAMES).toContain(entry.command.name);
      if (ctx === 'pull_request') expect(['plan', 'status']).not.toContain(entry.command.name);
    } else {
      expect(entry.error.name.length).toBeGreaterThan(0);
    }
  }
  // /plan swallows the rest of the comment, so it can only come last.
  const planAt = parsed.findIndex((p) => (p.ok ? p.command : p.error).name === 'plan');
  if (planAt >= 0) expect(planAt).toBe(parsed.length - 1);
}

describe('parseCommands fuzz', () => {
  it('never throws and returns well-formed, ordered results', () => {
    fc.assert(
      fc.property(anyBody, context, (body, ctx) => {
        checkShape(body, ctx, parseCommands(body, ctx));
      }),
      { numRuns: 2000 },
    );
  });

  it('CRLF and LF comments parse alike', () => {
    fc.assert(
      fc.property(
        fragmentBody.map((b) => b.replace(/\r/g, '')),
        context,
        (body, ctx) => {
          expect(parseCommands(body.replace(/\n/g, '\r\n'), ctx)).toStrictEqual(
            parseCommands(body, ctx),
          );
        },
      ),
    );
  });

  it('finds nothing in a fully quoted comment', () => {
    fc.assert(
      fc.property(anyBody, context, (body, ctx) => {
        const quoted = body
          .split(/\r\n|\r|\n/)
          .map((line) => `> ${line}`)
          .join('\n');
        expect(parseCommands(quoted, ctx)).toStrictEqual([]);
      }),
    );
  });

  it('finds nothing inside an HTML comment', () => {
    fc.assert(
      fc.property(anyBody, context, (body, ctx) => {
        fc.pre(!body.includes('-->'));
        expect(parseCommands(`<!--\n${body}\n-->`, ctx)).toStrictEqual([]);
      }),
    );
  });

  it('finds nothing inside an unclosed fence', () => {
    fc.assert(
      fc.property(anyBody, context, (body, ctx) => {
        fc.pre(!body.includes('`'));
        expect(parseCommands(`\`\`\`\n${body}`, ctx)).toStrictEqual([]);
      }),
    );
  });

  it('keeps multi-line feedback verbatim up to the next command', () => {
    const line = fc
      .string({ unit: 'grapheme', maxLength: 40 })
      .filter((s) => !/[\r\n\u2028]/.test(s));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 6 }), (feedbackLines) => {
        // Plain text only: no line may start a command, fence, quote or comment.
        fc.pre(feedbackLines.every((l) => !/^\s*[/`~>]|<!--/.test(l)));
        const body = ['/retry', ...feedbackLines, '/hold'].join('\n');
        const feedback = feedbackLines.join('\n').trim();
        expect(parseCommands(body, 'pull_request')).toStrictEqual([
          {
            ok: true,
            command: feedback === '' ? { name: 'retry' } : { name: 'retry', feedback },
            line: 1,
          },
          { ok: true, command: { name: 'hold' }, line: feedbackLines.length + 2 },
        ]);
      }),
    );
  });
});

describe('parseCommands on 1 MB comments', () => {
  const MB = 1 << 20;
  const big: [string, string, number][] = [
    ['many short lines', `${'some text here\n'.repeat(MB / 16)}/hold`, 1],
    ['many command lines', '/hold\n'.repeat(MB / 8), MB / 8],
    // Indented code, as GitHub renders it; the same line continuing a paragraph is text.
    ['one long line of spaces', `${' '.repeat(MB)}/approve`, 0],
    ['one long line of spaces in a paragraph', `Ready:\n${' '.repeat(MB)}/approve`, 1],
    ['one long command word', `/${'a'.repeat(MB)}`, 0],
    ['one long argument', `/retry ${'x '.repeat(MB / 2)}`, 1],
    ['opening fences', '```\n'.repeat(MB / 4), 0],
    ['unclosed comment openers on one line', `${'x <!--'.repeat(MB / 6)}\n/hold`, 1],
    ['comment openers on many lines', `${'x <!--\n'.repeat(MB / 7)}-->\n/hold`, 1],
    ['closed comments on one line', `/retry ${'<!---->'.repeat(MB / 7)}`, 1],
    ['near misses', '/aprove\n'.repeat(MB / 8), MB / 8],
    ['quotes', '> /approve\n'.repeat(MB / 11), 0],
  ];
  it.each(big)('%s', (_title, body, count) => {
    expect(parseCommands(body, 'pull_request')).toHaveLength(count);
  });

  it('a 1 MB plan body', () => {
    const body = `/plan\n\`\`\`tasks\n${'- id: t\n'.repeat(MB / 8)}\`\`\``;
    const [parsed] = parseCommands(body, 'issue');
    expect(parsed?.ok && parsed.command.name === 'plan' && parsed.command.body.length).toBe(
      body.length - '/plan\n'.length,
    );
  });
});
