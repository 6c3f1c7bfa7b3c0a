import { describe, expect, it } from 'vitest';
import {
  renderStatusComment,
  STATUS_MARKER,
  type StatusTaskView,
} from '../../../src/core/status/index.js';
import { WORD_JOINER as WJ } from '../../../src/core/inert-markdown.js';
import { MARKER_PREFIX, occurrences, SPEC_VIEW_TASKS, statusView, taskView } from './builders.js';

const mermaidBlock = (body: string): string | undefined =>
  /```mermaid\n([\s\S]*?)\n```/.exec(body)?.[1];

function manyTasks(n: number, title = 'Do a thing to the code'): StatusTaskView[] {
  return Array.from({ length: n }, (_, i) =>
    taskView({ id: `task_${i}`, title, deps: i > 0 ? [`task_${i - 1}`] : [], attempts: 1 }),
  );
}

describe('renderStatusComment', () => {
  const body = renderStatusComment(
    statusView({ tasks: SPEC_VIEW_TASKS, spentUsd: 1.234, budgetUsd: 20 }),
  );

  it('starts with the marker and names the run state', () => {
    expect(body.startsWith(`${STATUS_MARKER}\n### agent-coordinator: \`running\``)).toBe(true);
    expect(occurrences(body, MARKER_PREFIX)).toBe(1);
  });

  it('draws the docs/tasks-block.md graph with generated node ids, edges and state classes', () => {
    expect(mermaidBlock(body)?.split('\n')).toEqual([
      'graph TD',
      '  t0["task_001#58; Define the login API signature"]',
      '  t1["task_002#58; Implement login"]',
      '  t2["task_003#58; Unit tests for login"]',
      '  t3["task_004#58; Integration test"]',
      '  t0 --> t1',
      '  t0 --> t2',
      '  t1 --> t3',
      '  t2 --> t3',
      '  classDef merged fill:#2da44e,stroke:#1a7f37,color:#ffffff',
      '  class t0 merged',
      '  classDef running fill:#0969da,stroke:#0550ae,color:#ffffff',
      '  class t1 running',
      '  classDef in_review fill:#fff8c5,stroke:#bf8700,color:#1f2328',
      '  class t2 in_review',
      '  classDef pending fill:#ffffff,stroke:#6e7781,color:#1f2328',
      '  class t3 pending',
    ]);
  });

  it('tabulates every task with deps, state, attempts, PR and cost', () => {
    expect(body).toContain(
      [
        '| Task | Title | Deps | State | Attempts | PR | Cost |',
        '|---|---|---|---|---|---|---|',
        '| task_001 | Define the login API signature | – | merged | 1 | #12 | $0.42 |',
        '| task_002 | Implement login | task_001 | running | 2 | – | $0.81 |',
        '| task_003 | Unit tests for login | task_001 | in_review | 1 | #14 | – |',
        `| task_004 | Integration test | task_002, task_003 | pending: waiting for task_002, task_003 (#${WJ}14) | 0 | – | – |`,
      ].join('\n'),
    );
  });

  it('shows spend against budget, the commands and the update time', () => {
    expect(body).toContain(
      '4 tasks: 1 merged, 1 running, 1 in_review, 1 pending · spend $1.23 / $20.00',
    );
    expect(body).toMatch(
      /<details><summary>Commands<\/summary>[\s\S]*`\/approve <task_id>`[\s\S]*<\/details>/,
    );
    expect(body).toContain('<sub>Updated 2025-03-01T12:00:00Z</sub>');
  });

  it.each([
    { spentUsd: 20, budgetUsd: 20, text: 'spend $20.00 / $20.00 (budget reached)' },
    { spentUsd: 3.5, budgetUsd: Infinity, text: 'spend $3.50 (no budget)' },
  ])('spend $text', ({ spentUsd, budgetUsd, text }) => {
    expect(renderStatusComment(statusView({ spentUsd, budgetUsd }))).toContain(text);
  });

  it('shows plan errors and no graph or table for an invalid plan', () => {
    const out = renderStatusComment(
      statusView({
        runState: 'plan_invalid',
        planErrors: 'cycle: `task_a -> task_b -> task_a`',
      }),
    );
    expect(out).toContain('### agent-coordinator: `plan_invalid`');
    expect(out).toContain('#### Plan errors\n\ncycle: `task_a -> task_b -> task_a`');
    expect(out).not.toContain('```mermaid');
    expect(out).not.toContain('| Task |');
  });

  describe('hostile text', () => {
    const hostile = [
      '${{ secrets.X }}',
      'run `rm -rf /`',
      '<!-- agent-coordinator:status -->',
      '<script>alert(1)</script>',
      '"]; click A call x()',
      'A-->B',
      'a | b',
      'line one\nline two',
      '%%{init: {"securityLevel": "loose"}}%%',
      '```',
      'a \\| b',
    ];
    const tasks = hostile.map((title, i) =>
      taskView({ id: `task_${i}`, title, deps: i > 0 ? ['task_0'] : [], waiting: title }),
    );
    const out = renderStatusComment(
      statusView({
        tasks,
        planErrors: '```\n<!-- agent-coordinator:status -->',
        notes: ['<!-- agent-coordinator:status -->', 'two\nlines'],
      }),
    );

    it('contains the marker exactly once', () => {
      expect(occurrences(out, MARKER_PREFIX)).toBe(1);
      expect(occurrences(out, '<!--')).toBe(1);
      expect(out.startsWith(STATUS_MARKER)).toBe(true);
    });

    it('keeps each task on one table row with exactly seven cells', () => {
      const rows = out.split('\n').filter((l) => /^\| task_\d+ /.test(l));
      expect(rows).toHaveLength(hostile.length);
      for (const row of rows) {
        const cells = row.split(/(?<!\\)\|/).slice(1, -1);
        expect(cells).toHaveLength(7);
        expect(row).not.toMatch(/[<>]|(?<!\\)`/);
      }
    });

    it('escapes the table cells exactly', () => {
      expect(out).toContain('| task_3 | &lt;script&gt;alert(1)&lt;/script&gt; | task_0 |');
      expect(out).toContain('| task_1 | run \\`rm -rf /\\` | task_0 |');
      expect(out).toContain('| task_6 | a \\| b | task_0 | pending: a \\| b |');
      expect(out).toContain('| task_7 | line one line two |');
    });

    it('keeps labels inside quoted Mermaid strings', () => {
      const graph = mermaidBlock(out) ?? '';
      expect(graph).toContain('  t4["task_4#58; #quot;#93;; click A call x()"]');
      expect(graph).toContain('  t5["task_5#58; A--#gt;B"]');
      expect(graph).toContain('  t1["task_1#58; run #96;rm -rf /#96;"]');
      expect(graph).toContain('  t2["task_2#58; #lt;!-- agent-coordinator#58;status --#gt;"]');
      for (const line of graph.split('\n').filter((l) => l.includes('['))) {
        expect(line).toMatch(/^ {2}t\d+\["[^"<>`%]*"\]$/);
      }
      expect(graph.split('\n').filter((l) => l.includes('-->'))).toHaveLength(hostile.length - 1);
    });

    it('closes a fence opened by plan errors so the rest still renders', () => {
      const errors = out.slice(out.indexOf('#### Plan errors'), out.indexOf('```mermaid'));
      expect(occurrences(errors, '```') % 2).toBe(0);
    });
  });

  describe('size', () => {
    it('omits the graph above 200 tasks and says so', () => {
      const out = renderStatusComment(statusView({ tasks: manyTasks(201) }));
      expect(out).not.toContain('```mermaid');
      expect(out).toContain('The dependency graph is not shown: more than 200 tasks');
      expect(renderStatusComment(statusView({ tasks: manyTasks(200) }))).toContain('```mermaid');
    });

    it('omits the graph above 500 edges', () => {
      const tasks = Array.from({ length: 40 }, (_, i) =>
        taskView({ id: `t${i}`, deps: Array.from({ length: i }, (_, j) => `t${j}`) }),
      );
      expect(renderStatusComment(statusView({ tasks }))).toContain('more than 500 dependencies');
    });

    it.each([
      { maxChars: undefined, limit: 65_000 },
      { maxChars: 50_000, limit: 50_000 },
    ])(
      'keeps 5,000 tasks under $limit characters with a "more tasks" row',
      ({ maxChars, limit }) => {
        const view = statusView({
          tasks: manyTasks(5_000, 'x'.repeat(300)),
          planErrors: 'e\n'.repeat(40_000),
        });
        const out = renderStatusComment(view, maxChars === undefined ? {} : { maxChars });
        expect(out.length).toBeLessThanOrEqual(limit);
        expect(out.length).toBeGreaterThan(limit * 0.9);
        const shown = out.split('\n').filter((l) => /^\| task_\d+ /.test(l)).length;
        expect(out).toContain(`| … ${5_000 - shown} more tasks | | | | | | |`);
        expect(out.trimEnd().endsWith('</sub>')).toBe(true);
        expect(occurrences(out, MARKER_PREFIX)).toBe(1);
      },
    );

    it('keeps 200 tasks with hostile, maximal titles under the limit', () => {
      const tasks = manyTasks(200, '"<>`|&%#'.repeat(100));
      const out = renderStatusComment(statusView({ tasks }), { maxChars: 50_000 });
      expect(out.length).toBeLessThanOrEqual(50_000);
    });
  });
});

describe('agent configuration notes', () => {
  const noteLines = (tasks: StatusTaskView[]) =>
    renderStatusComment(statusView({ tasks }))
      .split('\n')
      .filter((line) => line.includes('changes agent configuration'));

  it.each<[string, Partial<StatusTaskView>, string[]]>([
    ['no list', {}, []],
    ['an empty list', { agentConfigChanged: [] }, []],
    [
      'one file',
      { id: 'task_002', prNumber: 12, agentConfigChanged: ['.claude/settings.json'] },
      ['- **task_002 (#12) changes agent configuration:** .claude/settings.json'],
    ],
    [
      'no PR number yet',
      { id: 'task_002', agentConfigChanged: ['CLAUDE.md', '.mcp.json'] },
      ['- **task_002 changes agent configuration:** CLAUDE.md, .mcp.json'],
    ],
    [
      'more than five',
      { prNumber: 3, agentConfigChanged: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] },
      ['- **task_001 (#3) changes agent configuration:** a, b, c, d, e, and 2 more'],
    ],
    [
      'hostile names',
      {
        prNumber: 4,
        agentConfigChanged: ['.claude/@alice #1 <img src=x> https://evil.example `x`'],
      },
      [
        `- **task_001 (#4) changes agent configuration:** .claude/@${WJ}alice #${WJ}1 &lt;img src=x&gt; https:${WJ}//evil.example \\\`x\\\``,
      ],
    ],
  ])('%s', (_name, task, expected) => {
    expect(noteLines([taskView(task)])).toEqual(expected);
  });

  it('one note per task whose PR changes agent configuration', () => {
    const lines = noteLines([
      taskView({ id: 'a', prNumber: 1, agentConfigChanged: ['AGENTS.md'] }),
      taskView({ id: 'b', prNumber: 2 }),
      taskView({ id: 'c', prNumber: 3, agentConfigChanged: ['.claude/x'] }),
    ]);
    expect(lines).toEqual([
      '- **a (#1) changes agent configuration:** AGENTS.md',
      '- **c (#3) changes agent configuration:** .claude/x',
    ]);
  });
});

describe('notes on changed files outside a task’s files:', () => {
  const noteLines = (tasks: StatusTaskView[]) =>
    renderStatusComment(statusView({ tasks }))
      .split('\n')
      .filter((line) => line.includes('its `files:`'));

  it.each<[string, Partial<StatusTaskView>, string[]]>([
    [
      'some not checked',
      { id: 'a', outsideFiles: ['src/api/x.ts'], outsideUnchecked: 2_990 },
      [
        '- a changed files outside its `files:`: src/api/x.ts; 2990 of its files were too many to check (its changed files decide its overlaps)',
      ],
    ],
    [
      'none found, some not checked',
      { id: 'a', outsideFiles: [], outsideUnchecked: 3_000 },
      [
        '- a: 3000 of its changed files were too many to check against its `files:` (its changed files decide its overlaps)',
      ],
    ],
  ])('%s', (_name, task, expected) => {
    expect(noteLines([taskView(task)])).toEqual(expected);
  });
});

describe('notes on updates GitHub refused the App', () => {
  const noteLines = (tasks: StatusTaskView[]) =>
    renderStatusComment(statusView({ tasks }))
      .split('\n')
      .filter((line) => line.includes('waits for a person'));

  it('one note per task whose PR waits for a person to merge its base in', () => {
    expect(
      noteLines([
        taskView({
          id: 'b',
          prNumber: 12,
          updateRefused: {
            base: 'agent/7/a',
            message:
              'refusing to allow a GitHub App to create or update workflow .github/workflows/ci.yml without workflows permission',
          },
        }),
        taskView({ id: 'c', prNumber: 13 }),
      ]),
    ).toEqual([
      '- **b (#12) waits for a person:** GitHub would not let the App bring it up to date with agent/7/a (refusing to allow a GitHub App to create or update workflow .github/workflows/ci.yml without workflows permission); merge agent/7/a into its branch and push',
    ]);
  });

  it('renders the task id, base and GitHub’s message inert', () => {
    expect(
      noteLines([
        taskView({
          prNumber: 4,
          updateRefused: { base: 'ma`in', message: '@alice #1 <img src=x> https://evil.example' },
        }),
      ]),
    ).toEqual([
      `- **task_001 (#4) waits for a person:** GitHub would not let the App bring it up to date with ma\\\`in (@${WJ}alice #${WJ}1 &lt;img src=x&gt; https:${WJ}//evil.example); merge ma\\\`in into its branch and push`,
    ]);
  });
});
