import { inertInline } from '../inert-markdown.js';
import type { TaskState } from '../states.js';
import { canMoveTask, type TaskMove } from '../transitions.js';

/** A PR whose update GitHub refused the App with a 403 (classifyUpdateRefusal's `needs_person`). */
export interface UpdateHoldInput {
  /** The head GitHub refused to update. */
  head: string;
  /** The PR's branch and the branch the update would have brought in. */
  headRef: string;
  base: string;
  /** GitHub's message (untrusted: it names a file of the repository). */
  message: string;
  /** A stacked child brought up to date with its parent's branch, or with the base after its parent merged. */
  stacked: boolean;
  task: { state: TaskState; approvedSha: string | null };
}

export interface UpdateHold {
  /**
   * Take the approval back (by `move` when the task is in review, as fields otherwise): a
   * stacked child's approval was given on a diff against its parent that hides what the parent's
   * later commits changed, and its merge would carry them unseen (docs/stacking.md).
   */
  withdrawApproval?: { move?: TaskMove };
  /** Told once per refused head: found again by `marker` before it is posted. */
  comment: { marker: string; body: string };
}

/**
 * docs/lifecycle.md step 9 and docs/stacking.md: neither the App nor an agent may push the merge
 * GitHub refused, so the PR waits for a person at this head; its row records the refusal, and a
 * person's push (a new head) ends it. A plain PR keeps its approval: it cannot merge while
 * behind, and a person's push voids the approval anyway (decidePush).
 */
export function decideUpdateHold(input: UpdateHoldInput): UpdateHold {
  const withdraw = input.stacked && input.task.approvedSha !== null;
  return {
    ...(withdraw && {
      withdrawApproval: canMoveTask(input.task.state, 'approval withdrawn')
        ? { move: 'approval withdrawn' as const }
        : {},
    }),
    comment: { marker: updateRefusedMarker(input.head), body: commentBody(input, withdraw) },
  };
}

export function updateRefusedMarker(head: string): string {
  return `<!-- agent-coordinator:update-refused head=${head} -->`;
}

function commentBody(input: UpdateHoldInput, withdrawn: boolean): string {
  const base = inertInline(input.base);
  const branch = inertInline(input.headRef);
  return [
    updateRefusedMarker(input.head),
    `**agent-coordinator**: GitHub would not let the App bring this branch up to date with ${base}:`,
    '',
    `> ${inertInline(input.message)}`,
    '',
    'The App may not push that merge, and an agent may not either, so no update and no fix is tried at this head.',
    ...(withdrawn
      ? [
          '',
          `Its approval is withdrawn: it was given on a diff that does not show what ${base} changed since, which merging this pull request would carry unseen.`,
        ]
      : []),
    '',
    `To go on, a person who may push it merges ${base} into ${branch} and pushes; the coordinator goes on from that push.`,
    '',
  ].join('\n');
}
