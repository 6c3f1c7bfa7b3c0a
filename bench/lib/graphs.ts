import type { TaskSpec } from '../../src/core/plan/index.js';
import { rng } from './stats.js';

export type Shape = 'fleet' | 'wide' | 'deep';

export interface IssueGraph {
  issue: number;
  tasks: TaskSpec[];
}

const id = (i: number) => `t${String(i).padStart(5, '0')}`;

function spec(i: number, deps: string[], random: () => number): TaskSpec {
  // Mostly the default priority, some urgent and some low, like a real backlog.
  const r = random();
  const priority = r < 0.1 ? 5 : r < 0.2 ? 4 : r < 0.9 ? 3 : 2;
  return { id: id(i), title: `Task ${i}`, type: 'default', deps, priority };
}

/**
 * One issue of `size` tasks in layers of `width`: each task past the first layer depends on two
 * tasks of the layer before. The fleet's issues are 30 tasks in 5 layers of 6.
 */
export function layeredIssue(size: number, width: number, seed: number): TaskSpec[] {
  const random = rng(seed);
  const tasks: TaskSpec[] = [];
  for (let i = 0; i < size; i++) {
    const layer = Math.floor(i / width);
    if (layer === 0) {
      tasks.push(spec(i, [], random));
      continue;
    }
    const from = (layer - 1) * width;
    const a = from + Math.floor(random() * width);
    let b = from + Math.floor(random() * width);
    if (b === a) b = from + ((a - from + 1) % width);
    tasks.push(spec(i, a === b ? [id(a)] : [id(a), id(b)], random));
  }
  return tasks;
}

/** 100 roots, and every other task depends on two of them: a merge frees hundreds at once. */
export function wideIssue(size: number, seed: number): TaskSpec[] {
  const random = rng(seed);
  const roots = Math.min(100, size);
  const tasks: TaskSpec[] = [];
  for (let i = 0; i < size; i++) {
    if (i < roots) {
      tasks.push(spec(i, [], random));
      continue;
    }
    const a = Math.floor(random() * roots);
    const b = (a + 1 + Math.floor(random() * (roots - 1))) % roots;
    tasks.push(spec(i, roots > 1 ? [id(a), id(b)] : [id(a)], random));
  }
  return tasks;
}

/** A chain: each task depends on the one before (and, every tenth, on the one before that). */
export function deepIssue(size: number, seed: number): TaskSpec[] {
  const random = rng(seed);
  const tasks: TaskSpec[] = [];
  for (let i = 0; i < size; i++) {
    const deps = i === 0 ? [] : i % 10 === 0 && i > 1 ? [id(i - 1), id(i - 2)] : [id(i - 1)];
    tasks.push(spec(i, deps, random));
  }
  return tasks;
}

/** `total` tasks as issues of the shape: fleet = issues of 30; wide and deep = one issue. */
export function workload(shape: Shape, total: number, seed = 7): IssueGraph[] {
  if (shape === 'wide') return [{ issue: 1, tasks: wideIssue(total, seed) }];
  if (shape === 'deep') return [{ issue: 1, tasks: deepIssue(total, seed) }];
  const perIssue = 30;
  const issues = Math.max(1, Math.round(total / perIssue));
  return Array.from({ length: issues }, (_, i) => ({
    issue: i + 1,
    tasks: layeredIssue(perIssue, 6, seed * 100_003 + i),
  }));
}

/** The issue's tasks block, as a person (or the planner) would write it. */
export function tasksBlock(tasks: readonly TaskSpec[]): string {
  const lines = ['```tasks'];
  for (const t of tasks) {
    lines.push(`- id: ${t.id}`, `  title: ${t.title}`, `  deps: [${t.deps.join(', ')}]`);
    if (t.priority !== 3) lines.push(`  priority: ${t.priority}`);
  }
  lines.push('```');
  return lines.join('\n');
}
