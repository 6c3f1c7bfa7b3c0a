import type { MergePull, MergeTask } from './types.js';

export type ApprovalState =
  | { kind: 'approved' }
  | { kind: 'not_approved' }
  | { kind: 'stale'; approvedSha: string; headSha: string };

/**
 * docs/lifecycle.md: an approval holds for the head it was given on. New work pushed by a worker needs
 * approval again; the coordinator's own update of a behind branch carries the approval over.
 */
export function approvalOf(task: MergeTask, pull: MergePull): ApprovalState {
  const approved = task.approvedSha;
  if (approved === undefined || approved === '') return { kind: 'not_approved' };
  if (approved === pull.headSha) return { kind: 'approved' };
  if (pull.updatedByCoordinatorFrom === approved) return { kind: 'approved' };
  return { kind: 'stale', approvedSha: approved, headSha: pull.headSha };
}

export function shortSha(sha: string): string {
  return sha.slice(0, 7);
}
