import type { DependencyIndex } from '../../src/core/scheduler/index.js';

// The baseline's incremental readiness: an unmet-dep count per task, decremented per merge. The
// server keeps the same count in Postgres (tasks.unmet_deps, decremented by the merge's write).

function unmetCount(graph: DependencyIndex, id: string, merged: ReadonlySet<string>): number {
  let unmet = 0;
  for (const dep of graph.depsOf(id)) if (!merged.has(dep)) unmet++;
  return unmet;
}

/** Unmet-dep count of every task not yet merged; merged tasks are left out. */
export function initialUnmetCounts(
  graph: DependencyIndex,
  merged: ReadonlySet<string> = new Set(),
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const id of graph.ids()) if (!merged.has(id)) counts.set(id, unmetCount(graph, id, merged));
  return counts;
}

/**
 * Records that `id` merged: drops it from `unmet`, decrements its dependents and returns
 * those that just reached zero (newly ready). O(dependents). Call once per merge: the
 * counts cannot tell a duplicate webhook from a second merge, so callers deduplicate.
 */
export function onMerged(graph: DependencyIndex, id: string, unmet: Map<string, number>): string[] {
  unmet.delete(id);
  const ready: string[] = [];
  for (const dependent of graph.dependentsOf(id)) {
    const count = unmet.get(dependent);
    if (count === undefined || count === 0) continue;
    unmet.set(dependent, count - 1);
    if (count === 1) ready.push(dependent);
  }
  return ready;
}
