import { formatWaitReason } from '../scheduler/index.js';
import { AWAITING_MERGE_TASK_STATES } from '../states.js';
import { approvalOf, approverCheck, approverLostComment, shortSha } from './approval.js';
import { stackedOnText } from '../stack/index.js';
import { summarizeChecks } from './checks.js';
import { updateRefusedAtHead, updateRefusedDetail } from './classify-update-refusal.js';
import { unmergedDeps } from './dependency-order.js';
import { offRunBase } from './run-base.js';
import type {
  MergeDecision,
  MergePull,
  MergeSnapshot,
  MergeTask,
  WaitReasonKind,
} from './types.js';

export interface EvaluationContext {
  /** What a PR's own verdict reads; the base branch's slot (merge-pool.ts) reads the rest. */
  snapshot: Pick<
    MergeSnapshot,
    'runBase' | 'runHeld' | 'requireApproval' | 'mergeQueue' | 'approvers'
  >;
  tasksById: ReadonlyMap<string, MergeTask>;
  /** Each task's lowest-numbered open PR: the one that is the task's. */
  openPrByTask: ReadonlyMap<string, number>;
  inFlight: ReadonlySet<number>;
}

/** What deciding whether a PR may move at all takes: no GitHub view of it. */
export type StopContext = Pick<EvaluationContext, 'tasksById' | 'openPrByTask'> & {
  snapshot: Pick<MergeSnapshot, 'runBase' | 'runHeld' | 'requireApproval'>;
};

/**
 * What one PR would do on its own. `merge` and `update_branch` are only candidates: the base
 * branch's single slot (merge-pool.ts) decides which one goes.
 */
export type PullVerdict =
  | { kind: 'decided'; decision: MergeDecision }
  | { kind: 'candidate'; action: 'merge' | 'update_branch' };

// GitHub would merge these now: unstable only means a non-required check did not pass (ours
// are all green by then), has_hooks that pre-receive hooks run on merge.
const MERGEABLE_STATES: ReadonlySet<string> = new Set(['clean', 'unstable', 'has_hooks']);

type Stop = { reason: WaitReasonKind; detail: string };

export function evaluatePull(ctx: EvaluationContext, pull: MergePull): PullVerdict {
  const task = ctx.tasksById.get(pull.taskId);
  const stop = stopReason(ctx, pull, task);
  if (stop) {
    // A PR that must not land leaves GitHub's queue; out of the queue, not acting is enough.
    return decided(
      pull.inMergeQueue
        ? { kind: 'dequeue', pr: pull.number, taskId: pull.taskId, ...stop }
        : wait(pull, stop.reason, stop.detail),
    );
  }
  // `stopReason` returned nothing, so the task exists.
  return evaluateReady(ctx, pull, task as MergeTask);
}

/**
 * Whether the decision for `pull` depends on what only GitHub knows now (its head, checks,
 * mergeability). It does not when the PR stops for a reason the snapshot already shows, or
 * waits for an approval nobody has given: deciding from the stored copy of the PR comes out
 * the same, and asking GitHub for every PR on every event would cost O(PRs²) calls across a run.
 */
export function needsGitHubView(ctx: StopContext, pull: MergePull): boolean {
  const task = ctx.tasksById.get(pull.taskId);
  if (!task || stopReason(ctx, pull, task)) return false;
  // Any approval may be for the head GitHub shows now, which the stored copy may not know yet.
  return !ctx.snapshot.requireApproval || approvalOf(task, pull).kind !== 'not_approved';
}

/**
 * Reasons a person or the run's lifecycle keeps this PR from landing at all, whatever GitHub
 * says about it. These are the ones that also take a PR back out of the merge queue.
 */
function stopReason(
  ctx: StopContext,
  pull: MergePull,
  task: MergeTask | undefined,
): Stop | undefined {
  if (!task) return { reason: 'task_state', detail: `no task ${pull.taskId} in this run` };
  const own = ctx.openPrByTask.get(task.taskId);
  if (own !== undefined && own !== pull.number) {
    return { reason: 'task_state', detail: `${task.taskId} already has #${own}` };
  }
  if (task.state === 'vetoed' || task.vetoReason !== undefined) {
    const why = task.vetoReason?.trim();
    return { reason: 'vetoed', detail: why ? `vetoed: ${why}` : 'vetoed' };
  }
  if (!AWAITING_MERGE_TASK_STATES.has(task.state)) {
    return { reason: 'task_state', detail: `${task.taskId} is ${task.state}` };
  }
  if (task.held) {
    return { reason: 'held', detail: `held: /unhold on #${pull.number} resumes merging` };
  }
  if (ctx.snapshot.runHeld) {
    return { reason: 'run_held', detail: 'run held: /unhold on the issue resumes merging' };
  }
  const unmerged = unmergedDeps(task.deps, ctx.tasksById, ctx.openPrByTask);
  if (unmerged.length > 0) {
    return { reason: 'deps_unmerged', detail: formatWaitReason({ kind: 'deps', unmerged }) };
  }
  // docs/stacking.md: its parent merged, and its PR may still target the parent's branch until
  // the stack lets it go (retarget, unstack) right after this turn. Merged now, its change
  // would land on that branch, never on the base, and the task would count as merged.
  if (task.stackedOn) {
    return {
      reason: 'deps_unmerged',
      detail: `${stackedOnText(task.stackedOn)}, which merged: waiting to be retargeted`,
    };
  }
  const offBase = offRunBase(pull, ctx.snapshot.runBase);
  if (offBase) return { reason: 'off_base', detail: offBase };
  // Its approval was withdrawn while GitHub's queue held it (a dismissed review): left there,
  // the queue would land it on the merge group's checks alone, and a group checked before the
  // withdrawal may already have passed (docs/lifecycle.md "Reviews").
  if (
    pull.inMergeQueue &&
    ctx.snapshot.requireApproval &&
    approvalOf(task, pull).kind === 'not_approved'
  ) {
    return {
      reason: 'not_approved',
      detail: 'its approval was withdrawn: waiting for /approve or an approving review',
    };
  }
  return undefined;
}

function evaluateReady(ctx: EvaluationContext, pull: MergePull, task: MergeTask): PullVerdict {
  const { snapshot } = ctx;
  if (pull.inMergeQueue) return waitFor(pull, 'in_queue', 'in the merge queue');
  if (task.state === 'merging' || ctx.inFlight.has(pull.number)) {
    return waitFor(pull, 'merging', 'merge in flight');
  }
  if (pull.draft || pull.mergeableState === 'draft') {
    return waitFor(pull, 'draft', 'draft pull request: mark it ready for review');
  }

  const update = pendingUpdate(task, pull);
  if (update) return waitFor(pull, 'update_pending', update);

  if (snapshot.requireApproval) {
    const approval = approvalOf(task, pull);
    if (approval.kind === 'not_approved') {
      return waitFor(pull, 'not_approved', 'waiting for /approve or an approving review');
    }
    if (approval.kind === 'stale') {
      return waitFor(
        pull,
        'approval_stale',
        `approved ${shortSha(approval.approvedSha)} but head is ${shortSha(approval.headSha)}: ` +
          'new work pushed after approval needs approval again',
      );
    }
  }

  // Before checks: CI often never runs on a conflicted head, so its checks may stay pending.
  if (pull.mergeableState === 'dirty') {
    return sendBackOnce(
      pull,
      `The branch has conflicts with ${pull.baseRef}; merge ${pull.baseRef} into it and resolve them.`,
      'conflicts',
      `conflicts with ${pull.baseRef}`,
    );
  }

  const checks = summarizeChecks(pull.checks);
  // Wait for every check before sending back: the worker gets one try per head, so it should
  // hear about every failure at once.
  if (checks.pending.length > 0) {
    const failing = checks.failing.length > 0 ? `; failing: ${checks.failing.join(', ')}` : '';
    return waitFor(
      pull,
      'checks_pending',
      `checks pending: ${checks.pending.join(', ')}${failing}`,
    );
  }
  if (checks.failing.length > 0) {
    return sendBackOnce(
      pull,
      `Failing checks: ${checks.failing.join(', ')}`,
      'checks_failing',
      `checks failing: ${checks.failing.join(', ')}`,
      checks.failing,
    );
  }

  if (pull.mergeable === null || pull.mergeableState === 'unknown') {
    return waitFor(pull, 'mergeability_unknown', 'GitHub is still computing mergeability');
  }
  const state = pull.mergeableState;
  if (
    snapshot.mergeQueue &&
    (MERGEABLE_STATES.has(state) || state === 'behind' || state === 'blocked')
  ) {
    // The queue builds its own merge group on the latest base (so `behind` needs no update) and
    // enforces the branch's rules itself: a ruleset that requires the queue also reports ready
    // PRs as `blocked` for a direct merge. If GitHub refuses, classifyMergeError says why.
    return (
      approverStop(snapshot, pull, task) ??
      decided({
        kind: 'enqueue',
        pr: pull.number,
        taskId: pull.taskId,
        expectedHeadOid: pull.headSha,
      })
    );
  }
  if (MERGEABLE_STATES.has(state))
    return approverStop(snapshot, pull, task) ?? { kind: 'candidate', action: 'merge' };
  if (state === 'behind') {
    if (updateRefusedAtHead(pull))
      return waitFor(
        pull,
        'update_refused',
        updateRefusedDetail(pull.baseRef, pull.headSha, pull.updateRefusedMessage ?? ''),
      );
    return { kind: 'candidate', action: 'update_branch' };
  }
  if (state === 'blocked') {
    return waitFor(
      pull,
      'blocked_by_protection',
      'GitHub reports the PR blocked by branch protection (required reviews or checks)',
    );
  }
  return waitFor(pull, 'mergeability_unknown', `GitHub reports mergeable_state "${state}"`);
}

/**
 * The coordinator merged the base into `updatedByCoordinatorFrom`, and the push that update made
 * has not been handled yet: its webhook, which carries the approval over to the merge commit
 * (approval.ts), is still on its way. Asking again would make a second merge commit, or find
 * nothing to merge; deciding on the new head now would find it unapproved.
 */
function pendingUpdate(task: MergeTask, pull: MergePull): string | undefined {
  const from = pull.updatedByCoordinatorFrom;
  if (from === undefined) return undefined;
  if (pull.headSha === from || task.approvedSha === from) {
    return `updated with ${pull.baseRef}; waiting for the update's push to ${shortSha(from)}…`;
  }
  return undefined;
}

/**
 * Asked last, of a PR that would merge or enter the queue now (approverCheck): an approval whose
 * author no longer has write access is withdrawn and the PR told, and one whose author's
 * permission is not known yet holds it back. Before the base's slot is given out, so that a PR
 * stopped here leaves it to the next.
 */
function approverStop(
  snapshot: EvaluationContext['snapshot'],
  pull: MergePull,
  task: MergeTask,
): PullVerdict | undefined {
  const check = approverCheck(task, snapshot);
  switch (check.kind) {
    case 'counts':
      return undefined;
    case 'unread':
      return waitFor(
        pull,
        'approver_unread',
        `checking that ${check.login}, who approved, still has write access`,
      );
    case 'unknown':
      return waitFor(
        pull,
        'approver_unknown',
        `GitHub did not say whether ${check.login}, who approved, still has write access: asked again on the next event`,
      );
    case 'lost': {
      // Asked only with the approval of the head (approvalOf let the PR on before).
      const approvedSha = pull.headSha;
      return decided({
        kind: 'withdraw_approval',
        pr: pull.number,
        taskId: pull.taskId,
        approvedSha,
        approvedBy: check.login,
        comment: approverLostComment(approvedSha, check.login),
      });
    }
  }
}

/** One send-back per head: if the worker's fix did not move the head, a person has to look. */
function sendBackOnce(
  pull: MergePull,
  feedback: string,
  reason: WaitReasonKind,
  what: string,
  failingChecks?: string[],
): PullVerdict {
  if (pull.sentBackForSha === pull.headSha) {
    return waitFor(
      pull,
      reason,
      `${what} (already sent back to the worker for ${shortSha(pull.headSha)}; /retry to try again)`,
    );
  }
  return decided({
    kind: 'send_back_to_worker',
    pr: pull.number,
    taskId: pull.taskId,
    mode: 'fix',
    feedback,
    ...(failingChecks ? { failingChecks } : {}),
  });
}

export function wait(pull: MergePull, reason: WaitReasonKind, detail: string): MergeDecision {
  return { kind: 'wait', pr: pull.number, taskId: pull.taskId, reason, detail };
}

function waitFor(pull: MergePull, reason: WaitReasonKind, detail: string): PullVerdict {
  return decided(wait(pull, reason, detail));
}

function decided(decision: MergeDecision): PullVerdict {
  return { kind: 'decided', decision };
}
