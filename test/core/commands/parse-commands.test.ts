import { describe, expect, it } from 'vitest';
import { parseCommands } from '../../../src/core/commands/index.js';
import type {
  Command,
  CommandContext,
  CommandParseError,
  ParsedCommand,
} from '../../../src/core/commands/index.js';

const ok = (line: number, command: Command): ParsedCommand => ({ ok: true, command, line });
const err = (line: number, error: CommandParseError): ParsedCommand => ({ ok: false, error, line });

const PR: CommandContext = 'pull_request';
const ISSUE: CommandContext = 'issue';
const BOTH = [PR, ISSUE] as const;

type Row = [title: string, body: string, context: CommandContext, expected: ParsedCommand[]];

const tasksBlock = '```tasks\n- id: task_001\n  title: Do it\n  deps: []\n```';

const rows: Row[] = [
  // approve
  ['approve on a PR', '/approve', PR, [ok(1, { name: 'approve' })]],
  [
    'approve one head on a PR, by 7 to 40 hex digits',
    '/approve ABC1234',
    PR,
    [ok(1, { name: 'approve', sha: 'abc1234' })],
  ],
  [
    'approve a full SHA on a PR',
    `/approve ${'0123456789abcdef'.repeat(2)}01234567`,
    PR,
    [ok(1, { name: 'approve', sha: `${'0123456789abcdef'.repeat(2)}01234567` })],
  ],
  [
    'approve with too short a SHA on a PR',
    '/approve abc123',
    PR,
    [err(1, { kind: 'unexpected_argument', name: 'approve', text: 'abc123' })],
  ],
  [
    'approve with text after the SHA on a PR',
    '/approve abc1234 now',
    PR,
    [err(1, { kind: 'unexpected_argument', name: 'approve', text: 'abc1234 now' })],
  ],
  [
    'approve a hex word on the issue names a task',
    '/approve abc1234',
    ISSUE,
    [ok(1, { name: 'approve', taskId: 'abc1234' })],
  ],
  ['approve the plan on the issue', '/approve', ISSUE, [ok(1, { name: 'approve' })]],
  [
    'approve a task on the issue',
    '/approve task_001',
    ISSUE,
    [ok(1, { name: 'approve', taskId: 'task_001' })],
  ],
  [
    'approve with an argument on a PR',
    '/approve task_001',
    PR,
    [err(1, { kind: 'unexpected_argument', name: 'approve', text: 'task_001' })],
  ],
  [
    'approve with an invalid task id',
    '/approve Task_1',
    ISSUE,
    [err(1, { kind: 'invalid_task_id', name: 'approve', text: 'Task_1' })],
  ],
  [
    'approve with text after the task id',
    '/approve task_1 right now',
    ISSUE,
    [err(1, { kind: 'unexpected_argument', name: 'approve', text: 'right now' })],
  ],
  // veto
  ['veto on a PR without reason', '/veto', PR, [ok(1, { name: 'veto' })]],
  [
    'veto on a PR with a reason',
    '/veto  breaks the public API  ',
    PR,
    [ok(1, { name: 'veto', reason: 'breaks the public API' })],
  ],
  [
    'veto on the issue needs a task id',
    '/veto',
    ISSUE,
    [err(1, { kind: 'missing_argument', name: 'veto', argument: 'task_id' })],
  ],
  [
    'veto on the issue with a multi-line reason',
    '/veto task_002 wrong approach\nsee the thread above',
    ISSUE,
    [ok(1, { name: 'veto', taskId: 'task_002', reason: 'wrong approach\nsee the thread above' })],
  ],
  [
    'veto on the issue with an invalid task id',
    '/veto Task-2 bad',
    ISSUE,
    [err(1, { kind: 'invalid_task_id', name: 'veto', text: 'Task-2' })],
  ],
  [
    'veto task id is not taken from the next line',
    '/veto\ntask_002 bad',
    ISSUE,
    [err(1, { kind: 'missing_argument', name: 'veto', argument: 'task_id' })],
  ],
  ['veto with a tab', '/veto\tshaky', PR, [ok(1, { name: 'veto', reason: 'shaky' })]],
  // retry
  ['retry on a PR without feedback', '/retry', PR, [ok(1, { name: 'retry' })]],
  [
    'retry feedback runs to the next command',
    '/retry use the new client\n\nand add tests\n/hold',
    PR,
    [
      ok(1, { name: 'retry', feedback: 'use the new client\n\nand add tests' }),
      ok(4, { name: 'hold' }),
    ],
  ],
  [
    'retry feedback starting on the next line',
    '/retry\nplease rebase first',
    PR,
    [ok(1, { name: 'retry', feedback: 'please rebase first' })],
  ],
  [
    'retry a task on the issue',
    '/retry task_003',
    ISSUE,
    [ok(1, { name: 'retry', taskId: 'task_003' })],
  ],
  [
    'retry feedback keeps fenced code verbatim, commands inside it stay text',
    '/retry task_003 fix lint\n```ts\n/approve\nconst a = 1;\n```\nthanks',
    ISSUE,
    [
      ok(1, {
        name: 'retry',
        taskId: 'task_003',
        feedback: 'fix lint\n```ts\n/approve\nconst a = 1;\n```\nthanks',
      }),
    ],
  ],
  [
    'retry on the issue needs a task id',
    '/retry',
    ISSUE,
    [err(1, { kind: 'missing_argument', name: 'retry', argument: 'task_id' })],
  ],
  [
    'a near miss ends the feedback',
    '/retry fix it\n/aprove',
    PR,
    [
      ok(1, { name: 'retry', feedback: 'fix it' }),
      err(2, { kind: 'unknown_command', name: 'aprove', suggestion: 'approve' }),
    ],
  ],
  [
    'a path does not end the feedback',
    '/retry fix it\n/usr/bin/env node',
    PR,
    [ok(1, { name: 'retry', feedback: 'fix it\n/usr/bin/env node' })],
  ],
  [
    'CRLF feedback comes back with LF',
    '/retry a\r\nb\r\n',
    PR,
    [ok(1, { name: 'retry', feedback: 'a\nb' })],
  ],
  // commands without arguments
  ...BOTH.flatMap((context): Row[] =>
    (['hold', 'unhold', 'cancel', 'help'] as const).map((name): Row => [
      `${name} on ${context}`,
      `/${name}`,
      context,
      [ok(1, { name })],
    ]),
  ),
  [
    'hold with an argument',
    '/hold foo',
    ISSUE,
    [err(1, { kind: 'unexpected_argument', name: 'hold', text: 'foo' })],
  ],
  ['status on the issue', '/status', ISSUE, [ok(1, { name: 'status' })]],
  [
    'status on a PR',
    '/status now',
    PR,
    [err(1, { kind: 'wrong_context', name: 'status', context: PR })],
  ],
  // plan
  [
    'plan captures the tasks block',
    `/plan\n${tasksBlock}`,
    ISSUE,
    [ok(1, { name: 'plan', body: tasksBlock })],
  ],
  [
    'plan keeps text on its line and swallows later commands',
    `/plan new split:\n${tasksBlock}\n/approve`,
    ISSUE,
    [ok(1, { name: 'plan', body: `new split:\n${tasksBlock}\n/approve` })],
  ],
  [
    'commands before plan still count',
    `/hold\n/plan\n${tasksBlock}`,
    ISSUE,
    [ok(1, { name: 'hold' }), ok(2, { name: 'plan', body: tasksBlock })],
  ],
  [
    'plan on a PR',
    `/plan\n${tasksBlock}\n/hold`,
    PR,
    [err(1, { kind: 'wrong_context', name: 'plan', context: PR })],
  ],
  [
    'plan without a body',
    '/plan  \n\n',
    ISSUE,
    [err(1, { kind: 'missing_argument', name: 'plan', argument: 'tasks block' })],
  ],
  // fences
  ['backtick fence hides commands', '```\n/approve\n```\n/hold', PR, [ok(4, { name: 'hold' })]],
  [
    'tilde fence closes only with a long enough tilde run',
    '~~~~ sh\n/approve\n~~~\n```\n/cancel\n~~~~\n/hold',
    PR,
    [ok(7, { name: 'hold' })],
  ],
  ['unclosed fence runs to the end', 'look:\n```diff\n/approve', PR, []],
  ['indented fence', '  ```\n/approve\n  ```\n/hold', PR, [ok(4, { name: 'hold' })]],
  ['one-line inline code is not a fence', '```js```\n/approve', PR, [ok(2, { name: 'approve' })]],
  [
    'a fence indented by four columns, or followed by more than spaces, closes nothing',
    '```\n    ```\n/approve\n```\u00a0\n/cancel\n```\n/hold',
    PR,
    [ok(7, { name: 'hold' })],
  ],
  [
    'a fence opening a list item hides commands',
    '- ```\n  /approve\n  ```\n1. ~~~\n   /cancel\n   ~~~\n/hold',
    PR,
    [ok(7, { name: 'hold' })],
  ],
  // indented code
  [
    'an indented code block hides commands (GitHub renders it as code)',
    'Try this:\n\n    /cancel\n\t/veto no\n\n/hold',
    PR,
    [ok(6, { name: 'hold' })],
  ],
  ['indented code at the start of a comment', '    /approve\n/hold', PR, [ok(2, { name: 'hold' })]],
  ['indented code after a heading', '## Example\n    /approve', PR, []],
  [
    'an indented line continuing a paragraph is text',
    'Looks good\n    /approve',
    PR,
    [ok(2, { name: 'approve' })],
  ],
  ['three spaces are no code', '\n   /approve', PR, [ok(2, { name: 'approve' })]],
  [
    'an indented fence marker is code, not a fence',
    '    ```\n/approve',
    PR,
    [ok(2, { name: 'approve' })],
  ],
  // quotes
  [
    'quoted commands are ignored, nested too',
    '> /approve\n> > /veto no\n>/cancel\n\n/hold',
    PR,
    [ok(5, { name: 'hold' })],
  ],
  ['a fence inside a quote ends with it', '> ```\n/approve', PR, [ok(2, { name: 'approve' })]],
  [
    // A writer's `> ` before pasted text: GitHub renders every line of it in the quote.
    'the lines right after a quoted paragraph go on it, up to a blank line or a block of its own',
    [
      '> they wrote:\n/approve\n    /hold\n\n/cancel',
      '> a\n# h\n/approve',
      '> b\n```\nx\n```\n/hold',
      '> c\n2. d\n/unhold',
      '> e\n***\n/help',
      '> f\n<!-- g -->\n/status',
    ].join('\n'),
    ISSUE,
    [
      ok(5, { name: 'cancel' }),
      ok(8, { name: 'approve' }),
      ok(13, { name: 'hold' }),
      ok(16, { name: 'unhold' }),
      ok(19, { name: 'help' }),
      ok(22, { name: 'status' }),
    ],
  ],
  [
    'a line after a quote in a list item is quoted too',
    '- > a\n/approve\n\n/hold',
    PR,
    [ok(4, { name: 'hold' })],
  ],
  // HTML blocks GitHub shows as code or drops
  [
    '<pre>, <script> and the like hide commands up to their closing tag',
    '<pre>\n/approve\n</PRE>\n<script>\n/cancel\n</script>\n<pre>/veto</pre>\n/hold',
    PR,
    [ok(8, { name: 'hold' })],
  ],
  // HTML comments
  ['one-line HTML comment', '<!-- /approve -->\n/hold', PR, [ok(2, { name: 'hold' })]],
  ['multi-line HTML comment', '<!--\n/approve\n-->\n/cancel', PR, [ok(4, { name: 'cancel' })]],
  ['unclosed HTML comment runs to the end', '<!-- template\n/approve', PR, []],
  [
    'the line closing an HTML block is part of it',
    '<!--\nx --> /approve\n/hold',
    PR,
    [ok(3, { name: 'hold' })],
  ],
  [
    'inline comment spanning lines',
    'text <!-- hidden\n/approve\n-->\n/hold',
    PR,
    [ok(4, { name: 'hold' })],
  ],
  [
    'an unclosed inline <!-- ends with its paragraph',
    'a <!-- literal\n\n/approve\n',
    PR,
    [ok(3, { name: 'approve' })],
  ],
  [
    'arguments are verbatim, HTML comments included',
    '/approve <!-- note -->',
    PR,
    [err(1, { kind: 'unexpected_argument', name: 'approve', text: '<!-- note -->' })],
  ],
  // shape of a command line
  [
    'several commands, mixed case, CRLF, indentation',
    'thanks!\r\n/Approve\r\n  /HOLD  \r\nmore text\r\n\t/unhold',
    PR,
    [ok(2, { name: 'approve' }), ok(3, { name: 'hold' }), ok(5, { name: 'unhold' })],
  ],
  ['not at the start of a line', 'please /approve', PR, []],
  [
    'near misses',
    '/aprove\n/Approv\n/vetoo\n/retyr\n/unhodl\n/stauts',
    ISSUE,
    [
      err(1, { kind: 'unknown_command', name: 'aprove', suggestion: 'approve' }),
      err(2, { kind: 'unknown_command', name: 'Approv', suggestion: 'approve' }),
      err(3, { kind: 'unknown_command', name: 'vetoo', suggestion: 'veto' }),
      err(4, { kind: 'unknown_command', name: 'retyr', suggestion: 'retry' }),
      err(5, { kind: 'unknown_command', name: 'unhodl', suggestion: 'unhold' }),
      err(6, { kind: 'unknown_command', name: 'stauts', suggestion: 'status' }),
    ],
  ],
  [
    'paths, URLs, short and far words are silent',
    '/usr/bin/env node\n/foo\n/tmp\nhttps://x.io/approve\n/s\n/cc @someone\n/approve.\n/approve/x\n/\n/123\n/approvals',
    ISSUE,
    [],
  ],
  ['empty comment', '', PR, []],
  ['blank lines only', '\n\r\n  \n', ISSUE, []],
];

describe('parseCommands', () => {
  it.each(rows)('%s', (_title, body, context, expected) => {
    expect(parseCommands(body, context)).toStrictEqual(expected);
  });

  it('treats a null body as empty', () => {
    expect(parseCommands(null as unknown as string, PR)).toEqual([]);
  });
});
