import { dependencyLevels } from './dependency-order.js';
import {
  evaluatePull,
  needsGitHubView,
  type EvaluationContext,
  type StopContext,
} from './evaluate-pull.js';
import { allocateSlots, directMergeClaimed, type PoolEntry } from './merge-pool.js';
import type { MergeDecision, MergePull, MergeSnapshot, MergeTask } from './types.js';

/**
 * The merge sequencer (docs/lifecycle.md): exactly one decision per open PR of the run, in dependency
 * order then PR number, each `wait` with the reason it is not moving. Pure: state is derived from
 * the snapshot every time (the webhook handler and the sweep call the same thing), so acting on
 * a decision and calling again converges. A PR whose deps are not all merged never gets a
 * merge, enqueue or update_branch.
 */
export function decideMerges(snapshot: MergeSnapshot): MergeDecision[] {
  const pulls = orderPulls(snapshot, snapshot.pulls);
  const ctx: EvaluationContext = {
    ...stopContext(snapshot),
    snapshot,
    inFlight: new Set(snapshot.inFlightPrs ?? []),
  };
  const { tasksById, inFlight } = ctx;

  const entries: PoolEntry[] = pulls.map((pull) => ({
    pull,
    verdict: evaluatePull(ctx, pull),
    mergeInFlight: mergeInFlight(pull, tasksById.get(pull.taskId), inFlight),
  }));
  const slots = allocateSlots(snapshot, entries);

  return entries.map(({ pull, verdict }) => {
    if (verdict.kind === 'decided') return verdict.decision;
    const decision = slots.get(pull.number);
    // allocateSlots answers for every candidate; this only satisfies the type checker.
    if (!decision) throw new Error(`no merge slot decision for #${pull.number}`);
    return decision;
  });
}

/** A direct merge of this PR may be running: its task's merge claimed, or the PR listed in flight. */
function mergeInFlight(
  pull: MergePull,
  task: MergeTask | undefined,
  inFlight: ReadonlySet<number>,
): boolean {
  if (!pull.inMergeQueue && inFlight.has(pull.number)) return true;
  return task !== undefined && directMergeClaimed(task.state, pull.inMergeQueue);
}

/**
 * The PRs of `snapshot` (as the database knows them) whose merge decision needs GitHub's
 * current view of them; the others decide the same from the snapshot (see needsGitHubView).
 */
export function pullsNeedingGitHubView(
  snapshot: Pick<MergeSnapshot, 'tasks' | 'pulls' | 'runBase' | 'runHeld' | 'requireApproval'>,
): Set<number> {
  const ctx = stopContext(snapshot);
  return new Set(snapshot.pulls.filter((p) => needsGitHubView(ctx, p)).map((p) => p.number));
}

/**
 * The approvers (lower-cased logins) whose permission GitHub must be asked before deciding: of
 * PRs that are otherwise ready to merge or enter the queue, and not read yet (approverCheck). A
 * PR waiting for anything else asks nothing: a GitHub read per PR on every event would cost
 * O(PRs²) calls across a run.
 */
export function approversToRead(
  snapshot: Pick<
    MergeSnapshot,
    | 'tasks'
    | 'pulls'
    | 'runBase'
    | 'runHeld'
    | 'requireApproval'
    | 'mergeQueue'
    | 'approvers'
    | 'inFlightPrs'
  >,
): Set<string> {
  const ctx: EvaluationContext = {
    ...stopContext(snapshot),
    snapshot,
    inFlight: new Set(snapshot.inFlightPrs ?? []),
  };
  const logins = new Set<string>();
  for (const pull of snapshot.pulls) {
    const verdict = evaluatePull(ctx, pull);
    const login = ctx.tasksById.get(pull.taskId)?.approvedBy;
    if (
      login !== undefined &&
      verdict.kind === 'decided' &&
      verdict.decision.kind === 'wait' &&
      verdict.decision.reason === 'approver_unread'
    )
      logins.add(login.toLowerCase());
  }
  return logins;
}

function stopContext(
  snapshot: Pick<MergeSnapshot, 'tasks' | 'pulls' | 'runBase' | 'runHeld' | 'requireApproval'>,
): StopContext {
  const tasksById = new Map<string, MergeTask>();
  for (const task of snapshot.tasks) tasksById.set(task.taskId, task);
  const openPrByTask = new Map<string, number>();
  for (const pull of snapshot.pulls) {
    const own = openPrByTask.get(pull.taskId);
    if (own === undefined || pull.number < own) openPrByTask.set(pull.taskId, pull.number);
  }
  return { snapshot, tasksById, openPrByTask };
}

function orderPulls(snapshot: MergeSnapshot, pulls: readonly MergePull[]): MergePull[] {
  const levels = dependencyLevels(snapshot.tasks);
  // PRs of unknown tasks sort last: they never act.
  const levelOf = (pull: MergePull) => levels.get(pull.taskId) ?? Number.MAX_SAFE_INTEGER;
  // One decision per PR even if a listing repeated one.
  const unique = [...new Map(pulls.map((p) => [p.number, p] as const)).values()];
  return unique.sort((a, b) => levelOf(a) - levelOf(b) || a.number - b.number);
}
