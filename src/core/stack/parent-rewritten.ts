import { inertInline } from '../inert-markdown.js';
import { shortSha } from '../merge/approval.js';
import type { TaskState } from '../states.js';
import { canMoveTask } from '../transitions.js';
import type { ParentRewritten } from './types.js';

export function parentRewrittenMarker(parentHead: string): string {
  return `<!-- agent-coordinator:parent-rewritten head=${parentHead} -->`;
}

/**
 * docs/stacking.md, "A parent's rewritten branch": the child took in `from`, which its parent's
 * head `to` no longer holds. GitHub's update-branch merges `to` in and takes nothing out, so the
 * child keeps what a person dropped from the parent, shown as the child's own change: its
 * approval, given before, is taken back, and the PR says why (once per parent head).
 */
export function decideParentRewritten(input: {
  from: string;
  to: string;
  parent: string;
  parentBranch: string;
  task: { state: TaskState; approved: boolean };
}): ParentRewritten {
  const { from, to, task } = input;
  const withdrawn = task.approved;
  const branch = inertInline(input.parentBranch);
  const body = [
    parentRewrittenMarker(to),
    `**agent-coordinator**: the branch of ${inertInline(input.parent)} (${branch}), which this pull request is stacked on, was rewritten: its head \`${shortSha(to)}\` no longer holds \`${shortSha(from)}\`, which this branch took in.`,
    '',
    `This branch still holds the commits dropped from ${branch}, and its diff against ${branch} shows them as its own change; bringing it up to date with ${branch} does not take them out.`,
    ...(withdrawn ? ['', 'Its approval is withdrawn: it was given before the rewrite.'] : []),
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
    comment: { marker: parentRewrittenMarker(to), body },
  };
}
