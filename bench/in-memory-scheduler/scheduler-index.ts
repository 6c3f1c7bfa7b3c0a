import { DEFAULT_PRIORITY } from '../../src/core/plan/types.js';
import {
  candidateKey,
  compareCandidates,
  DependencyIndex,
  type Candidate,
} from '../../src/core/scheduler/index.js';
import type { TaskState } from '../../src/core/states.js';
import { IndexedHeap } from './indexed-heap.js';
import { ReadyQueue } from './ready-queue.js';
import { initialUnmetCounts, onMerged } from './unmet-counts.js';

export interface SchedulerTask {
  id: string;
  deps: readonly string[];
  /** 1..5, default 3. */
  priority?: number;
  /** Only `pending` tasks (or tasks with no state given) are ever queued. */
  state?: TaskState;
  backoffUntil?: number;
}

export interface TakeOptions {
  /** When given, candidates whose `backoffUntil` is later than this stay queued. */
  now?: number;
  /** Runs passed over whole (held, budget reached): asked once per run per call, O(1) each. */
  skipRun?: (runId: string) => boolean;
  /** Any other per-candidate veto; vetoed candidates stay queued. */
  filter?: (candidate: Candidate) => boolean;
}

interface TaskMeta {
  priority: number;
  order: number;
  backoffUntil?: number;
}

interface RunEntry {
  runId: string;
  graph: DependencyIndex;
  /** Unmet-dep counts of tasks not merged. */
  unmet: Map<string, number>;
  merged: Set<string>;
  /** Tasks in state pending: queued when their count reaches 0. */
  pending: Set<string>;
  meta: Map<string, TaskMeta>;
  ready: ReadyQueue;
}

// Runs are ordered by their best ready candidate, so take() walks runs, not tasks, and a held
// run with thousands of ready tasks costs one comparison instead of thousands of pops.
function compareRuns(a: RunEntry, b: RunEntry): number {
  return compareCandidates(a.ready.peek() as Candidate, b.ready.peek() as Candidate);
}

/**
 * The benchmark's in-memory baseline, not the server's path (which is selectDispatches over the
 * claim query in src/store/attempts.ts): what scheduling costs with no database in the loop.
 * In-memory scheduling state for many runs: dependency graphs, unmet counts and ready queues.
 * No I/O and no clock; the database stays the source of truth and this is rebuilt from it.
 * A merge costs O(dependents · log n); take(k) costs O((k + skipped) · log n).
 */
export class SchedulerIndex {
  private readonly runs = new Map<string, RunEntry>();
  private readonly runHeap = new IndexedHeap<RunEntry>((r) => r.runId, compareRuns);

  /**
   * Loads (or replaces) a run. `order` of each task is `orderBase + its plan index`.
   * Returns the candidates that are ready right away, best first.
   */
  addRun(
    runId: string,
    tasks: readonly SchedulerTask[],
    mergedIds: Iterable<string> = [],
    orderBase = 0,
  ): Candidate[] {
    this.removeRun(runId);
    const merged = new Set(mergedIds);
    for (const task of tasks) if (task.state === 'merged') merged.add(task.id);
    const graph = new DependencyIndex(tasks);
    const run: RunEntry = {
      runId,
      graph,
      unmet: initialUnmetCounts(graph, merged),
      merged,
      pending: new Set(),
      meta: new Map(),
      ready: new ReadyQueue(),
    };
    tasks.forEach((task, index) => {
      run.meta.set(task.id, {
        priority: task.priority ?? DEFAULT_PRIORITY,
        order: orderBase + index,
        ...(task.backoffUntil === undefined ? {} : { backoffUntil: task.backoffUntil }),
      });
      if (!merged.has(task.id) && (task.state ?? 'pending') === 'pending') run.pending.add(task.id);
    });
    this.runs.set(runId, run);
    for (const id of run.pending) if (run.unmet.get(id) === 0) this.enqueue(run, id);
    this.sync(run);
    return this.readyOf(runId);
  }

  removeRun(runId: string): void {
    if (this.runs.delete(runId)) this.runHeap.remove(runId);
  }

  hasRun(runId: string): boolean {
    return this.runs.has(runId);
  }

  /** The task's PR merged. Returns the dependents that became ready, best first. */
  markMerged(runId: string, taskId: string): Candidate[] {
    const run = this.runs.get(runId);
    if (!run || run.merged.has(taskId) || !run.graph.has(taskId)) return [];
    run.merged.add(taskId);
    run.pending.delete(taskId);
    run.ready.remove(candidateKey(runId, taskId));
    const ready: Candidate[] = [];
    for (const id of onMerged(run.graph, taskId, run.unmet)) {
      if (!run.pending.has(id)) continue;
      const candidate = this.enqueue(run, id);
      if (candidate) ready.push(candidate);
    }
    this.sync(run);
    return ready.sort(compareCandidates);
  }

  /**
   * The task left `pending` (dispatched, blocked, cancelled, ...): it leaves the queue and is
   * not queued when its deps merge. Returns whether it was queued.
   */
  markDispatched(runId: string, taskId: string): boolean {
    const run = this.runs.get(runId);
    if (!run) return false;
    run.pending.delete(taskId);
    const removed = run.ready.remove(candidateKey(runId, taskId)) !== undefined;
    if (removed) this.sync(run);
    return removed;
  }

  /**
   * The task is `pending` again (a retry, an unblock, a failed dispatch call). Queued now if
   * its deps are merged (the returned candidate), otherwise once they are.
   */
  markPending(runId: string, taskId: string, backoffUntil?: number): Candidate | undefined {
    const run = this.runs.get(runId);
    const meta = run?.meta.get(taskId);
    if (!run || !meta || run.merged.has(taskId)) return undefined;
    if (backoffUntil === undefined) delete meta.backoffUntil;
    else meta.backoffUntil = backoffUntil;
    run.pending.add(taskId);
    if (run.unmet.get(taskId) !== 0) return undefined;
    const candidate = this.enqueue(run, taskId);
    this.sync(run);
    return candidate;
  }

  /**
   * Pops up to `limit` candidates, best first across all runs; they count as dispatched (call
   * markPending if the dispatch fails). Skipped runs and filtered candidates stay queued.
   */
  take(limit: number, options: TakeOptions = {}): Candidate[] {
    const { now, skipRun, filter } = options;
    const taken: Candidate[] = [];
    const skippedRuns: RunEntry[] = [];
    const setAside: Array<[RunEntry, Candidate]> = [];
    while (taken.length < limit) {
      const run = this.runHeap.peek();
      if (!run) break;
      if (skipRun?.(run.runId)) {
        this.runHeap.pop();
        skippedRuns.push(run);
        continue;
      }
      const candidate = run.ready.pop() as Candidate;
      const inBackoff =
        now !== undefined && candidate.backoffUntil !== undefined && candidate.backoffUntil > now;
      if (inBackoff || (filter && !filter(candidate))) {
        setAside.push([run, candidate]);
      } else {
        run.pending.delete(candidate.taskId);
        taken.push(candidate);
      }
      this.sync(run);
    }
    for (const [run, candidate] of setAside) {
      run.ready.push(candidate);
      this.sync(run);
    }
    for (const run of skippedRuns) this.runHeap.push(run);
    return taken;
  }

  /** Ready candidates of one run, best first. O(k log k). */
  readyOf(runId: string): Candidate[] {
    const run = this.runs.get(runId);
    return run ? [...run.ready.values()].sort(compareCandidates) : [];
  }

  get readyCount(): number {
    let n = 0;
    for (const run of this.runs.values()) n += run.ready.size;
    return n;
  }

  /** Tasks to block when this one fails, is vetoed or rejected. */
  transitiveDependents(runId: string, taskId: string): string[] {
    return this.runs.get(runId)?.graph.transitiveDependents(taskId) ?? [];
  }

  unmetCount(runId: string, taskId: string): number | undefined {
    return this.runs.get(runId)?.unmet.get(taskId);
  }

  private enqueue(run: RunEntry, taskId: string): Candidate | undefined {
    const meta = run.meta.get(taskId);
    if (!meta) return undefined;
    const candidate: Candidate = {
      runId: run.runId,
      taskId,
      priority: meta.priority,
      order: meta.order,
      ...(meta.backoffUntil === undefined ? {} : { backoffUntil: meta.backoffUntil }),
    };
    run.ready.push(candidate);
    return candidate;
  }

  // Keeps the run heap in step after the run's queue changed at the top (or emptied).
  private sync(run: RunEntry): void {
    if (run.ready.size === 0) this.runHeap.remove(run.runId);
    else this.runHeap.push(run);
  }
}
