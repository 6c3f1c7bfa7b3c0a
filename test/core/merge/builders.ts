import type {
  MergeCheck,
  MergePull,
  MergeSnapshot,
  MergeTask,
} from '../../../src/core/merge/index.js';

export const HEAD = 'def5678aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
export const OLD = 'abc1234bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

/** An in-review task approved for HEAD: ready to merge unless a row says otherwise. */
export function task(overrides: Partial<MergeTask> = {}): MergeTask {
  return {
    taskId: 'task_001',
    deps: [],
    state: 'in_review',
    held: false,
    approvedSha: HEAD,
    ...overrides,
  };
}

/** A clean, green, open PR on main at HEAD. */
export function pr(overrides: Partial<MergePull> = {}): MergePull {
  return {
    taskId: 'task_001',
    number: 1,
    headSha: HEAD,
    baseRef: 'main',
    mergeableState: 'clean',
    mergeable: true,
    draft: false,
    checks: [],
    inMergeQueue: false,
    ...overrides,
  };
}

export function check(overrides: Partial<MergeCheck> = {}): MergeCheck {
  return { name: 'ci/test', status: 'completed', conclusion: 'success', ...overrides };
}

export function snapshot(overrides: Partial<MergeSnapshot> = {}): MergeSnapshot {
  return {
    tasks: [task()],
    pulls: [pr()],
    runBase: 'main',
    runHeld: false,
    requireApproval: true,
    mergeQueue: false,
    mergeMethod: 'squash',
    ...overrides,
  };
}

/**
 * The four tasks of docs/tasks-block.md with their PRs #11..#14, every PR clean and approved; `states`
 * overrides task states. Merged tasks have no open PR.
 */
export function specRun(
  states: Partial<Record<string, MergeTask['state']>> = {},
  overrides: Partial<MergeSnapshot> = {},
): MergeSnapshot {
  const plan: Array<[string, string[], number]> = [
    ['task_001', [], 11],
    ['task_002', ['task_001'], 12],
    ['task_003', ['task_001'], 13],
    ['task_004', ['task_002', 'task_003'], 14],
  ];
  const tasks = plan.map(([taskId, deps, number]) =>
    task({ taskId, deps, state: states[taskId] ?? 'in_review', prNumber: number }),
  );
  const pulls = plan
    .filter(([taskId]) => states[taskId] !== 'merged')
    .map(([taskId, , number]) => pr({ taskId, number }));
  return snapshot({ tasks, pulls, ...overrides });
}
