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
 * The PR the group names when the store does not know it as queued: it is read on its own,
 * since the group can be handled before the coordinator's record of the enqueue that made it
 * (the sweep enqueues outside any delivery).
 */
export function mergeGroupPullToRead(
  queued: readonly { number: number }[],
  headRef: string,
): number | undefined {
  const last = mergeGroupLastPr(headRef);
  return last === undefined || queued.some((q) => q.number === last) ? undefined : last;
}

/**
 * The group's PRs in queue order: the queue up to and including the PR its ref names (GitHub
 * groups cumulatively). `named` is that PR when the store knows it only as an agent PR, not as
 * queued: it is judged as the queue's last entry, never waved through as someone else's PR.
 */
export function mergeGroupMembers(
  queued: readonly QueuedAgentPull[],
  headRef: string,
  named?: QueuedAgentPull,
): MergeGroupPull[] {
  const last = mergeGroupLastPr(headRef);
  const known =
    named && !queued.some((q) => q.number === named.number) ? [...queued, named] : queued;
  const cut = last === undefined ? -1 : known.findIndex((q) => q.number === last);
  const members: MergeGroupPull[] =
    cut >= 0 ? known.slice(0, cut + 1) : known.filter((q) => q.number === last);
  if (last !== undefined && !members.some((m) => m.number === last)) members.push({ number: last });
  return members;
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
