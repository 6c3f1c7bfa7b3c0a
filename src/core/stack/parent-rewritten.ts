import { inertInline } from '../inert-markdown.js';
import { shortSha } from '../merge/approval.js';
import type { TaskState } from '../states.js';
import { canMoveTask } from '../transitions.js';
import type { ParentRewritten } from './types.js';

export function parentRewrittenMarker(parentHead: string): string {
  return `<!-- agent-coordinator:parent-rewritten head=${parentHead} -->`;
}

export function parentMergedUnseenMarker(parentHead: string): string {
  return `<!-- agent-coordinator:parent-merged-unseen head=${parentHead} -->`;
}

/**
 * docs/stacking.md, "A parent's rewritten branch": the child took in `from`, which its parent's
 * head `to` no longer holds. The coordinator's update merges `to` in and takes nothing out, so the
 * child keeps what a person dropped from the parent, shown as the child's own change: its
 * approval, given before, is taken back, and the PR says why (once per parent head).
 */
export function decideParentRewritten(input: ParentMove): ParentRewritten {
  const branch = inertInline(input.parentBranch);
  return withdrawal(
    input,
    parentRewrittenMarker(input.to),
    [
      `**agent-coordinator**: the branch of ${inertInline(input.parent)} (${branch}), which this pull request is stacked on, was rewritten: its head \`${shortSha(input.to)}\` no longer holds \`${shortSha(input.from)}\`, which this branch took in.`,
      '',
      `This branch still holds the commits dropped from ${branch}, and its diff against ${branch} shows them as its own change; bringing it up to date with ${branch} does not take them out.`,
    ],
    'before the rewrite',
  );
}

/**
 * docs/stacking.md, "A parent that merged at a head the child never took in": the parent's PR
 * merged at `to`, and the child last took in `from` (the push that moved the parent on was never
 * seen before its merge, or the child could not follow it). Whatever the parent changed since,
 * a rewrite or a revert, is not in the child, and its update from the base after a squash or a
 * rebase merge (new commits, none of them the parent's) keeps what the parent took out: its
 * approval, given to its diff against `from`, is taken back before the retarget.
 */
export function decideParentMergedUnseen(input: ParentMove & { base: string }): ParentRewritten {
  const branch = inertInline(input.parentBranch);
  const base = inertInline(input.base);
  return withdrawal(
    input,
    parentMergedUnseenMarker(input.to),
    [
      `**agent-coordinator**: the pull request of ${inertInline(input.parent)} (${branch}), which this pull request was stacked on, merged at \`${shortSha(input.to)}\`; this branch last took in \`${shortSha(input.from)}\`, and never \`${shortSha(input.to)}\`.`,
      '',
      `What ${branch} changed in between (a rewrite, a revert) is not in this branch: it may still hold what was taken out of ${branch}, and its diff against ${base} shows that as its own change; bringing it up to date with ${base} does not take it out.`,
    ],
    `to its diff against \`${shortSha(input.from)}\``,
  );
}

interface ParentMove {
  from: string;
  to: string;
  parent: string;
  parentBranch: string;
  task: { state: TaskState; approved: boolean };
}

/** `what` happened; `given`: when or to what the approval was given, which it no longer covers. */
function withdrawal(
  input: ParentMove,
  marker: string,
  what: string[],
  given: string,
): ParentRewritten {
  const { from, to, task } = input;
  const withdrawn = task.approved;
  const body = [
    marker,
    ...what,
    ...(withdrawn ? ['', `Its approval is withdrawn: it was given ${given}.`] : []),
    '',
    'Review its diff again before approving it: a person who may push can revert what should not be there.',
    '',
  ].join('\n');
  return {
    from,
    to,
    ...(withdrawn && {
      withdrawApproval: canMoveTask(task.state, 'approval withdrawn')
        ? { move: 'approval withdrawn' as const }
        : {},
    }),
    comment: { marker, body },
  };
}
