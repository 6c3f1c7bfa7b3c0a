import { PATH_HOLDING_TASK_STATES, type TaskState } from '../states.js';
import { taskPaths, type RepoTree, type TaskPaths } from './overlap.js';
import { selectDispatches } from './select-dispatches.js';
import { candidateKey, type Candidate, type PathHolder, type WaitReason } from './types.js';

/** A task of the repository that declares files or has its PR's files, not merged or ended. */
export interface PathClaimant {
  id: number;
  runId: number;
  taskKey: string;
  state: TaskState;
  prNumber: number | null;
  /** Pending, deps merged, no backoff, run running: the claim's ready set. */
  ready: boolean;
  files: readonly string[] | null;
  changedFiles: readonly string[] | null;
  /** Its run's base branch. */
  base: string;
  /** The dependency it may start stacked on (`dispatch.stack`), when permitted. */
  stackParent?: string | null;
}

export interface OverlapWaits {
  /** Task ids (database) the claim must leave out this pass. */
  blocked: number[];
  /** The same, by run id then task key, with the reason for the status comment. */
  reasons: Map<number, Map<string, WaitReason>>;
}

/**
 * Which ready tasks wait on an overlap (docs/lifecycle.md, "Overlapping files"). `claimants` come
 * in the claim's order (priority, oldest run, plan order); `trees` holds each base branch's tree
 * at its head (absent: not read, literal prefixes decide). Holders are the tasks in
 * PATH_HOLDING_TASK_STATES and pending tasks with a PR that are not ready (a retry waiting out
 * its backoff); ready tasks go through `selectDispatches` without limits, so the set does not
 * depend on the slots free.
 */
export function decideOverlapWaits(
  claimants: readonly PathClaimant[],
  trees: ReadonlyMap<string, RepoTree | undefined>,
  now: number,
): OverlapWaits {
  const holders: PathHolder[] = [];
  const paths = new Map<string, TaskPaths>();
  const candidates: Candidate[] = [];
  const byKey = new Map<string, PathClaimant>();
  claimants.forEach((c, order) => {
    const claim = taskPaths(
      { base: c.base, files: c.files, changedFiles: c.changedFiles },
      trees.get(c.base),
    );
    if (!claim) return;
    const runId = String(c.runId);
    if (c.ready) {
      const key = candidateKey(runId, c.taskKey);
      paths.set(key, claim);
      byKey.set(key, c);
      // Ties are broken by the claimants' order, which is the claim's.
      candidates.push({
        runId,
        taskId: c.taskKey,
        priority: 0,
        order,
        ...(c.stackParent ? { stackParent: c.stackParent } : {}),
      });
    } else if (
      PATH_HOLDING_TASK_STATES.has(c.state) ||
      (c.state === 'pending' && c.prNumber !== null)
    ) {
      holders.push({ runId, taskId: c.taskKey, paths: claim });
    }
  });
  const out: OverlapWaits = { blocked: [], reasons: new Map() };
  if (candidates.length === 0) return out;
  const decision = selectDispatches({
    now,
    candidates,
    repoInflight: 0,
    repoLimit: Number.POSITIVE_INFINITY,
    globalInflight: 0,
    globalLimit: Number.POSITIVE_INFINITY,
    heldRuns: new Set(),
    budgetExhaustedRuns: new Set(),
    overlap: { holders, paths },
  });
  for (const { candidate, reason } of decision.waiting) {
    if (reason.kind !== 'overlap') continue;
    const claimant = byKey.get(candidateKey(candidate.runId, candidate.taskId))!;
    out.blocked.push(claimant.id);
    let run = out.reasons.get(claimant.runId);
    if (!run) out.reasons.set(claimant.runId, (run = new Map()));
    run.set(claimant.taskKey, reason);
  }
  return out;
}

/** Whether a pass needs the trees at all: some ready task claims paths. */
export function overlapMayWait(claimants: readonly Pick<PathClaimant, 'ready'>[]): boolean {
  return claimants.some((c) => c.ready) && claimants.length > 1;
}
