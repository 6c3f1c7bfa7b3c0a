import { describe, expect, it } from 'vitest';
import { parsePlanMarkdown, parsePlanYaml } from '../../../src/core/plan/index.js';
import type { PlanError, PlanResult } from '../../../src/core/plan/index.js';
import type { PlanLimits } from '../../../src/core/plan/types.js';
import { LIMITS, SPEC_EXAMPLE, tasksYaml } from './fixtures.js';

function errorsOf(result: PlanResult): PlanError[] {
  if (result.ok) throw new Error(`expected errors, got a plan: ${JSON.stringify(result.plan)}`);
  return result.errors;
}

describe('parsePlanMarkdown on the SPEC example', () => {
  it('yields four tasks with defaults filled and a valid order', () => {
    const result = parsePlanMarkdown(SPEC_EXAMPLE, LIMITS);
    expect(result).toEqual({
      ok: true,
      plan: {
        tasks: [
          {
            id: 'task_001',
            title: 'Define the login API signature',
            type: 'code_edit',
            deps: [],
            priority: 3,
          },
          {
            id: 'task_002',
            title: 'Implement login',
            type: 'default',
            deps: ['task_001'],
            prompt: 'Implement POST /login using the signature from task_001.\n',
            priority: 4,
            timeoutMinutes: 15,
          },
          {
            id: 'task_003',
            title: 'Unit tests for login',
            type: 'test',
            deps: ['task_001'],
            priority: 3,
          },
          {
            id: 'task_004',
            title: 'Integration test',
            type: 'default',
            deps: ['task_002', 'task_003'],
            priority: 3,
          },
        ],
        order: ['task_001', 'task_002', 'task_003', 'task_004'],
      },
    });
  });

  it('keeps the base out of the plan when not given', () => {
    const result = parsePlanMarkdown(SPEC_EXAMPLE, LIMITS);
    expect(result.ok && 'base' in result.plan).toBe(false);
  });
});

describe('parsePlanYaml accepts', () => {
  it.each([
    {
      name: 'the mapping form with base',
      yaml: 'base: release/1.x\ntasks:\n  - id: a\n    title: A\n',
      base: 'release/1.x',
      ids: ['a'],
    },
    {
      name: 'the mapping form with a null base',
      yaml: 'base:\ntasks:\n  - id: a\n    title: A\n',
      base: undefined,
      ids: ['a'],
    },
    {
      name: 'flow style',
      yaml: '[{id: a, title: A}, {id: b, title: B, deps: [a]}]',
      base: undefined,
      ids: ['a', 'b'],
    },
    {
      name: 'unquoted numeric ids kept as written',
      yaml: '- id: 001\n  title: 42\n- id: 2\n  title: true\n  deps: [001]\n',
      base: undefined,
      ids: ['001', '2'],
    },
    {
      name: 'null optional fields as absent',
      yaml: '- id: a\n  title: A\n  deps:\n  type:\n  priority:\n  prompt:\n  timeoutMinutes:\n',
      base: undefined,
      ids: ['a'],
    },
  ])('$name', ({ yaml, base, ids }) => {
    const result = parsePlanYaml(yaml, LIMITS);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.plan.base).toBe(base);
    expect(result.plan.tasks.map((t) => t.id)).toEqual(ids);
  });

  it('fills defaults and keeps untrusted text verbatim', () => {
    const title = '${{ secrets.TOKEN }} `rm -rf` <!-- x --> <b>hi</b> A-->B';
    const prompt = 'graph TD\n  A-->B\n<script>alert(1)</script>\n';
    const yaml = `- id: a\n  title: ${JSON.stringify(title)}\n  prompt: ${JSON.stringify(prompt)}\n`;
    const result = parsePlanYaml(yaml, LIMITS);
    expect(result).toEqual({
      ok: true,
      plan: {
        tasks: [{ id: 'a', title, type: 'default', deps: [], prompt, priority: 3 }],
        order: ['a'],
      },
    });
  });

  it('orders deps first and keeps plan order for ties', () => {
    // t0 needs t3; t1 and t2 are free; t3 needs t2
    const result = parsePlanYaml(tasksYaml([['t3'], [], [], ['t2']]), LIMITS);
    expect(result.ok && result.plan.order).toEqual(['t1', 't2', 't3', 't0']);
  });

  it.each([
    ['a 1-minute timeout', 1],
    ['the 340-minute maximum (a job ends at 6 hours, setup included)', 340],
  ])('timeoutMinutes at %s', (_, minutes) => {
    const result = parsePlanYaml(`- id: a\n  title: A\n  timeoutMinutes: ${minutes}\n`, LIMITS);
    expect(result.ok && result.plan.tasks[0]?.timeoutMinutes).toBe(minutes);
  });
});

interface ErrorCase {
  name: string;
  yaml: string;
  limits?: PlanLimits;
  /** Exact codes, in reported order. */
  codes: string[];
  /** Substrings of the first error's message. */
  says: string[];
  path?: string;
  line?: number;
  column?: number;
  taskId?: string;
}

const ERROR_CASES: ErrorCase[] = [
  {
    name: 'yaml syntax',
    yaml: '- id: a\n  title: A\n bad: x\n',
    codes: ['yaml'],
    says: ['invalid YAML'],
    line: 3,
    column: 1,
  },
  {
    name: 'duplicate key is a yaml error',
    yaml: '- id: a\n  id: b\n  title: A\n',
    codes: ['yaml'],
    says: ['unique'],
    line: 2,
    column: 3,
  },
  {
    name: 'multiple documents',
    yaml: '- id: a\n  title: A\n---\n- id: b\n  title: B\n',
    codes: ['yaml'],
    says: ['multiple documents'],
  },
  {
    name: 'a scalar',
    yaml: 'hello',
    codes: ['not_a_list'],
    says: ['list of tasks', 'the string `hello`'],
  },
  {
    name: 'tasks not a list',
    yaml: 'tasks: {id: a}\n',
    codes: ['not_a_list'],
    says: ['`tasks` must be a YAML list', 'a mapping'],
    path: 'tasks',
    line: 1,
    column: 8,
  },
  {
    name: 'unknown top-level key with suggestion',
    yaml: 'bsae: main\ntasks:\n  - id: a\n    title: A\n',
    codes: ['unknown_field'],
    says: ['the plan has the unknown key `bsae`', 'did you mean `base`?'],
    path: 'bsae',
    line: 1,
    column: 1,
  },
  {
    name: 'unknown task key with suggestion',
    yaml: '- id: a\n  title: A\n  dep: [b]\n- id: b\n  title: B\n',
    codes: ['unknown_field'],
    says: ['task `a` has the unknown key `dep`', 'did you mean `deps`?'],
    path: '[0].dep',
    line: 3,
    column: 3,
    taskId: 'a',
  },
  {
    name: 'unknown key in snake case',
    yaml: '- id: a\n  title: A\n  timeout_minutes: 5\n',
    codes: ['unknown_field'],
    says: ['did you mean `timeoutMinutes`?'],
  },
  {
    name: 'unknown key suggested by synonym',
    yaml: '- id: a\n  title: A\n  depends_on: []\n',
    codes: ['unknown_field'],
    says: ['did you mean `deps`?'],
  },
  {
    name: 'unknown key with nothing close',
    yaml: '- title: A\n  id: a\n  model: opus\n',
    codes: ['unknown_field'],
    says: ['task `a` has the unknown key `model`', 'allowed keys are `id`, `title`'],
    taskId: 'a',
  },
  {
    name: 'missing id',
    yaml: '- title: A\n',
    codes: ['missing_field'],
    says: ['the task at `[0]` has no `id`'],
    path: '[0]',
    line: 1,
    column: 3,
  },
  {
    name: 'missing title',
    yaml: '- id: a\n',
    codes: ['missing_field'],
    says: ['task `a` has no `title`'],
    path: '[0].title',
    taskId: 'a',
  },
  { name: 'empty id', yaml: '- id:\n  title: A\n', codes: ['missing_field'], says: ['empty `id`'] },
  {
    name: 'mapping without tasks',
    yaml: 'base: main\n',
    codes: ['missing_field'],
    says: ['no `tasks` list'],
    path: 'tasks',
  },
  {
    name: 'invalid id',
    yaml: '- id: Task_1\n  title: A\n',
    codes: ['invalid_id'],
    says: ['id `Task_1` is not valid', 'lowercase'],
    path: '[0].id',
    line: 1,
    column: 7,
    taskId: 'Task_1',
  },
  {
    name: 'id too long',
    yaml: `- id: ${'a'.repeat(41)}\n  title: A\n`,
    codes: ['invalid_id'],
    says: ['1 to 40'],
  },
  {
    name: 'the id reserved for the planner',
    yaml: '- id: plan\n  title: A\n',
    codes: ['invalid_id'],
    says: ['id `plan` is reserved for the planner'],
    path: '[0].id',
    taskId: 'plan',
  },
  {
    name: 'id not a string',
    yaml: '- id: [a]\n  title: A\n',
    codes: ['invalid_id'],
    says: ['must be a string, not a list'],
  },
  {
    name: 'task not a mapping',
    yaml: '- task_001\n',
    codes: ['invalid_value'],
    says: ['`[0]` must be a mapping', 'the string `task_001`'],
    path: '[0]',
  },
  {
    name: 'priority out of range',
    yaml: '- id: a\n  title: A\n  priority: 6\n',
    codes: ['invalid_value'],
    says: ['`priority` of task `a`', 'from 1 to 5', 'the number `6`'],
    path: '[0].priority',
    line: 3,
    column: 13,
  },
  {
    name: 'priority quoted',
    yaml: '- id: a\n  title: A\n  priority: "4"\n',
    codes: ['invalid_value'],
    says: ['the string `4`'],
  },
  {
    name: 'priority fractional',
    yaml: '- id: a\n  title: A\n  priority: 2.5\n',
    codes: ['invalid_value'],
    says: ['whole number'],
  },
  {
    name: 'timeout too long',
    yaml: '- id: a\n  title: A\n  timeoutMinutes: 341\n',
    codes: ['invalid_value'],
    says: ['`timeoutMinutes`', 'from 1 to 340'],
  },
  {
    name: 'timeout zero',
    yaml: '- id: a\n  title: A\n  timeoutMinutes: 0\n',
    codes: ['invalid_value'],
    says: ['from 1 to 340'],
  },
  {
    name: 'title multi-line',
    yaml: '- id: a\n  title: "one\\ntwo"\n',
    codes: ['invalid_value'],
    says: ['single line'],
  },
  {
    name: 'title too long',
    yaml: `- id: a\n  title: ${'x'.repeat(257)}\n`,
    codes: ['invalid_value'],
    says: ['257 characters', 'limit is 256'],
  },
  {
    name: 'title blank',
    yaml: '- id: a\n  title: "  "\n',
    codes: ['invalid_value'],
    says: ['blank'],
  },
  {
    name: 'title a mapping',
    yaml: '- id: a\n  title: {x: 1}\n',
    codes: ['invalid_value'],
    says: ['must be a string, not a mapping'],
  },
  {
    name: 'type invalid',
    yaml: '- id: a\n  title: A\n  type: Code Edit\n',
    codes: ['invalid_value'],
    says: ['`type` of task `a` is `Code Edit`'],
  },
  {
    name: 'deps a scalar',
    yaml: '- id: a\n  title: A\n  deps: b\n- id: b\n  title: B\n',
    codes: ['invalid_value'],
    says: ['must be a list of task ids', '`deps: [b]`'],
    path: '[0].deps',
  },
  {
    name: 'dep repeated',
    yaml: '- id: a\n  title: A\n  deps: [b, b]\n- id: b\n  title: B\n',
    codes: ['invalid_value'],
    says: ['lists the dependency `b` twice'],
    path: '[0].deps[1]',
    line: 3,
    column: 13,
  },
  {
    name: 'dep not a scalar',
    yaml: '- id: a\n  title: A\n  deps: [[b]]\n',
    codes: ['invalid_value'],
    says: ['dependency 1 of task `a` must be a task id'],
  },
  {
    name: 'prompt too long',
    yaml: `- id: a\n  title: A\n  prompt: ${'p'.repeat(60_001)}\n`,
    codes: ['invalid_value'],
    says: ['60001 characters', 'limit is 60000'],
  },
  {
    name: 'prompt blank',
    yaml: '- id: a\n  title: A\n  prompt: ""\n',
    codes: ['invalid_value'],
    says: ['blank'],
  },
  {
    name: 'alias',
    yaml: '- &t {id: a, title: A}\n- *t\n',
    codes: ['invalid_value'],
    says: ['alias'],
    path: '[1]',
  },
  {
    name: 'duplicate id names both positions',
    yaml: '- id: a\n  title: A\n- id: b\n  title: B\n- id: a\n  title: C\n',
    codes: ['duplicate_id'],
    says: ['the id `a` is used by both `[0]` and `[2]`'],
    path: '[2].id',
    line: 5,
    column: 7,
    taskId: 'a',
  },
  {
    name: 'unknown dep with suggestion',
    yaml: '- id: task_001\n  title: A\n- id: b\n  title: B\n  deps: [task_01]\n',
    codes: ['unknown_dep'],
    says: ['task `b` depends on `task_01`, which is not a task', 'did you mean `task_001`?'],
    path: '[1].deps[0]',
    line: 5,
    column: 10,
    taskId: 'b',
  },
  {
    name: 'unknown dep in the mapping form',
    yaml: 'base: main\ntasks:\n  - id: a\n    title: A\n    deps: [zz]\n',
    codes: ['unknown_dep'],
    says: ['task `a` depends on `zz`'],
    path: 'tasks[0].deps[0]',
    line: 5,
    column: 12,
    taskId: 'a',
  },
  {
    name: 'unknown dep with nothing close',
    yaml: '- id: a\n  title: A\n  deps: [zz]\n',
    codes: ['unknown_dep'],
    says: ['depends on `zz`, which is not a task in this plan'],
  },
  {
    name: 'self dep',
    yaml: '- id: a\n  title: A\n  deps: [a]\n',
    codes: ['self_dep'],
    says: ['task `a` depends on itself'],
    path: '[0].deps[0]',
    taskId: 'a',
  },
  {
    name: 'two-cycle',
    yaml: tasksYaml([['t1'], ['t0']])
      .replace(/t0/g, 'task_a')
      .replace(/t1/g, 'task_b'),
    codes: ['cycle'],
    says: ['`task_a -> task_b -> task_a`'],
    path: '[0].deps[0]',
    taskId: 'task_a',
  },
  {
    name: 'three-cycle after acyclic tasks, in dependency direction',
    yaml: tasksYaml([[], ['t0', 't3'], ['t1'], ['t2']]),
    codes: ['cycle'],
    says: ['`t1 -> t3 -> t2 -> t1`'],
    path: '[1].deps[1]',
    taskId: 't1',
  },
  {
    name: 'too many tasks',
    yaml: tasksYaml([[], [], []]),
    limits: { maxTasks: 2 },
    codes: ['too_many_tasks'],
    says: ['3 tasks', 'limit is 2'],
    line: 1,
    column: 1,
  },
  {
    name: 'too many tasks is checked before per-task errors',
    yaml: '- nonsense\n- 1\n- {id: BAD}\n',
    limits: { maxTasks: 2 },
    codes: ['too_many_tasks'],
    says: ['3 tasks'],
  },
  { name: 'empty text', yaml: '', codes: ['empty_plan'], says: ['empty'] },
  { name: 'comments only', yaml: '# nothing\n', codes: ['empty_plan'], says: ['empty'] },
  { name: 'empty list', yaml: '[]', codes: ['empty_plan'], says: ['no tasks'] },
  { name: 'empty tasks key', yaml: 'tasks:\n', codes: ['empty_plan'], says: ['no tasks'] },
  {
    name: 'base with ..',
    yaml: 'base: a..b\ntasks: [{id: a, title: A}]\n',
    codes: ['invalid_value'],
    says: ['`base` `a..b` is not a valid branch name', '`..`'],
    path: 'base',
    line: 1,
    column: 7,
  },
  {
    name: "a planner's base",
    yaml: 'base: release/1.x\ntasks: [{id: a, title: A}]\n',
    limits: { ...LIMITS, planner: true },
    codes: ['invalid_value'],
    says: ["a planner's plan names no `base`"],
    path: 'base',
    line: 1,
    column: 1,
  },
];

describe('parsePlanYaml rejects', () => {
  it.each(ERROR_CASES)('$name', (c) => {
    const errors = errorsOf(parsePlanYaml(c.yaml, c.limits ?? LIMITS));
    expect(errors.map((e) => e.code)).toEqual(c.codes);
    const first = errors[0]!;
    for (const part of c.says) expect(first.message).toContain(part);
    if (c.path !== undefined) expect(first.path).toBe(c.path);
    if (c.line !== undefined) expect(first.line).toBe(c.line);
    if (c.column !== undefined) expect(first.column).toBe(c.column);
    if (c.taskId !== undefined) expect(first.taskId).toBe(c.taskId);
  });

  it.each([
    ['-main', 'starts with `-`'],
    ['my branch', 'space'],
    ['feat~1', '~'],
    ['a^b', '^'],
    ['a:b', ':'],
    ['a?b', '?'],
    ['a*b', '*'],
    ['a[b', '['],
    ['"a\\\\b"', '\\'],
    ['"a\\tb"', 'control'],
    ['feature/', 'ends with `/`'],
    ['main.lock', '`.lock`'],
    ['a/.hidden', 'starts with `.`'],
    ['"@{x}"', '`@{`'],
    ['[main]', 'not a list'],
  ])('the base %s', (base, says) => {
    const errors = errorsOf(parsePlanYaml(`base: ${base}\ntasks: [{id: a, title: A}]\n`, LIMITS));
    expect(errors.map((e) => e.code)).toEqual(['invalid_value']);
    expect(errors[0]!.message).toContain(says.replace('not a list', 'a list'));
  });

  it('collects every error of a plan, sorted by position', () => {
    const yaml = [
      '- id: a', // 1
      '  title: A',
      '  deps: [b, ghost]', // 3: unknown dep
      '  colour: red', // 4: unknown key
      '- id: b', // 5
      '  title: B',
      '  deps: [a]', // 7: with a's dep on b, a cycle (reported on a's dep, line 3)
      '  priority: 0', // 8
      '- id: a', // 9: duplicate
      '  title: again',
    ].join('\n');
    const errors = errorsOf(parsePlanYaml(yaml, LIMITS));
    expect(errors.map((e) => [e.code, e.line])).toEqual([
      ['cycle', 3],
      ['unknown_dep', 3],
      ['unknown_field', 4],
      ['invalid_value', 8],
      ['duplicate_id', 9],
    ]);
  });

  it('caps the list at 50 errors', () => {
    const yaml = Array.from({ length: 80 }, (_, i) => `- id: t${i}\n  titel: x\n`).join('');
    const errors = errorsOf(parsePlanYaml(yaml, { maxTasks: 100 }));
    expect(errors).toHaveLength(50);
    expect(errors.every((e) => e.code === 'unknown_field' || e.code === 'missing_field')).toBe(
      true,
    );
    expect(errors[0]!.line).toBe(1);
  });

  it('does not report deps on a malformed id as unknown', () => {
    const errors = errorsOf(
      parsePlanYaml('- id: A\n  title: A\n- id: b\n  title: B\n  deps: [A]\n', LIMITS),
    );
    expect(errors.map((e) => e.code)).toEqual(['invalid_id']);
  });
});

describe('parsePlanMarkdown positions', () => {
  it('reports YAML syntax errors at markdown lines', () => {
    const md = 'Plan:\n\n```tasks\n- id: a\n  title: A\n bad: x\n```\n';
    const errors = errorsOf(parsePlanMarkdown(md, LIMITS));
    expect(errors).toEqual([
      { code: 'yaml', message: expect.stringContaining('invalid YAML'), line: 6, column: 1 },
    ]);
  });

  it('reports field errors at markdown lines and columns', () => {
    const md = 'intro\r\n\r\n```tasks\r\n- id: a\r\n  title: A\r\n  priority: 9\r\n```\r\n';
    const errors = errorsOf(parsePlanMarkdown(md, LIMITS));
    expect(errors).toEqual([
      {
        code: 'invalid_value',
        message: expect.stringContaining('`priority`'),
        taskId: 'a',
        path: '[0].priority',
        line: 6,
        column: 13,
      },
    ]);
  });

  it('adds the fence indentation to columns', () => {
    const md = '  ```tasks\n  - id: a\n    title: A\n    priority: 9\n  ```\n';
    const errors = errorsOf(parsePlanMarkdown(md, LIMITS));
    expect(errors[0]).toMatchObject({ line: 4, column: 15 });
  });

  it('passes extraction errors through', () => {
    expect(errorsOf(parsePlanMarkdown('no plan here', LIMITS)).map((e) => e.code)).toEqual([
      'no_tasks_block',
    ]);
    const two = '```tasks\n- id: a\n  title: A\n```\n```tasks\n- id: b\n  title: B\n```\n';
    expect(errorsOf(parsePlanMarkdown(two, LIMITS))).toMatchObject([
      { code: 'multiple_tasks_blocks', line: 5 },
    ]);
  });

  it('ignores a tasks fence inside an md fence and a blockquote', () => {
    const md = [
      'Example of the syntax:',
      '````md',
      '```tasks',
      '- id: example',
      '```',
      '````',
      '> ```tasks',
      '> - id: quoted',
      '> ```',
      '```tasks',
      '- id: real',
      '  title: Real',
      '```',
    ].join('\n');
    const result = parsePlanMarkdown(md, LIMITS);
    expect(result.ok && result.plan.tasks.map((t) => t.id)).toEqual(['real']);
  });

  it('accepts the mapping form with base inside markdown', () => {
    const md = '~~~tasks\nbase: develop\ntasks:\n  - id: a\n    title: A\n~~~\n';
    const result = parsePlanMarkdown(md, LIMITS);
    expect(result.ok && result.plan).toEqual({
      base: 'develop',
      tasks: [{ id: 'a', title: 'A', type: 'default', deps: [], priority: 3 }],
      order: ['a'],
    });
  });
});
