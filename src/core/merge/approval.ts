import type { MergePull, MergeSnapshot, MergeTask } from './types.js';

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

export type ApproverCheck =
  | { kind: 'counts' }
  /** Its author's permission is not in the snapshot: read it (approversToRead), then decide. */
  | { kind: 'unread'; login: string }
  /** GitHub did not answer: nothing merges on it, and nothing is withdrawn. */
  | { kind: 'unknown'; login: string }
  /** Its author no longer has write access: it no longer counts. */
  | { kind: 'lost'; login: string };

/**
 * GitHub counts an approving review toward a branch's required reviews only from people with
 * write or admin permission in the repository, and it counts them when the PR is merged
 * ("Approving a pull request with required reviews", docs.github.com): a review whose author has
 * lost write access since no longer counts. Neither does an approval of the coordinator's
 * (docs/commands.md, "Approvals"): its author's permission is asked again of a PR that is
 * otherwise ready to merge or enter the queue. An approval recorded before the coordinator
 * recorded its author (`approvedBy` absent) counts as it did; with no approval required, none
 * is asked about.
 */
export function approverCheck(
  task: Pick<MergeTask, 'approvedBy'>,
  snapshot: Pick<MergeSnapshot, 'requireApproval' | 'approvers'>,
): ApproverCheck {
  const login = task.approvedBy;
  if (!snapshot.requireApproval || login === undefined) return { kind: 'counts' };
  const standing = snapshot.approvers?.get(login.toLowerCase());
  if (standing === undefined) return { kind: 'unread', login };
  if (standing === 'writer') return { kind: 'counts' };
  return { kind: standing === 'unknown' ? 'unknown' : 'lost', login };
}

/** Told once per approval: the approved commit and its author (a login cannot hold `-->`). */
function approverLostMarker(approvedSha: string, login: string): string {
  return `<!-- agent-coordinator:approver-lost-write sha=${approvedSha} by=${login.toLowerCase()} -->`;
}

/** The PR's reply when an approval's author no longer has write access. */
export function approverLostComment(
  approvedSha: string,
  login: string,
): { marker: string; body: string } {
  const marker = approverLostMarker(approvedSha, login);
  return {
    marker,
    body: [
      marker,
      `**agent-coordinator**: the approval of \`${shortSha(approvedSha)}\` by @${login} no longer counts: they no longer have write access to this repository, so this pull request was not merged.`,
      '',
      'Someone with write access needs to review it and approve it (`/approve` or an approving review) for it to merge.',
      '',
    ].join('\n'),
  };
}
