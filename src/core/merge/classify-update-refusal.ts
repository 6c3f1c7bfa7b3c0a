import { truncate } from '../status/escape.js';
import { shortSha } from './approval.js';

/**
 * GitHub's answer to the coordinator's update of an agent PR's branch, `POST /repos/{o}/{r}/merges`
 * with the branch as `base` and what it is brought up to date with as `head` ("Merge a branch" in
 * GitHub's REST reference; GitHub Enterprise Server has it too): the statuses the route documents.
 */
export type BranchMergeAnswer =
  /** The merge commit GitHub made and pushed to the branch, and its parents (the branch's head first). */
  | { status: 201; sha: string; parents: string[] }
  /** The branch holds `head` already: nothing to merge. */
  | { status: 204 }
  | BranchMergeRefusal;

export interface BranchMergeRefusal {
  /** 403: a push the App may not make; 404: the branch or `head` is gone; 409: a conflict; 422: a request GitHub did not take. */
  status: 403 | 404 | 409 | 422;
  /** GitHub's `message`, as it wrote it. */
  message: string;
}

/** What GitHub's answer to the coordinator's update means, and what is recorded of it. */
export type UpdateAnswer =
  /** The update's merge commit: recorded, its push carries an approval of the head merged into. */
  | { kind: 'updated'; to: string }
  /** The branch holds what it was to be brought up to date with already (204). */
  | { kind: 'up_to_date' }
  /** A merge into a head someone pushed first: that push's work, nothing recorded; decide again. */
  | { kind: 'merged_other_head'; parents: readonly string[] }
  /** Refused: classifyUpdateRefusal says what it means. */
  | { kind: 'refused'; refusal: BranchMergeRefusal };

/**
 * docs/lifecycle.md step 9. A 201's merge is the update of `expectedHead` when its first parent is
 * that head. GitHub merges into the branch as it is when the call lands, with no guard on its
 * head: a push that landed first is the merge's first parent then, and the merge holds that push's
 * work, which no approval of `expectedHead` covers.
 */
export function decideUpdateAnswer(expectedHead: string, answer: BranchMergeAnswer): UpdateAnswer {
  if (answer.status === 204) return { kind: 'up_to_date' };
  if (answer.status !== 201) return { kind: 'refused', refusal: answer };
  const [first] = answer.parents;
  return answer.parents.length === 2 && first === expectedHead
    ? { kind: 'updated', to: answer.sha }
    : { kind: 'merged_other_head', parents: answer.parents };
}

/**
 * What a refused update means (docs/lifecycle.md step 9, docs/stacking.md).
 *
 * A 403 is GitHub refusing the App the push the merge would make: it changes a file under
 * `.github/workflows/` and the App has no `workflows` permission (chdsbd/kodiak#853), or another
 * permission it lacks. No agent can push it either (its token has no `workflows` permission), so
 * the PR waits for a person, at that head (`needs_person`).
 *
 * A 409 is a conflict between the branch as it is when the call lands and what it is brought up to
 * date with: only a conflict of the head the coordinator decided on is work for its agent; another
 * head came by a push meanwhile, and the PR as GitHub shows it after the refusal is decided again.
 * A 404 (the branch or the base's head gone) or a 422 leaves it to the next event.
 */
export type UpdateRefusal =
  | { kind: 'needs_person'; message: string }
  | { kind: 'stale_head' }
  | { kind: 'conflict' }
  /** The PR is gone, or GitHub did not take the request: the next event decides. */
  | { kind: 'unknown' };

export interface PullAfterRefusal {
  headSha: string;
  open: boolean;
}

// GitHub's messages are short; a longer one is cut before it is stored and shown.
const MAX_REFUSAL_MESSAGE = 500;

export function classifyUpdateRefusal(
  refusal: BranchMergeRefusal,
  expectedHeadSha: string,
  current: PullAfterRefusal | null,
): UpdateRefusal {
  if (refusal.status === 403) return { kind: 'needs_person', message: refusalText(refusal) };
  if (refusal.status !== 409 || !current?.open) return { kind: 'unknown' };
  if (current.headSha !== expectedHeadSha) return { kind: 'stale_head' };
  return { kind: 'conflict' };
}

/** Whether the PR must be read again to tell what the refusal means: only a conflict's head counts. */
export function refusalNeedsPull(refusal: BranchMergeRefusal): boolean {
  return refusal.status === 409;
}

function refusalText(refusal: BranchMergeRefusal): string {
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
