import { shortSha } from '../merge/approval.js';
import { IN_REVIEW_TASK_STATES, type TaskState } from '../states.js';
import { canMoveTask } from '../transitions.js';
import { approvalEvent } from './facts.js';

/**
 * Where an approval is recorded. It is for a head SHA, not for a phase: a PR approved while
 * its worker's run is still finishing (GitHub delivers the run's completion late, or after the
 * approval) keeps the approval once the task reaches review, as long as the head is the one
 * approved. New work pushed later is a new head and needs approval again.
 */
export const APPROVABLE_TASK_STATES: ReadonlySet<TaskState> = new Set<TaskState>([
  'pending',
  'dispatched',
  'running',
  'in_review',
  'approved',
]);

export interface Approval {
  /** By `/approve`: the PR's head (see commandApproval); by a review: the reviewed commit. */
  sha: string;
  /**
   * The login of who gave it (the command's author, the reviewer), recorded with it: the approval
   * counts at merge time only while they still have write access (core/merge/approval.ts).
   */
  by: string;
  /** The head GitHub shows now. */
  currentHead: string;
  /**
   * When a plain `/approve` was written: it names no commit, so it holds only while no new work
   * reached the PR after that (approvalAfterPush). Absent when the approval names its commit
   * (a review's `commit_id`, `/approve <sha>`).
   */
  writtenAt?: Date;
}

/**
 * A task's approval taken back or ended: its commit, when it was written and who gave it go
 * together, so no approval is ever left with another's author.
 */
export const NO_APPROVAL = {
  approvedSha: null,
  approvedAt: null,
  approvedBy: null,
  approvalOriginSha: null,
} as const;

export type ApprovalVerdict =
  | { kind: 'refuse' }
  /** A late approval of an older commit never replaces one of the current head. */
  | { kind: 'keep' }
  /**
   * Recorded under a guarded write (only if the task is still as read): in review by `move`;
   * before review as fields only, which the task's move into review then applies.
   */
  | {
      kind: 'record';
      state: TaskState;
      approvedSha: string;
      approvedAt: Date | null;
      approvedBy: string;
      /** The commit it is given on, which it keeps when the coordinator's update carries it. */
      approvalOriginSha: string;
      move?: 'approved' | 'older head approved';
    };

/**
 * What an approval does to the task, whichever of two approvals is handled first: the outcome
 * is the same (docs/lifecycle.md).
 */
export function decideApproval(
  task: { state: TaskState; approvedSha: string | null },
  approval: Approval,
): ApprovalVerdict {
  if (!APPROVABLE_TASK_STATES.has(task.state)) return { kind: 'refuse' };
  const { sha, currentHead } = approval;
  if (sha !== currentHead && task.approvedSha === currentHead) return { kind: 'keep' };
  const state = IN_REVIEW_TASK_STATES.has(task.state)
    ? sha === currentHead
      ? 'approved'
      : 'in_review'
    : task.state;
  return {
    kind: 'record',
    state,
    approvedSha: sha,
    approvedAt: approval.writtenAt ?? null,
    approvedBy: approval.by,
    approvalOriginSha: sha,
    ...(canMoveTask(task.state, 'approved') ? { move: approvalEvent(state) } : {}),
  };
}

/**
 * The coordinator's update of an agent PR's branch (GitHub's merge of its base into the head, `POST
 * /repos/{o}/{r}/merges`), as the PR's row records it: `from`, the head it merged the base into
 * (`updated_by_coordinator_from`), recorded before the call; `to`, the merge commit GitHub answered
 * with (`updated_by_coordinator_to`), recorded once the answer is in. Only a push to exactly `to`
 * is the update.
 */
export interface BranchUpdate {
  from: string;
  /** Null while the update's answer is not recorded: its call is out, or its answer was lost. */
  to: string | null;
}

/** What `/approve` on a PR (or `/approve <task>` on the issue) may approve. */
export interface CommandApprovalFacts {
  /** `/approve <sha>`: the commit the author names (7 to 40 hex digits). */
  named?: string;
  /** The comment's `created_at`. */
  writtenAt: Date;
  /** The PR's head as GitHub shows it now. */
  head: string;
  /** The latest `updated_at` of a push of new work to the PR (not the coordinator's update). */
  workPushedAt: Date | null;
  /** The command's author. */
  by: string;
  /**
   * The head of the latest `opened` or `synchronize` delivery handled (by its `updated_at`):
   * the newest head the coordinator knows when it reached the PR. Null before any.
   */
  deliveredHead: string | null;
  /** The coordinator's update of the branch, while its push is still to be handled. */
  update: BranchUpdate | null;
}

export type CommandApproval = { ok: true; approval: Approval } | { ok: false; reason: string };

/**
 * An approval covers only a head its author could have seen (docs/commands.md): `/approve <sha>`
 * approves that head only (a prefix of the PR's head); a plain `/approve` approves the head GitHub
 * shows, unless GitHub showed new work reaching the PR after the comment was written. Decided
 * from the timestamps the payloads carry, so whichever delivery is handled first, the outcome is
 * the same (approvalAfterPush withdraws one the push's delivery finds recorded).
 *
 * A plain `/approve` approves only the head whose arrival a handled delivery dated
 * (`deliveredHead`), or the coordinator's own update of that head (no new work: its push, once
 * delivered, carries an approval of the head it updated from). Another head came by a push whose
 * delivery is late, so nothing says whether it came before the comment; and recording it now,
 * for that delivery to withdraw, leaves a window in which the run's completion merges it.
 * Nothing is recorded then, and the reply says so at once, rather than failing the handling so
 * the delivery is retried until the push's delivery comes: the answer does not hang on retry
 * timing or on a delivery that may never come, and the author has the remedy in hand
 * (`/approve <sha>` names what it approves and holds at once).
 */
export function commandApproval(facts: CommandApprovalFacts): CommandApproval {
  const { named, writtenAt, head, workPushedAt, by, deliveredHead, update } = facts;
  if (named !== undefined) {
    if (!head.toLowerCase().startsWith(named.toLowerCase()))
      return {
        ok: false,
        reason: `\`${named}\` is not the head of this pull request: its head is \`${shortSha(head)}\`, nothing was approved`,
      };
    return { ok: true, approval: { sha: head, currentHead: head, by } };
  }
  if (workPushedAt !== null && !datedBefore(workPushedAt, writtenAt))
    return { ok: false, reason: pushedAfter(head) };
  const dated =
    head === deliveredHead ||
    (deliveredHead !== null && isCoordinatorUpdate({ before: deliveredHead, after: head }, update));
  if (!dated) return { ok: false, reason: pushNotSeen(head) };
  return { ok: true, approval: { sha: head, currentHead: head, writtenAt, by } };
}

/**
 * Whether a push GitHub dates `pushedAt` came before a comment it dates `writtenAt`
 * (docs/commands.md, "Approvals"). GitHub dates both to the second: a push in the comment's own
 * second may have come after it, unseen by its author, and nobody reviews new work in the second
 * it lands. Only a push dated an earlier second came before.
 */
function datedBefore(pushedAt: Date, writtenAt: Date): boolean {
  return pushedAt.getTime() < writtenAt.getTime();
}

function pushNotSeen(head: string): string {
  return `new commits reached this pull request whose push the coordinator has not handled yet, so it cannot tell whether they came before this comment was written: nothing was approved. Review its head \`${shortSha(head)}\` and \`/approve\` again shortly, or \`/approve ${shortSha(head)}\``;
}

function pushedAfter(head: string): string {
  return `new commits reached this pull request after this comment was written: review its head \`${shortSha(head)}\` and \`/approve\` again, or \`/approve ${shortSha(head)}\``;
}

/**
 * A push of new work (`pull_request.synchronize`, not the coordinator's own update) that GitHub
 * dates after a plain `/approve` was written, or in the same second (`datedBefore`): that approval
 * covers none of the heads from then on, whichever of the two deliveries was handled first.
 * `withdraw` carries the reply.
 */
export function approvalAfterPush(
  task: { approvedSha: string | null; approvedAt: Date | null },
  push: { head: string; at: Date },
): { kind: 'stands' } | { kind: 'withdraw'; reply: string } {
  if (task.approvedSha === null || task.approvedAt === null) return { kind: 'stands' };
  if (datedBefore(push.at, task.approvedAt)) return { kind: 'stands' };
  return {
    kind: 'withdraw',
    reply: `The \`/approve\` of \`${shortSha(task.approvedSha)}\` was written before new commits reached this pull request: it does not count for its head \`${shortSha(push.head)}\`. Review it and \`/approve\` again, or \`/approve ${shortSha(push.head)}\`.`,
  };
}

/** A push to an agent PR's branch, with what the coordinator knows of its own update. */
export interface BranchPush {
  before: string;
  after: string;
  /** The coordinator's update of the branch, as the PR's row records it. */
  update: BranchUpdate | null;
  approvedSha: string | null;
  /**
   * Read within the repository's merge turn, in which every update is asked for and its answer
   * recorded: an update with no answer recorded then is one whose answer was lost (the process
   * died, or GitHub's answer never came), not one still out.
   */
  afterTurn: boolean;
}

export type PushVerdict =
  /**
   * The push starts from the head an update is out for, whose answer is not recorded yet: it may
   * be the update or another push from that head. Decided again once the merge turn that asked
   * for the update is over (`afterTurn`).
   */
  | { kind: 'await_update' }
  | {
      kind: 'decided';
      /** New work reached the PR: not the coordinator's own update of the branch. */
      work: boolean;
      /** The approval after this push, when it changes: the update's head inherits it. */
      approvedSha?: string;
      /** Whether the record of the coordinator's update is spent (new work replaced its head). */
      clearUpdate: boolean;
    };

/**
 * A push is the coordinator's update: it moves the branch from the head the update merged the
 * base into to exactly the merge commit GitHub answered the update with. GitHub's answer names
 * that commit (a 201 with its sha and parents), so no other commit passes, however its parents
 * read: anyone who may push to the branch can make a merge of the base into the approved head,
 * with anything else in its tree.
 */
function isCoordinatorUpdate(
  push: { before: string; after: string },
  update: BranchUpdate | null,
): boolean {
  return (
    update !== null && update.to !== null && push.before === update.from && push.after === update.to
  );
}

/**
 * docs/lifecycle.md step 8: the coordinator's update of a behind branch (a push from the head it
 * merged the base into to the merge commit GitHub answered with) keeps the approval; any other
 * push is new work that needs approval again, and ends the update's claim on the base branch's
 * slot. A push from the head an update is out for, before its answer is recorded, waits for the
 * merge turn that asked for it; after it, an update with no answer is spent, and the push is work.
 */
export function decidePush(push: BranchPush): PushVerdict {
  const { update } = push;
  if (update === null) return { kind: 'decided', work: true, clearUpdate: false };
  if (update.to === null && push.before === update.from && !push.afterTurn)
    return { kind: 'await_update' };
  if (!isCoordinatorUpdate(push, update)) return { kind: 'decided', work: true, clearUpdate: true };
  if (push.approvedSha === update.from && push.after !== push.approvedSha)
    return { kind: 'decided', work: false, approvedSha: push.after, clearUpdate: false };
  return { kind: 'decided', work: false, clearUpdate: false };
}
