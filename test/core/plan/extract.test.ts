import { describe, expect, it } from 'vitest';
import { extractTasksBlock } from '../../../src/core/plan/index.js';

const TASK = '- id: a\n  title: A';

describe('extractTasksBlock', () => {
  it.each([
    { name: 'backticks', md: `text\n\n\`\`\`tasks\n${TASK}\n\`\`\`\n`, offset: 3 },
    { name: 'tildes', md: `~~~tasks\n${TASK}\n~~~`, offset: 1 },
    { name: 'long fence', md: `\`\`\`\`\`tasks\n${TASK}\n\`\`\`\`\``, offset: 1 },
    { name: 'info string padded', md: `\`\`\`  tasks  \n${TASK}\n\`\`\``, offset: 1 },
    { name: 'closing fence longer', md: `\`\`\`tasks\n${TASK}\n\`\`\`\`\`\`  `, offset: 1 },
    {
      name: 'CRLF',
      md: `intro\r\n\r\n\`\`\`tasks\r\n${TASK.replace('\n', '\r\n')}\r\n\`\`\`\r\n`,
      offset: 3,
    },
    { name: 'CR only', md: `\`\`\`tasks\r${TASK.replace('\n', '\r')}\r\`\`\``, offset: 1 },
    {
      name: 'unclosed runs to the end',
      md: `\`\`\`tasks\n${TASK}\n`,
      offset: 1,
      yaml: `${TASK}\n`,
    },
    {
      name: 'shorter fence does not close',
      md: `\`\`\`\`tasks\n${TASK}\n\`\`\`\n\`\`\`\``,
      offset: 1,
      yaml: `${TASK}\n\`\`\``,
    },
    {
      name: 'other fence kind does not close',
      md: `~~~tasks\n${TASK}\n\`\`\`\n~~~`,
      offset: 1,
      yaml: `${TASK}\n\`\`\``,
    },
    {
      name: 'a tasks fence inside an md fence is content',
      md: `\`\`\`md\n\`\`\`tasks\n- id: fake\n\`\`\`\n\n\`\`\`tasks\n${TASK}\n\`\`\``,
      offset: 6,
    },
    {
      name: 'a tasks fence inside a longer fence is content',
      md: `\`\`\`\`\n\`\`\`tasks\n- id: fake\n\`\`\`\n\`\`\`\`\n\`\`\`tasks\n${TASK}\n\`\`\``,
      offset: 6,
    },
    {
      name: 'blockquoted tasks block is ignored',
      md: `> \`\`\`tasks\n> - id: quoted\n> \`\`\`\n\n\`\`\`tasks\n${TASK}\n\`\`\``,
      offset: 5,
    },
    {
      name: 'tasks block in an HTML comment is ignored',
      md: `<!--\n\`\`\`tasks\n- id: hidden\n\`\`\`\n-->\n\`\`\`tasks\n${TASK}\n\`\`\``,
      offset: 6,
    },
    {
      name: 'one-line HTML comment does not hide what follows',
      md: `<!-- agent-coordinator:plan run_id=1 -->\n\`\`\`tasks\n${TASK}\n\`\`\``,
      offset: 2,
    },
    {
      name: 'tasks with other language info is skipped',
      md: `\`\`\`tasks yaml\nx\n\`\`\`\n\`\`\`tasks\n${TASK}\n\`\`\``,
      offset: 4,
    },
  ])('finds the block: $name', ({ md, offset, yaml }) => {
    const result = extractTasksBlock(md);
    expect(result).toEqual({ ok: true, yaml: yaml ?? TASK, lineOffset: offset, columnOffset: 0 });
  });

  it('strips the fence indentation from content lines', () => {
    const result = extractTasksBlock(`   \`\`\`tasks\n   - id: a\n     title: A\n  x\n   \`\`\``);
    expect(result).toEqual({
      ok: true,
      yaml: '- id: a\n  title: A\nx',
      lineOffset: 1,
      columnOffset: 3,
    });
  });

  it.each([
    { name: 'empty', md: '' },
    { name: 'prose only', md: 'Just do it.' },
    { name: 'other language', md: '```yaml\n- id: a\n```' },
    { name: 'uppercase info', md: '```Tasks\n- id: a\n```' },
    {
      name: 'four-space indent is an indented code block',
      md: '    ```tasks\n    - id: a\n    ```',
    },
    { name: 'backtick in a backtick info string', md: '```tasks`\n- id: a\n```' },
    { name: 'only quoted', md: '> ```tasks\n> - id: a\n> ```' },
    { name: 'only inside another fence', md: '~~~\n```tasks\n- id: a\n```\n~~~' },
    { name: 'tasks fence inside an unclosed fence', md: '```sh\necho\n```tasks\n- id: a\n```' },
  ])('reports no_tasks_block: $name', ({ md }) => {
    const result = extractTasksBlock(md);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('no_tasks_block');
      expect(result.error.message).toContain('`tasks`');
    }
  });

  it('reports multiple_tasks_blocks at the second block', () => {
    const result = extractTasksBlock(
      `\`\`\`tasks\n${TASK}\n\`\`\`\n\ntext\n  ~~~tasks\n${TASK}\n~~~\n`,
    );
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'multiple_tasks_blocks',
        message: expect.stringContaining('first starts on line 1'),
        line: 7,
        column: 3,
      },
    });
  });
});
