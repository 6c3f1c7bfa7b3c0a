import type { MergePull, MergeTask } from './types.js';

export type ApprovalState =
  | { kind: 'approved' }
  | { kind: 'not_approved' }
  | { kind: 'stale'; approvedSha: string; headSha: string };

/**
 * docs/lifecycle.md: an approval holds for the head it was given on, and for no other. The
 * coordinator's own update of a behind branch moves the approval to the update's head, but only
 * once that push is seen (`decidePush` in core/lifecycle/approval.ts): until then the PR waits (`update_pending`),
 * because the head GitHub shows may be someone else's push that arrived first.
 */
export function approvalOf(
  task: Pick<MergeTask, 'approvedSha'>,
  pull: Pick<MergePull, 'headSha'>,
): ApprovalState {
  const approved = task.approvedSha;
  if (approved === undefined || approved === '') return { kind: 'not_approved' };
  if (approved === pull.headSha) return { kind: 'approved' };
  return { kind: 'stale', approvedSha: approved, headSha: pull.headSha };
}

export function shortSha(sha: string): string {
  return sha.slice(0, 7);
}
