import { taskBranch } from '../../protocol/branch.js';

/**
 * The branch a task's worker works against when it is stacked: its stack parent's branch while
 * that one has not merged (the dispatch creates its branch from that PR's head, and the
 * assignment's `base` names it); null when the task works against the run's base.
 */
export function stackedBase(
  run: { issueNumber: number },
  task: { stackParent: string | null; unmetDeps: number },
): string | null {
  return task.stackParent !== null && task.unmetDeps > 0
    ? taskBranch(run.issueNumber, task.stackParent)
    : null;
}

/**
 * The stack parent's PR a task's attempt is dispatched on, when it is stacked (`stackedBase`).
 * The attempt keeps it: the parent may merge while its worker runs, and a squash or rebase
 * merge leaves the parent's commits, which the attempt may have started from, off the base.
 */
export function stackedPull(task: {
  stackParent: string | null;
  stackParentPr: number | null;
  unmetDeps: number;
}): number | null {
  return task.stackParent !== null && task.unmetDeps > 0 ? task.stackParentPr : null;
}
