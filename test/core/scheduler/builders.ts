import type { Candidate, SchedulerInput } from '../../../src/core/scheduler/index.js';
import type { DependencyNode } from '../../../src/core/scheduler/index.js';

export function candidate(overrides: Partial<Candidate> = {}): Candidate {
  return { runId: 'run1', taskId: 'task_001', priority: 3, order: 0, ...overrides };
}

export function schedulerInput(overrides: Partial<SchedulerInput> = {}): SchedulerInput {
  return {
    now: 1_000_000,
    candidates: [],
    repoInflight: 0,
    repoLimit: 10,
    globalInflight: 0,
    globalLimit: Infinity,
    heldRuns: new Set(),
    budgetExhaustedRuns: new Set(),
    ...overrides,
  };
}

/** The four tasks of docs/tasks-block.md. */
export const SPEC_TASKS: DependencyNode[] = [
  { id: 'task_001', deps: [] },
  { id: 'task_002', deps: ['task_001'] },
  { id: 'task_003', deps: ['task_001'] },
  { id: 'task_004', deps: ['task_002', 'task_003'] },
];

export const DIAMOND: DependencyNode[] = [
  { id: 'a', deps: [] },
  { id: 'b', deps: ['a'] },
  { id: 'c', deps: ['a'] },
  { id: 'd', deps: ['b', 'c'] },
];

export function chain(n: number): DependencyNode[] {
  return Array.from({ length: n }, (_, i) => ({ id: `t${i}`, deps: i === 0 ? [] : [`t${i - 1}`] }));
}

/** One root and n - 1 leaves that all depend on it. */
export function fanOut(n: number): DependencyNode[] {
  return Array.from({ length: n }, (_, i) => ({ id: `t${i}`, deps: i === 0 ? [] : ['t0'] }));
}

export const key = (c: Candidate): string => `${c.runId}:${c.taskId}`;
