import type { TaskState } from '../states.js';
import { nothing, type NoEffect } from '../no-effect.js';
import { decideApproval, type Approval } from './approval.js';
import { decideChangesRequested } from './changes-requested.js';

/** A `pull_request_review.submitted` delivery on a PR. */
export interface ReviewEvent {
  /** Lower case in webhooks: `approved`, `changes_requested`, `commented`, `dismissed`. */
  state: string;
  id: number;
  author: string;
  authorIsBot: boolean;
  /** The commit the review is of. */
  commitId: string;
}

/**
 * What deciding on a review needs read: an approval or a request for changes is about the PR's
 * task; other reviews, like plain comments, never start work and need nothing.
 */
export type ReviewReads = 'approval' | 'changes_requested' | 'nothing';

export function reviewReads(event: ReviewEvent): ReviewReads {
  const state = event.state.toLowerCase();
  if (state === 'changes_requested') return 'changes_requested';
  // An approval by a bot is no approval (docs/lifecycle.md step 8): nothing is read for it.
  return state === 'approved' && !event.authorIsBot ? 'approval' : 'nothing';
}

/** The agent PR's task as the store has it, with what GitHub says of the head and the author. */
export interface ReviewSnapshot {
  runFinished: boolean;
  task: { state: TaskState; approvedSha: string | null };
  /** The author holds write, maintain or admin on the repository (the commands' rule). */
  authorCanWrite: boolean;
  /** The PR's head as GitHub shows it now (or as last recorded, when not read). */
  currentHead: string;
  /**
   * The review's state as GitHub shows it now, read for an approval and a request for changes
   * (or as delivered, when not read); null when GitHub has no such review.
   */
  reviewState: string | null;
  /** This review sent the task back already (a redelivery). */
  reviewAlreadySentBack: boolean;
  /** The PR was handed to GitHub's merge queue and not seen leaving it (`enqueued_at` set). */
  enqueued: boolean;
}

/**
 * Carried out in order. `approve` and `sendBack` are guarded writes: when one does not take, the
 * effects after it are not carried out.
 */
export type ReviewEffect =
  | NoEffect
  /** Record the approval (decideApproval again on the task as it is, under a guarded write). */
  | { kind: 'approve'; approval: Approval }
  /**
   * Back to the worker in mode=fix with the review and the PR's unresolved threads, once per
   * review (claimed right before), within retries.max. `inMergeQueue`: the PR is in GitHub's merge
   * queue and stays recorded there, for the merge turn that follows to take it out.
   */
  | { kind: 'sendBack'; reviewer: string; inMergeQueue: boolean }
  /** Decide the run's merges again. */
  | { kind: 'advance' };

/**
 * docs/lifecycle.md steps 8 and "Reviews": an approving review from a write+ person approves
 * the task for the reviewed commit, in whatever phase its attempt is, unless GitHub shows it
 * dismissed by the time it is handled; a "changes requested" review from one sends it back to
 * its worker, unless GitHub shows it dismissed by then; other reviews change nothing. `snapshot`
 * is null when nothing was read (`reviewReads`) or the PR is no agent PR of a known task.
 */
export function decideReview(snapshot: ReviewSnapshot | null, event: ReviewEvent): ReviewEffect[] {
  const reads = reviewReads(event);
  if (reads === 'nothing')
    return nothing(
      event.authorIsBot
        ? 'reviews by bots never approve'
        : `a ${event.state.toLowerCase()} review neither approves nor asks for changes`,
    );
  if (!snapshot) return nothing('not an agent PR of a known task');
  if (reads === 'changes_requested') {
    const verdict = decideChangesRequested(
      {
        state: event.state,
        authorIsBot: event.authorIsBot,
        authorCanWrite: snapshot.authorCanWrite,
      },
      {
        state: snapshot.task.state,
        runFinished: snapshot.runFinished,
        reviewAlreadySentBack: snapshot.reviewAlreadySentBack,
        enqueued: snapshot.enqueued,
      },
    );
    if (verdict.kind === 'ignore') return nothing(verdict.why);
    // Dismissed before this delivery was handled: a person took the request back, and its body
    // must not reach the agent.
    const shown = shownOtherwise(snapshot, 'changes_requested');
    if (shown) return nothing(shown);
    // The head sent back is no longer awaiting its merge: its order check, passing if it was
    // approved, must stop passing at once (docs/security.md, "A withdrawn approval"), and a PR in
    // GitHub's merge queue must leave it, which destroys a merge group formed with it (the
    // merge turn's dequeue, evaluate-pull.ts).
    return [
      { kind: 'sendBack', reviewer: event.author, inMergeQueue: verdict.inMergeQueue },
      { kind: 'advance' },
    ];
  }
  if (snapshot.runFinished) return nothing('the run is finished');
  if (!snapshot.authorCanWrite) return nothing('the reviewer cannot write to the repository');
  // Dismissed before this delivery was handled: its dismissal's delivery, handled first, found
  // nothing to withdraw (decideReviewDismissed), so the review must not approve now.
  const shown = shownOtherwise(snapshot, 'approved');
  if (shown) return nothing(shown);
  const approval: Approval = {
    sha: event.commitId,
    currentHead: snapshot.currentHead,
    by: event.author,
  };
  const verdict = decideApproval(snapshot.task, approval);
  if (verdict.kind === 'refuse') return nothing(`the task is ${snapshot.task.state}: no approval`);
  return [{ kind: 'approve', approval }, { kind: 'advance' }];
}

/** Why a review GitHub no longer shows in the state it was delivered in does nothing, if so. */
function shownOtherwise(snapshot: ReviewSnapshot, delivered: string): string | undefined {
  const state = snapshot.reviewState?.toLowerCase();
  return state === delivered ? undefined : `GitHub shows the review ${state ?? 'gone'}`;
}

/** What the worker is told of a review asking for changes, with how many threads are open. */
export function changesRequestedFeedback(reviewer: string, threads: number): string {
  return `${reviewer} requested changes in a review (${threads} unresolved thread${threads === 1 ? '' : 's'}): address the review and each thread.`;
}
