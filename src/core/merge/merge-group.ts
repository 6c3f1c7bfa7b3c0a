import { awaitsNoMerge } from '../lifecycle/facts.js';
import type { TaskState } from '../states.js';
import { approvalOf, approverCheck, shortSha } from './approval.js';
import type { ApproverStanding } from './types.js';

/** A PR of the merge group, in queue order. Non-agent PRs have no taskId. */
export interface MergeGroupPull {
  number: number;
  taskId?: string;
  runKey?: string;
  /**
   * The PR's head as GitHub shows it while the group is checked: the head the group took in (a
   * push to a queued PR takes it out of the queue). Undefined when it could not be read.
   */
  headSha?: string;
}

export interface MergeGroupTask {
  taskId: string;
  deps: readonly string[];
  state: TaskState;
  /** Names the dep's PR in the reason when it is not in the group. */
  prNumber?: number;
  /** The head that was approved (MergeTask.approvedSha). */
  approvedSha?: string;
  /** Who approved it (MergeTask.approvedBy); absent for approvals recorded before authors were. */
  approvedBy?: string;
}

export interface MergeGroupRun {
  tasks: readonly MergeGroupTask[];
  /** The run's merge.requireApproval. */
  requireApproval: boolean;
}

export type MergeGroupVerdict = { ok: true } | { ok: false; reason: string };

/** An approval in the group whose author GitHub says no longer has write access. */
export interface LostGroupApproval {
  number: number;
  taskId: string;
  runKey: string;
  approvedSha: string;
  approvedBy: string;
  state: TaskState;
}

/**
 * The `agent-coordinator/order` verdict on a merge group (`merge_group.checks_requested`,
 * docs/lifecycle.md): failure when the group would land an agent PR before one of its deps, i.e. a dep that
 * is neither merged nor earlier in the same group. A vetoed task must not land either, nor,
 * with merge.requireApproval, one whose approval is not for the head the group took in (anyone
 * with write access, or a workflow token, can enqueue a PR). An agent PR whose run or task is
 * unknown fails closed: ordering cannot be shown to hold. Non-agent PRs are not ours to judge.
 * Every problem is named, in queue order.
 */
export function checkMergeGroup(
  group: readonly MergeGroupPull[],
  runs: ReadonlyMap<string, MergeGroupRun>,
  /** The standing now of the group's approvers (mergeGroupApproversToRead), by lower-cased login. */
  approvers: ReadonlyMap<string, ApproverStanding> = new Map(),
): MergeGroupVerdict {
  const problems: string[] = [];
  // runKey → taskId → PR number, for the agent PRs seen so far in the group.
  const landed = new Map<string, Map<string, number>>();
  const later = laterPositions(group);
  const tasksOf = taskLookup(runs);

  for (const pull of group) {
    if (pull.taskId === undefined) continue;
    const who = `#${pull.number} (${pull.taskId})`;
    const tasks = pull.runKey === undefined ? undefined : tasksOf(pull.runKey);
    const task = tasks?.get(pull.taskId);
    if (!tasks || !task || pull.runKey === undefined) {
      problems.push(`${who} belongs to no known run task`);
      continue;
    }
    const before = landed.get(pull.runKey) ?? new Map<string, number>();
    // What the coordinator would not merge does not land, as the PR's own order check says
    // (order-check.ts): a vetoed task, or one that no longer awaits its merge (cancelled, failed,
    // sent back) in a group GitHub formed before the coordinator took its PR out of the queue.
    // A task merged meanwhile (an earlier group landed) is no problem.
    if (awaitsNoMerge(task.state)) problems.push(`${who} is ${task.state}`);
    const requireApproval = runs.get(pull.runKey)?.requireApproval === true;
    const unapproved = requireApproval && notApprovedAt(task, pull);
    if (unapproved) problems.push(`${who} ${unapproved}`);
    const approver = requireApproval && !unapproved && approverProblem(task, approvers);
    if (approver) problems.push(`${who} ${approver}`);
    for (const depId of new Set(task.deps)) {
      const dep = tasks.get(depId);
      if (dep?.state === 'merged' || before.has(depId)) continue;
      const pr = later.get(`${pull.runKey}\u0000${depId}`) ?? dep?.prNumber;
      problems.push(
        `${who} would land before its dependency ${depId}${pr === undefined ? '' : ` (#${pr})`}`,
      );
    }
    before.set(pull.taskId, pull.number);
    landed.set(pull.runKey, before);
  }
  return problems.length === 0 ? { ok: true } : { ok: false, reason: problems.join('; ') };
}

/** Why the task's approval does not cover the head the group took in, if it does not. */
function notApprovedAt(task: MergeGroupTask, pull: MergeGroupPull): string | undefined {
  if (pull.headSha === undefined) return 'has a head that could not be read';
  const approval = approvalOf(task, { headSha: pull.headSha });
  if (approval.kind === 'approved') return undefined;
  return approval.kind === 'stale'
    ? `is approved at ${shortSha(approval.approvedSha)}, not at its head ${shortSha(pull.headSha)}`
    : `is not approved (head ${shortSha(pull.headSha)})`;
}

/**
 * core/merge/approval.ts approverCheck, at the queue's last gate: GitHub counts an approval when
 * the PR merges, so one whose author lost write access since the PR was queued no longer counts.
 * A standing GitHub did not give fails the group too: the queue would land it otherwise.
 */
function approverProblem(
  task: MergeGroupTask,
  approvers: ReadonlyMap<string, ApproverStanding>,
): string | undefined {
  const check = approverCheck(task, { requireApproval: true, approvers });
  if (check.kind === 'counts') return undefined;
  return check.kind === 'lost'
    ? `is approved by @${check.login}, who no longer has write access`
    : `is approved by @${check.login}, whose write access could not be read`;
}

/**
 * The approvers whose permission GitHub must be asked before the group is judged: of agent PRs
 * approved at the head the group took in, in runs that require approval (lower-cased logins).
 */
export function mergeGroupApproversToRead(
  group: readonly MergeGroupPull[],
  runs: ReadonlyMap<string, MergeGroupRun>,
): Set<string> {
  const logins = new Set<string>();
  for (const { task } of approvedInGroup(group, runs)) {
    if (task.approvedBy !== undefined) logins.add(task.approvedBy.toLowerCase());
  }
  return logins;
}

/** The group's approvals whose authors GitHub says no longer have write access. */
export function lostGroupApprovals(
  group: readonly MergeGroupPull[],
  runs: ReadonlyMap<string, MergeGroupRun>,
  approvers: ReadonlyMap<string, ApproverStanding>,
): LostGroupApproval[] {
  const lost: LostGroupApproval[] = [];
  for (const { pull, task, runKey } of approvedInGroup(group, runs)) {
    const check = approverCheck(task, { requireApproval: true, approvers });
    if (check.kind !== 'lost') continue;
    lost.push({
      number: pull.number,
      taskId: task.taskId,
      runKey,
      approvedSha: task.approvedSha as string,
      approvedBy: check.login,
      state: task.state,
    });
  }
  return lost;
}

/** The group's agent PRs approved at the head the group took in, in runs that require it. */
function approvedInGroup(
  group: readonly MergeGroupPull[],
  runs: ReadonlyMap<string, MergeGroupRun>,
): { pull: MergeGroupPull; task: MergeGroupTask; runKey: string }[] {
  const tasksOf = taskLookup(runs);
  const out: { pull: MergeGroupPull; task: MergeGroupTask; runKey: string }[] = [];
  for (const pull of group) {
    if (pull.taskId === undefined || pull.runKey === undefined) continue;
    if (runs.get(pull.runKey)?.requireApproval !== true) continue;
    const task = tasksOf(pull.runKey)?.get(pull.taskId);
    if (task && notApprovedAt(task, pull) === undefined)
      out.push({ pull, task, runKey: pull.runKey });
  }
  return out;
}

/** Where each agent task's PR sits in the group, to name a dep that comes too late. */
function laterPositions(group: readonly MergeGroupPull[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const pull of group) {
    if (pull.taskId === undefined || pull.runKey === undefined) continue;
    const key = `${pull.runKey}\u0000${pull.taskId}`;
    if (!out.has(key)) out.set(key, pull.number);
  }
  return out;
}

/** Each run's tasks by id, built on first use: a group touches few runs. */
function taskLookup(
  runs: ReadonlyMap<string, MergeGroupRun>,
): (runKey: string) => ReadonlyMap<string, MergeGroupTask> | undefined {
  const cache = new Map<string, Map<string, MergeGroupTask>>();
  return (runKey) => {
    const cached = cache.get(runKey);
    if (cached) return cached;
    const run = runs.get(runKey);
    if (!run) return undefined;
    const byId = new Map(run.tasks.map((t) => [t.taskId, t] as const));
    cache.set(runKey, byId);
    return byId;
  };
}
