import type { StepBudget } from '../glob.js';
import type { TaskPaths } from './overlap.js';

/** A pending task whose deps are all merged, as the dispatcher sees it. */
export interface Candidate {
  runId: string;
  taskId: string;
  /** 1 (lowest) .. 5 (highest). */
  priority: number;
  /** Creation sequence: lower is older. e.g. run created time * 1e6 + plan index. */
  order: number;
  /** Epoch ms before which a retry must not start. */
  backoffUntil?: number;
  /**
   * The dependency it starts stacked on (`dispatch.stack`, docs/stacking.md): building on that
   * task's files is the point, so their overlap never makes it wait.
   */
  stackParent?: string;
}

export type WaitReason =
  | {
      kind: 'concurrency';
      /** `installation`: its fair share of the global cap (fair-share.ts) while others wait. */
      scope: 'repository' | 'global' | 'installation';
      limit: number;
      /** Workers in flight for that scope once this decision's dispatches start. */
      inflight?: number;
    }
  | { kind: 'held' }
  | { kind: 'budget' }
  | { kind: 'backoff'; until: number }
  /**
   * Its paths overlap those of a task in flight (dispatched until merged or ended), or of a
   * candidate before it in dispatch order; `elsewhere` when that task is another run's.
   */
  | {
      kind: 'overlap';
      taskId: string;
      path: string;
      elsewhere?: boolean;
      /** The files were too many to match in one decision: literal prefixes decided (`Overlap`). */
      approximate?: true;
    };

/** A task holding its paths: from its dispatch until it is merged or ends (docs/lifecycle.md). */
export interface PathHolder {
  runId: string;
  taskId: string;
  paths: TaskPaths;
}

export interface OverlapInput {
  holders: readonly PathHolder[];
  /** Each candidate's claim by `candidateKey`; a candidate absent here claims nothing. */
  paths: ReadonlyMap<string, TaskPaths>;
  /** What comparing the claims may spend (`overlapPath`); unbounded without it. */
  budget?: StepBudget;
}

export interface UnmergedDep {
  taskId: string;
  prNumber?: number;
}

/** Why a task is not moving: unmerged deps, or one of the dispatcher's wait reasons. */
export type TaskExplanation = { kind: 'deps'; unmerged: UnmergedDep[] } | WaitReason;

export interface SchedulerInput {
  now: number;
  candidates: readonly Candidate[];
  repoInflight: number;
  /** concurrency.maxParallel for this repository. */
  repoLimit: number;
  globalInflight: number;
  /** COORDINATOR_MAX_PARALLEL across the process; Infinity when unset. */
  globalLimit: number;
  /** The repository's installation's share of the global cap, when others share it. */
  installation?: { room: number; running: number; ceiling: number };
  heldRuns: ReadonlySet<string>;
  budgetExhaustedRuns: ReadonlySet<string>;
  /** The tasks' declared or changed files; without it nothing waits on an overlap. */
  overlap?: OverlapInput;
}

export interface SchedulerDecision {
  dispatch: Candidate[];
  waiting: Array<{ candidate: Candidate; reason: WaitReason }>;
}

export function candidateKey(runId: string, taskId: string): string {
  return `${runId}:${taskId}`;
}

/** Dispatch order: priority desc, then oldest first; the key only makes ties deterministic. */
export function compareCandidates(a: Candidate, b: Candidate): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  if (a.order !== b.order) return a.order - b.order;
  const ka = candidateKey(a.runId, a.taskId);
  const kb = candidateKey(b.runId, b.taskId);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
