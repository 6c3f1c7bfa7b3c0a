import type { StatusTaskView, StatusView } from '../../../src/core/status/index.js';

export function taskView(overrides: Partial<StatusTaskView> = {}): StatusTaskView {
  return { id: 'task_001', title: 'A task', deps: [], state: 'pending', attempts: 0, ...overrides };
}

export function statusView(overrides: Partial<StatusView> = {}): StatusView {
  return {
    runState: 'running',
    issueNumber: 7,
    tasks: [],
    spentUsd: 0,
    budgetUsd: 20,
    updatedAt: '2025-03-01T12:00:00Z',
    ...overrides,
  };
}

/** docs/tasks-block.md, mid-run: task_001 merged, task_002 running, task_003 in review, task_004 waiting. */
export const SPEC_VIEW_TASKS: StatusTaskView[] = [
  taskView({
    id: 'task_001',
    title: 'Define the login API signature',
    state: 'merged',
    attempts: 1,
    prNumber: 12,
    costUsd: 0.42,
  }),
  taskView({
    id: 'task_002',
    title: 'Implement login',
    deps: ['task_001'],
    state: 'running',
    attempts: 2,
    costUsd: 0.81,
  }),
  taskView({
    id: 'task_003',
    title: 'Unit tests for login',
    deps: ['task_001'],
    state: 'in_review',
    attempts: 1,
    prNumber: 14,
  }),
  taskView({
    id: 'task_004',
    title: 'Integration test',
    deps: ['task_002', 'task_003'],
    waiting: 'waiting for task_002, task_003 (#14)',
  }),
];

export const MARKER_PREFIX = '<!-- agent-coordinator:';

export function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}
