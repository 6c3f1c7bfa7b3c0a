import { DependencyIndex } from '../scheduler/index.js';
import type { TaskState } from '../states.js';

/** A run's tasks and their deps by key, as the store's `graphOf` reads them. */
export interface TaskGraph {
  tasks: readonly { taskKey: string; state: TaskState }[];
  deps: ReadonlyMap<string, readonly string[]>;
}

// A dep in one of these never merges until a person acts on it (/retry), so its dependents stay
// blocked (docs/lifecycle.md).
const DEAD: ReadonlySet<TaskState> = new Set<TaskState>([
  'failed',
  'vetoed',
  'rejected',
  'cancelled',
]);

function stateOf(graph: TaskGraph): Map<string, TaskState> {
  return new Map(graph.tasks.map((t) => [t.taskKey, t.state]));
}

function dependencyIndex(graph: TaskGraph): DependencyIndex {
  return new DependencyIndex(
    graph.tasks.map((t) => ({ id: t.taskKey, deps: graph.deps.get(t.taskKey) ?? [] })),
  );
}

/**
 * `taskKey` will never merge (failed, vetoed, rejected, cancelled): every pending task downstream
 * of it becomes `blocked`. Tasks already running or in review finish as they are.
 */
export function dependentsToBlock(graph: TaskGraph, taskKey: string): string[] {
  const state = stateOf(graph);
  return dependencyIndex(graph)
    .transitiveDependents(taskKey)
    .filter((key) => state.get(key) === 'pending');
}

/**
 * `taskKey` is retried: the tasks downstream of it that are blocked become pending again, unless
 * another of their own deps still never merges.
 */
export function dependentsToUnblock(graph: TaskGraph, taskKey: string): string[] {
  const state = stateOf(graph);
  return dependencyIndex(graph)
    .transitiveDependents(taskKey)
    .filter((key) => {
      if (state.get(key) !== 'blocked') return false;
      const deps = graph.deps.get(key) ?? [];
      return !deps.some((d) => d !== taskKey && DEAD.has(state.get(d) ?? 'pending'));
    });
}
