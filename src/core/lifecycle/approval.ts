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
  /** The head the coordinator asked GitHub to update from, if it did (`updatedByCoordinatorFrom`). */
  updateFrom: string | null;
  /**
   * The parents of `head` as GitHub shows them, read only when `head` may be the coordinator's
   * update of `deliveredHead` (`approvalReadsHeadParents`); null when not read or not found.
   */
  headParents: readonly string[] | null;
}

/**
 * Whether a plain `/approve` needs the parents of the PR's head (`GET /git/commits/{sha}`): the
 * head is not the delivered one, and the coordinator asked GitHub to update from that one, so
 * the head may be that update's merge, whose push is late.
 */
export function approvalReadsHeadParents(
  facts: Pick<CommandApprovalFacts, 'named' | 'head' | 'deliveredHead' | 'updateFrom'>,
): boolean {
  const { named, head, deliveredHead, updateFrom } = facts;
  return (
    named === undefined &&
    deliveredHead !== null &&
    head !== deliveredHead &&
    mayBeCoordinatorUpdate({ before: deliveredHead, updateFrom })
  );
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
  const { named, writtenAt, head, workPushedAt, by, deliveredHead, updateFrom, headParents } =
    facts;
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
    (deliveredHead !== null && isCoordinatorUpdate(deliveredHead, updateFrom, headParents));
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
  /** The head the coordinator asked GitHub to update from, if it did (`updatedByCoordinatorFrom`). */
  updateFrom: string | null;
  approvedSha: string | null;
  /**
   * The parents of `after` as GitHub shows them (`GET /git/commits/{sha}`), read only for a push
   * that may be the update (`mayBeCoordinatorUpdate`); null when not read or not found.
   */
  afterParents: readonly string[] | null;
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
 * Whether a push may be the coordinator's update: it starts from the head the update was asked
 * from. Only then is its commit worth reading (`afterParents`).
 */
export function mayBeCoordinatorUpdate(push: {
  before: string;
  updateFrom: string | null;
}): boolean {
  return push.updateFrom !== null && push.before === push.updateFrom;
}

/**
 * GitHub's update-branch "merges HEAD from the base branch into the pull request branch" (the
 * endpoint's description in GitHub's REST reference): a merge commit whose first parent is the
 * head it updated from and whose second is the base's head. It answers 202 and merges later, so
 * another push from the same head may land first: that push's commit is not such a merge.
 * Its signature is not asked for: GitHub documents signing the commits people make in its web
 * interface (which signs a person's merge there alike), not this one, and GitHub Enterprise
 * Server signs only when an administrator configured web commit signing.
 */
function isUpdateMerge(parents: readonly string[] | null, from: string): boolean {
  return parents !== null && parents.length === 2 && parents[0] === from;
}

/**
 * A push from `before` is the coordinator's update: it starts from the head the update was
 * asked from, and its commit (with `parents`) is the update's merge.
 */
function isCoordinatorUpdate(
  before: string,
  updateFrom: string | null,
  parents: readonly string[] | null,
): boolean {
  return mayBeCoordinatorUpdate({ before, updateFrom }) && isUpdateMerge(parents, before);
}

/**
 * docs/lifecycle.md step 8: the coordinator's update of a behind branch (a push whose `before`
 * is the head it updated from, and whose commit is the update's merge of the base into that
 * head) keeps the approval; any other push is new work that needs approval again, and ends the
 * update's claim on the base branch's slot.
 */
export function decidePush(push: BranchPush): PushVerdict {
  const ours = isCoordinatorUpdate(push.before, push.updateFrom, push.afterParents);
  if (!ours) return { work: true, clearUpdate: push.updateFrom !== null };
  if (push.approvedSha === push.updateFrom && push.after !== push.approvedSha)
    return { work: false, approvedSha: push.after, clearUpdate: false };
  return { work: false, clearUpdate: false };
}
