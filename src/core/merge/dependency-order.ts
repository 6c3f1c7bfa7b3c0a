import { DependencyIndex, type UnmergedDep } from '../scheduler/index.js';
import type { TaskState } from '../states.js';

interface GraphTask {
  taskId: string;
  deps: readonly string[];
}

/**
 * Depth of each task in its run's graph: 0 for tasks without (known) deps, else one more than
 * the deepest dep. Sorting by it puts every task after all of its deps. Kahn's algorithm, so a
 * cycle (plans are validated, but state may predate a fix) cannot loop: its tasks go last.
 */
export function dependencyLevels(tasks: readonly GraphTask[]): Map<string, number> {
  const index = new DependencyIndex(tasks.map((t) => ({ id: t.taskId, deps: t.deps })));
  const unmet = new Map<string, number>();
  const level = new Map<string, number>();
  let frontier: string[] = [];
  for (const id of index.ids()) {
    const known = index.depsOf(id).filter((dep) => index.has(dep)).length;
    unmet.set(id, known);
    if (known === 0) {
      level.set(id, 0);
      frontier.push(id);
    }
  }
  let depth = 0;
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const dependent of index.dependentsOf(id)) {
        const left = (unmet.get(dependent) ?? 0) - 1;
        unmet.set(dependent, left);
        if (left === 0) {
          level.set(dependent, depth + 1);
          next.push(dependent);
        }
      }
    }
    frontier = next;
    depth++;
  }
  for (const id of index.ids()) if (!level.has(id)) level.set(id, depth);
  return level;
}

interface DepState {
  state: TaskState;
  prNumber?: number;
}

/**
 * Deps of `deps` that are not merged, each once, in plan order, with the PR number when one is
 * known (open PRs first, then the task's own record). A dep missing from the run never merges.
 */
export function unmergedDeps(
  deps: readonly string[],
  byId: ReadonlyMap<string, DepState>,
  openPrByTask: ReadonlyMap<string, number>,
): UnmergedDep[] {
  const out: UnmergedDep[] = [];
  for (const depId of new Set(deps)) {
    const dep = byId.get(depId);
    if (dep?.state === 'merged') continue;
    const prNumber = openPrByTask.get(depId) ?? dep?.prNumber;
    out.push(prNumber === undefined ? { taskId: depId } : { taskId: depId, prNumber });
  }
  return out;
}
