export interface DependencyNode {
  id: string;
  deps: readonly string[];
}

const NONE: readonly string[] = Object.freeze([]);

/**
 * Forward and reverse edges of one run's task graph, built once in O(tasks + deps) so that a
 * merge only touches the merged task's direct dependents. Plans are validated before they get
 * here (docs/lifecycle.md); a dep on an unknown id simply never becomes met.
 */
export class DependencyIndex {
  private readonly depsById = new Map<string, readonly string[]>();
  private readonly dependentsById = new Map<string, string[]>();

  constructor(tasks: readonly DependencyNode[]) {
    for (const task of tasks) {
      // Deduplicate so that one merge is one decrement: `deps: [a, a]` must not need two.
      const deps = [...new Set(task.deps)];
      this.depsById.set(task.id, deps);
      for (const dep of deps) {
        const dependents = this.dependentsById.get(dep);
        if (dependents) dependents.push(task.id);
        else this.dependentsById.set(dep, [task.id]);
      }
    }
  }

  get size(): number {
    return this.depsById.size;
  }

  has(id: string): boolean {
    return this.depsById.has(id);
  }

  ids(): IterableIterator<string> {
    return this.depsById.keys();
  }

  depsOf(id: string): readonly string[] {
    return this.depsById.get(id) ?? NONE;
  }

  dependentsOf(id: string): readonly string[] {
    return this.dependentsById.get(id) ?? NONE;
  }

  unmetCount(id: string, merged: ReadonlySet<string>): number {
    let unmet = 0;
    for (const dep of this.depsOf(id)) if (!merged.has(dep)) unmet++;
    return unmet;
  }

  /** Unmet-dep count of every task not yet merged; merged tasks are left out. */
  initialUnmetCounts(merged: ReadonlySet<string> = new Set()): Map<string, number> {
    const counts = new Map<string, number>();
    for (const id of this.depsById.keys()) {
      if (!merged.has(id)) counts.set(id, this.unmetCount(id, merged));
    }
    return counts;
  }

  /**
   * Everything downstream of `id` (not `id` itself), nearest first: the tasks to block when
   * `id` fails, is vetoed or rejected. Iterative so a 30,000-long chain cannot blow the stack.
   */
  transitiveDependents(id: string): string[] {
    const seen = new Set<string>([id]);
    const out: string[] = [];
    for (let i = -1; i < out.length; i++) {
      const from = i < 0 ? id : (out[i] as string);
      for (const dependent of this.dependentsOf(from)) {
        if (seen.has(dependent)) continue;
        seen.add(dependent);
        out.push(dependent);
      }
    }
    return out;
  }

  /**
   * Records that `id` merged: drops it from `unmet`, decrements its dependents and returns
   * those that just reached zero (newly ready). O(dependents). Call once per merge: the
   * counts cannot tell a duplicate webhook from a second merge, so callers deduplicate.
   */
  onMerged(id: string, unmet: Map<string, number>): string[] {
    unmet.delete(id);
    const ready: string[] = [];
    for (const dependent of this.dependentsOf(id)) {
      const count = unmet.get(dependent);
      if (count === undefined || count === 0) continue;
      unmet.set(dependent, count - 1);
      if (count === 1) ready.push(dependent);
    }
    return ready;
  }
}
