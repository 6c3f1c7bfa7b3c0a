import type { MergePull, MergeTask } from './types.js';

export type ApprovalState =
  | { kind: 'approved' }
  | { kind: 'not_approved' }
  | { kind: 'stale'; approvedSha: string; headSha: string };

/**
 * docs/lifecycle.md: an approval holds for the head it was given on, and for no other. The
 * coordinator's own update of a behind branch moves the approval to the update's head, but only
 * once that push is seen (`approvalAfterPush`): until then the PR waits (`update_pending`),
 * because the head GitHub shows may be someone else's push that arrived first.
 */
export function approvalOf(task: MergeTask, pull: MergePull): ApprovalState {
  const approved = task.approvedSha;
  if (approved === undefined || approved === '') return { kind: 'not_approved' };
  if (approved === pull.headSha) return { kind: 'approved' };
  return { kind: 'stale', approvedSha: approved, headSha: pull.headSha };
}

/** A push to an agent PR's branch, with what the coordinator knows of its own update. */
export interface BranchPush {
  before: string;
  after: string;
  /** The head the coordinator asked GitHub to update from, if it did (`updatedByCoordinatorFrom`). */
  updateFrom: string | null;
  approvedSha: string | null;
}

export interface PushVerdict {
  /** New work reached the PR: not the coordinator's own update of the branch. */
  work: boolean;
  /** The approval after this push, when it changes: the update's head inherits it. */
  approvedSha?: string;
  /** Whether the record of the coordinator's update is spent (new work replaced its head). */
  clearUpdate: boolean;
}

/**
 * docs/lifecycle.md step 8: the coordinator's update of a behind branch (a push whose `before`
 * is the head it updated from) keeps the approval; any other push is new work that needs
 * approval again, and ends the update's claim on the base branch's slot.
 */
export function decidePush(push: BranchPush): PushVerdict {
  const ours = push.updateFrom !== null && push.before === push.updateFrom;
  if (!ours) return { work: true, clearUpdate: push.updateFrom !== null };
  if (push.approvedSha === push.updateFrom && push.after !== push.approvedSha)
    return { work: false, approvedSha: push.after, clearUpdate: false };
  return { work: false, clearUpdate: false };
}

export function shortSha(sha: string): string {
  return sha.slice(0, 7);
}
