import { canMoveTask } from '../transitions.js';
import { approverLostComment } from './approval.js';
import {
  checkMergeGroup,
  lostGroupApprovals,
  type MergeGroupPull,
  type MergeGroupRun,
} from './merge-group.js';
import type { ApproverStanding } from './types.js';

/** An agent PR the store knows, as the merge group's judgement needs it. */
export interface QueuedAgentPull {
  number: number;
  taskId: string;
  runKey: string;
}

/** The PR a merge group's head ref names: `gh-readonly-queue/<base>/pr-<n>-<sha>`. */
export function mergeGroupLastPr(headRef: string): number | undefined {
  const found = /\/pr-(\d+)-/.exec(headRef)?.[1];
  return found === undefined ? undefined : Number(found);
}

/**
 * The PR numbers the group holds, in queue order: GitHub's queue (`queue`, read as the group is
 * judged) up to and including the PR its ref names, since GitHub groups cumulatively. Whoever
 * enqueued them: anyone with write access, or a workflow token, may add an agent PR once its order
 * check passes, and the coordinator does not know it is queued. A named PR that has left the
 * queue is judged last, after all of it: the safe side.
 */
export function mergeGroupNumbers(queue: readonly number[], headRef: string): number[] {
  const last = mergeGroupLastPr(headRef);
  const cut = last === undefined ? -1 : queue.indexOf(last);
  if (cut >= 0) return queue.slice(0, cut + 1);
  return last === undefined ? [...queue] : [...queue, last];
}

/** The group's PRs: each an agent PR the store knows (`agentPulls`), or someone else's. */
export function mergeGroupMembers(
  numbers: readonly number[],
  agentPulls: readonly QueuedAgentPull[],
): MergeGroupPull[] {
  return numbers.map((number) => agentPulls.find((p) => p.number === number) ?? { number });
}

export type MergeGroupEffect =
  /** The order check on the group's head, completed with this verdict. */
  | { kind: 'reportOrder'; conclusion: 'success' | 'failure'; title: string; summary: string }
  /**
   * An approval whose author lost write access while the PR was queued: the PR is told once (the
   * marker comment of approverLostComment), then the task's approval is withdrawn if it still
   * holds it: by `move` when the task is in review, as fields while it is `merging` (until the
   * queue lets the PR go).
   */
  | {
      kind: 'withdrawApproval';
      pr: number;
      runKey: string;
      taskId: string;
      approval: { sha: string; by: string };
      move?: 'approval withdrawn';
      comment: { marker: string; body: string };
    };

/**
 * `merge_group.checks_requested` (docs/lifecycle.md step 9): the order check says whether
 * every agent PR in the group lands after its dependencies, approved by someone who still has
 * write access (checkMergeGroup); an approval that no longer counts is withdrawn.
 */
export function decideMergeGroup(snapshot: {
  members: readonly MergeGroupPull[];
  runs: ReadonlyMap<string, MergeGroupRun>;
  /** The standing now of the group's approvers (mergeGroupApproversToRead). */
  approvers?: ReadonlyMap<string, ApproverStanding>;
}): MergeGroupEffect[] {
  const approvers = snapshot.approvers ?? new Map<string, ApproverStanding>();
  const verdict = checkMergeGroup(snapshot.members, snapshot.runs, approvers);
  const withdrawals: MergeGroupEffect[] = lostGroupApprovals(
    snapshot.members,
    snapshot.runs,
    approvers,
  ).map((lost) => ({
    kind: 'withdrawApproval',
    pr: lost.number,
    runKey: lost.runKey,
    taskId: lost.taskId,
    approval: { sha: lost.approvedSha, by: lost.approvedBy },
    ...(canMoveTask(lost.state, 'approval withdrawn')
      ? { move: 'approval withdrawn' as const }
      : {}),
    comment: approverLostComment(lost.approvedSha, lost.approvedBy),
  }));
  // Withdrawn before the failure is reported: GitHub's removal of the PR that follows must find
  // the approval gone (decideDequeued), or the PR would go back to its worker.
  return [
    ...withdrawals,
    verdict.ok
      ? {
          kind: 'reportOrder',
          conclusion: 'success',
          title: 'dependency order holds',
          summary: 'Every agent PR in this merge group lands after its dependencies.',
        }
      : {
          kind: 'reportOrder',
          conclusion: 'failure',
          title: 'out of dependency order',
          summary: verdict.reason,
        },
  ];
}
