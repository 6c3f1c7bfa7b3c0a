import { PATH_HOLDING_TASK_STATES, type TaskState } from '../states.js';
import type { StepBudget } from '../glob.js';
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
  /**
   * The steps matching and comparing took (`StepBudget`): at most MATCH_STEPS + COMPARE_STEPS,
   * and a step's worth more where the last step ran past them.
   */
  steps: number;
}

/**
 * The steps (`StepBudget`) one decision may spend matching the tasks' globs against the trees,
 * and one task's claim at most of them; then comparing the claims (docs/lifecycle.md,
 * "Overlapping files"). An agent writes the plan's `files:` (up to MAX_GLOBS globs of
 * MAX_GLOB_CHARS each per task) and a tree may list 100,000 files: unbounded, one decision took
 * seconds per task claiming such globs. A step takes 5 to 10 ns (glob.ts, UNCACHED_STEP_WEIGHT),
 * so a decision at most about 0.1 s. Claims are kept on their tree (`RepoTree`): the steps go to
 * the claims not yet worked out on that head.
 */
export const MATCH_STEPS = 8_000_000;
const CLAIM_MATCH_STEPS = 4_000_000;
export const COMPARE_STEPS = 4_000_000;

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
  const matching: Matching = { left: MATCH_STEPS, spent: 0 };
  claimants.forEach((c, order) => {
    const claim = claimOf(c, trees.get(c.base), matching);
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
  const comparing: StepBudget = { left: COMPARE_STEPS };
  const steps = () => matching.spent + COMPARE_STEPS - comparing.left;
  const out: OverlapWaits = { blocked: [], reasons: new Map(), steps: 0 };
  if (candidates.length === 0) return { ...out, steps: steps() };
  const decision = selectDispatches({
    now,
    candidates,
    repoInflight: 0,
    repoLimit: Number.POSITIVE_INFINITY,
    globalInflight: 0,
    globalLimit: Number.POSITIVE_INFINITY,
    heldRuns: new Set(),
    budgetExhaustedRuns: new Set(),
    overlap: { holders, paths, budget: comparing },
  });
  for (const { candidate, reason } of decision.waiting) {
    if (reason.kind !== 'overlap') continue;
    const claimant = byKey.get(candidateKey(candidate.runId, candidate.taskId))!;
    out.blocked.push(claimant.id);
    let run = out.reasons.get(claimant.runId);
    if (!run) out.reasons.set(claimant.runId, (run = new Map()));
    run.set(claimant.taskKey, reason);
  }
  return { ...out, steps: steps() };
}

/** The steps a decision may still give its claims, and those they took. */
interface Matching extends StepBudget {
  spent: number;
}

/**
 * A claimant's claim: the one kept on its tree, or worked out within the decision's `matching`
 * steps and at most CLAIM_MATCH_STEPS of them. A claim is kept unless the decision's steps cut it
 * short (its own bound is a fact of the task and the tree; the decision's, of what came before).
 */
function claimOf(
  c: PathClaimant,
  tree: RepoTree | undefined,
  matching: Matching,
): TaskPaths | undefined {
  const source = { base: c.base, files: c.files, changedFiles: c.changedFiles };
  if (c.changedFiles || !c.files || !tree || tree.truncated) return taskPaths(source, tree);
  const kept = tree.claimOf(c.id);
  if (kept) return kept;
  const allowed = Math.min(CLAIM_MATCH_STEPS, matching.left);
  const own: StepBudget = { left: allowed };
  const claim = taskPaths(source, tree, own)!;
  const spent = allowed - own.left;
  matching.spent += spent;
  // The one step a claim may take past its bound is not taken from the next claim's, so a claim
  // that starts with its whole bound is always kept.
  matching.left -= Math.min(spent, allowed);
  if (!claim.cut || allowed === CLAIM_MATCH_STEPS) tree.keep(c.id, claim);
  return claim;
}

/** Whether a pass needs the trees at all: some ready task claims paths. */
export function overlapMayWait(claimants: readonly Pick<PathClaimant, 'ready'>[]): boolean {
  return claimants.some((c) => c.ready) && claimants.length > 1;
}
