/**
 * GitHub's 422 to `PUT /pulls/{n}/update-branch` covers three different things: the head moved
 * since `expected_head_sha` (someone pushed, or an earlier update already landed), the branch
 * already has every commit of its base, and a real conflict. Only the last is work for the agent.
 * The message is not a contract, so the PR as GitHub shows it after the refusal decides, as
 * Mergify and the Jules SDK do (docs/lifecycle.md step 8).
 */
export type UpdateRefusal =
  | { kind: 'stale_head' }
  | { kind: 'up_to_date' }
  | { kind: 'conflict' }
  /** GitHub has not computed mergeability yet, or the PR is gone: the next event decides. */
  | { kind: 'unknown' };

export interface PullAfterRefusal {
  headSha: string;
  mergeable: boolean | null;
  mergeableState: string;
  open: boolean;
}

export function classifyUpdateRefusal(
  expectedHeadSha: string,
  current: PullAfterRefusal | null,
): UpdateRefusal {
  if (!current?.open) return { kind: 'unknown' };
  if (current.headSha !== expectedHeadSha) return { kind: 'stale_head' };
  if (current.mergeable === false || current.mergeableState === 'dirty')
    return { kind: 'conflict' };
  if (current.mergeable === null || current.mergeableState === 'unknown')
    return { kind: 'unknown' };
  if (current.mergeableState === 'behind') return { kind: 'unknown' };
  return { kind: 'up_to_date' };
}
