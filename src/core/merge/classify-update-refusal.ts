import { truncate } from '../status/escape.js';
import { shortSha } from './approval.js';

/** GitHub's refusal of `PUT /pulls/{n}/update-branch`: the statuses the route documents besides 202. */
export interface UpdateBranchRefusal {
  status: 403 | 422;
  /** GitHub's `message`, as it wrote it. */
  message: string;
}

/**
 * What a refused update-branch means (docs/lifecycle.md step 9, docs/stacking.md).
 *
 * A 403 is GitHub refusing the App the push the update would make: the merge changes a file
 * under `.github/workflows/` and the App has no `workflows` permission (chdsbd/kodiak#853), or
 * another permission it lacks. No agent can push it either (its token has no `workflows`
 * permission), so the PR waits for a person, at that head (`needs_person`).
 *
 * GitHub's 422 covers three different things: the head moved since `expected_head_sha` (someone
 * pushed, or an earlier update already landed), the branch already has every commit of its base,
 * and a real conflict. Only the last is work for the agent. The message is not a contract, so the
 * PR as GitHub shows it after the refusal decides, as Mergify and the Jules SDK do.
 */
export type UpdateRefusal =
  | { kind: 'needs_person'; message: string }
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

// GitHub's messages are short; a longer one is cut before it is stored and shown.
const MAX_REFUSAL_MESSAGE = 500;

export function classifyUpdateRefusal(
  refusal: UpdateBranchRefusal,
  expectedHeadSha: string,
  current: PullAfterRefusal | null,
): UpdateRefusal {
  if (refusal.status === 403) return { kind: 'needs_person', message: refusalText(refusal) };
  if (!current?.open) return { kind: 'unknown' };
  if (current.headSha !== expectedHeadSha) return { kind: 'stale_head' };
  if (current.mergeable === false || current.mergeableState === 'dirty')
    return { kind: 'conflict' };
  if (current.mergeable === null || current.mergeableState === 'unknown')
    return { kind: 'unknown' };
  if (current.mergeableState === 'behind') return { kind: 'unknown' };
  return { kind: 'up_to_date' };
}

/** Whether the PR must be read again to tell what the refusal means: a 403 says it already. */
export function refusalNeedsPull(refusal: UpdateBranchRefusal): boolean {
  return refusal.status === 422;
}

function refusalText(refusal: UpdateBranchRefusal): string {
  return truncate(refusal.message.trim() || `HTTP ${refusal.status}`, MAX_REFUSAL_MESSAGE);
}

/** A PR as the coordinator recorded GitHub's refusal to update it (`pull_requests.update_refused_*`). */
export interface RefusedUpdate {
  headSha: string;
  /** The head GitHub refused to update (a person's push moves the head, which ends the refusal). */
  updateRefusedSha?: string;
}

/**
 * GitHub refused to update the branch at the head it has now: asking again would be refused
 * again. The merge path waits instead of updating it, and a stacked child is not brought up to
 * date with its parent, until a person's push moves the head.
 */
export function updateRefusedAtHead(pull: RefusedUpdate): boolean {
  return pull.updateRefusedSha !== undefined && pull.updateRefusedSha === pull.headSha;
}

/** The merge path's wait for such a PR (evaluate-pull.ts). */
export function updateRefusedDetail(base: string, head: string, message: string): string {
  return `GitHub would not let the App bring the branch up to date with ${base} at ${shortSha(head)}: ${message}; merge ${base} into it`;
}
