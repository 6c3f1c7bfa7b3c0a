export interface DependencyNode {
  id: string;
  deps: readonly string[];
}

const NONE: readonly string[] = Object.freeze([]);

/**
 * Forward and reverse edges of one run's task graph, built once in O(tasks + deps) so that
 * walking dependents (merge order, blocking what is downstream) never scans the whole graph.
 * Plans are validated before they get here (docs/lifecycle.md); a dep on an unknown id simply
 * never becomes met.
 */
export class DependencyIndex {
  private readonly depsById = new Map<string, readonly string[]>();
  private readonly dependentsById = new Map<string, string[]>();

  constructor(tasks: readonly DependencyNode[]) {
    for (const task of tasks) {
      // Deduplicate so that `deps: [a, a]` makes `b` one dependent of `a`, not two.
      const deps = [...new Set(task.deps)];
      this.depsById.set(task.id, deps);
      for (const dep of deps) {
        const dependents = this.dependentsById.get(dep);
        if (dependents) dependents.push(task.id);
        else this.dependentsById.set(dep, [task.id]);
      }
    }
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
}
