import fc from 'fast-check';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  formatPlanErrors,
  parsePlanMarkdown,
  parsePlanYaml,
} from '../../../src/core/plan/index.js';
import type { PlanResult } from '../../../src/core/plan/index.js';

const LIMITS = { maxTasks: 20 };

function checkShape(result: PlanResult): void {
  if (result.ok) {
    expect(result.plan.order).toHaveLength(result.plan.tasks.length);
    return;
  }
  expect(result.errors.length).toBeGreaterThan(0);
  expect(result.errors.length).toBeLessThanOrEqual(50);
  for (const e of result.errors) {
    expect(e.message.length).toBeGreaterThan(0);
    expect(e.message).not.toMatch(/[\r\n]/);
  }
  const text = formatPlanErrors(result.errors);
  expect(text.split('\n')).toHaveLength(result.errors.length);
}

// Ids from a small pool, so deps often hit real tasks, repeat, or form cycles.
const id = fc.oneof(
  fc.constantFrom('a', 'b', 'c', 'task_001', 'task_002', 'Bad', ''),
  fc.string({ maxLength: 12 }),
);
const scalar = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);
const taskish = fc.record(
  {
    id: fc.oneof(id, scalar),
    title: fc.oneof(fc.string({ maxLength: 30 }), scalar),
    type: fc.oneof(fc.constantFrom('default', 'test', 'code_edit'), scalar),
    deps: fc.oneof(fc.array(id, { maxLength: 4 }), scalar),
    prompt: scalar,
    priority: fc.oneof(fc.integer({ min: -1, max: 7 }), scalar),
    timeoutMinutes: fc.oneof(fc.integer({ min: -1, max: 400 }), scalar),
    depz: scalar,
  },
  { requiredKeys: [] },
);
const planish = fc.oneof(
  fc.array(taskish, { maxLength: 25 }),
  fc.record(
    {
      base: fc.oneof(fc.constantFrom('main', 'release/1.x', 'a..b', '-x'), scalar),
      tasks: fc.oneof(fc.array(taskish, { maxLength: 8 }), scalar),
      extra: scalar,
    },
    { requiredKeys: [] },
  ),
  fc.anything(),
);

describe('fuzz', () => {
  it('parsePlanYaml never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        checkShape(parsePlanYaml(text, LIMITS));
      }),
      { numRuns: 500 },
    );
  });

  it('parsePlanMarkdown never throws on arbitrary text', () => {
    const line = fc.oneof(
      fc.constantFrom('```tasks', '~~~tasks', '```', '~~~', '````md', '> ```tasks', '<!--', '-->'),
      fc.constantFrom('- id: a', '  title: A', '  deps: [a]', '- id: b', '  title: B'),
      fc.string({ maxLength: 30 }),
    );
    const markdown = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc
        .tuple(fc.array(line, { maxLength: 20 }), fc.constantFrom('\n', '\r\n', '\r'))
        .map(([lines, eol]) => lines.join(eol)),
    );
    fc.assert(
      fc.property(markdown, (md) => {
        checkShape(parsePlanMarkdown(md, LIMITS));
      }),
      { numRuns: 1000 },
    );
  });

  it('never throws on task-like structures dumped to YAML, in a list or in markdown', () => {
    fc.assert(
      fc.property(planish, fc.boolean(), (value, flow) => {
        const yaml = stringify(value, flow ? { collectionStyle: 'flow' } : {});
        const result = parsePlanYaml(yaml, LIMITS);
        checkShape(result);
        const md = parsePlanMarkdown('Intro\r\n\r\n```tasks\r\n' + yaml + '```\r\n', LIMITS);
        expect(md.ok).toBe(result.ok);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on deeply nested input', () => {
    for (const text of ['['.repeat(50_000), '- '.repeat(20_000) + 'x', '{a: '.repeat(20_000)]) {
      checkShape(parsePlanYaml(text, LIMITS));
    }
  });
});
