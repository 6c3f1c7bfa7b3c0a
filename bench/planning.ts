// Benchmark 4: validating a 5,000-task plan with a cycle near the end (docs/lifecycle.md).
import { LineCounter, parse, parseDocument } from 'yaml';
import { codeBlockLines } from '../src/core/code-blocks.js';
import { extractTasksBlock, parsePlanMarkdown } from '../src/core/plan/index.js';
import { visibleMarkdown } from '../src/core/visible-text.js';
import type { TaskSpec } from '../src/core/plan/index.js';
import { layeredIssue, tasksBlock } from './lib/graphs.js';
import type { Report } from './lib/report.js';
import { nowMs, percentile } from './lib/stats.js';

/** `size` tasks in layers of 50; near the end, two tasks of the last layer depend on each other. */
export function planWithCycle(size: number): { markdown: string; cycle: string } {
  const tasks: TaskSpec[] = layeredIssue(size, 50, 11);
  const a = tasks[size - 10]!;
  const b = tasks[size - 1]!;
  a.deps = [...a.deps, b.id];
  b.deps = [...b.deps, a.id];
  return {
    markdown: `Please build this.\n\n${tasksBlock(tasks)}\n`,
    cycle: `${a.id} -> ${b.id} -> ${a.id}`,
  };
}

function planWithout(size: number): string {
  return `Please build this.\n\n${tasksBlock(layeredIssue(size, 50, 11))}\n`;
}

function time(runs: number, fn: () => unknown): number[] {
  fn(); // warm-up (JIT); the cold figure is reported separately
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = nowMs();
    fn();
    out.push(nowMs() - t);
  }
  return out;
}

export async function runPlanning(report: Report, options: { quick: boolean }): Promise<void> {
  const runs = options.quick ? 3 : 9;
  const size = 5000;
  const { markdown, cycle } = planWithCycle(size);
  const limits = { maxTasks: 5000 };

  const coldStart = nowMs();
  const cold = parsePlanMarkdown(markdown, limits);
  const coldMs = nowMs() - coldStart;
  if (cold.ok) throw new Error('the plan with a cycle validated');
  const found = cold.errors.find((e) => e.code === 'cycle');
  if (!found || found.cycle?.join(' -> ') !== cycle)
    throw new Error(`expected the cycle ${cycle}; got ${JSON.stringify(cold.errors.slice(0, 3))}`);
  report.note(
    `planning: ${size} tasks, ${(markdown.length / 1024).toFixed(0)} KB of markdown; error reported: "${found.message}"`,
  );

  const validate = time(runs, () => parsePlanMarkdown(markdown, limits));
  // What the yaml library alone costs on the same text, with the options the validator uses.
  const block = extractTasksBlock(markdown);
  if (!block.ok) throw new Error('no tasks block');
  const yamlDoc = time(runs, () =>
    parseDocument(block.yaml, {
      lineCounter: new LineCounter(),
      prettyErrors: false,
      uniqueKeys: true,
    }),
  );
  const valid = planWithout(size);
  const validOk = time(runs, () => parsePlanMarkdown(valid, limits));

  const p50 = (xs: number[]) => percentile(xs, 50);
  report.figure('validate_ms', p50(validate), 'ms');
  report.figure('validate_cold_ms', coldMs, 'ms');
  report.figure('validate_valid_5000_ms', p50(validOk), 'ms');
  report.figure('validate_yaml_document_ms', p50(yamlDoc), 'ms');
  report.figure('validate_yaml_share', p50(yamlDoc) / p50(validate), 'ratio');
  if (!options.quick) {
    const yamlPlain = time(runs, () => parse(block.yaml));
    const asJson = JSON.stringify(parse(block.yaml));
    const json = time(runs, () => JSON.parse(asJson));
    report.note(
      `same tasks: yaml parse() to plain objects ${p50(yamlPlain).toFixed(1)} ms; JSON.parse of the same data ${p50(json).toFixed(2)} ms`,
    );
  }
  // The labelled issue's plan is read as GitHub shows it too (docs/security.md, "Text nobody saw").
  const validIssue = time(runs, () => parsePlanMarkdown(valid, { ...limits, issue: true }));
  report.figure('validate_issue_5000_ms', p50(validIssue), 'ms');
  // Texts an issue's author may write to make the readers of hidden text backtrack: each reader
  // works line by line, so these stay at a few hundred milliseconds.
  const hostile = `${'[a\n'.repeat(20_000)}${'<!-- x\n'.repeat(5_000)}`;
  report.figure('visible_text_hostile_ms', p50(time(runs, () => visibleMarkdown(hostile))), 'ms');
  // A Mermaid diagram's lines are read by patterns per diagram kind: a mindmap line of 64 KiB
  // of spaces and tabs (an issue body's most) once cost seconds, an indent and an id trading them.
  const mindmap = `\`\`\`mermaid\nmindmap\n${' \t'.repeat(32 * 1024)}x\n\`\`\``;
  report.figure(
    'visible_text_mermaid_hostile_ms',
    p50(time(runs, () => visibleMarkdown(mindmap))),
    'ms',
  );
  const fences = Array.from(
    { length: 60_000 },
    (_, i) => ['- a', ' ```', '<span>', '````', '~~~', '<!--', ''][i % 7]!,
  );
  report.figure('code_blocks_hostile_ms', p50(time(runs, () => codeBlockLines(fences))), 'ms');
  for (const n of options.quick ? [50, 500, 1000] : [50, 500, 1000, 2000, 5000]) {
    const text = planWithCycle(n).markdown;
    const ms = p50(time(runs, () => parsePlanMarkdown(text, { maxTasks: 5000 })));
    report.figure(`validate_ms_${n}`, ms, 'ms');
  }
}
