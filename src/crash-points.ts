/**
 * Named steps where the crash test (test/chaos) kills the coordinator. With
 * `AC_CRASH_AT=<name>` the process kills itself with SIGKILL the first time it reaches that
 * step; with `AC_CRASH_AT=<name>#<k>`, the k-th time. Unset (production), each call costs one
 * comparison. Every name here is used in src (a test checks it), and every call uses a name
 * from here (the type checks it).
 */
export const CRASH_POINTS = [
  // Webhook ingest and the delivery inbox.
  'ingest.stored', // delivery stored, 202 not sent yet
  'processor.claimed', // delivery claimed, not handled yet
  'processor.handled', // handled, not marked done yet
  // Starting a run and planning it.
  'start.run-created', // run row created, no status comment yet
  'start.status-written', // status comment written, plan not applied yet
  'plan.stored', // plan stored, nothing scheduled yet
  // Dispatching a task attempt (the planner's too).
  'dispatch.intent-recorded', // attempt intent committed, dispatch not called yet
  'dispatch.branch-created', // task branch created, dispatch not called yet
  'dispatch.called', // workflow dispatched, run id not recorded yet
  'dispatch.run-recorded', // run id recorded
  // Tracking the worker's run.
  'track.running', // attempt and task marked running
  'track.before-complete', // run completed with a PR, attempt not completed yet
  // Attempt completed; without a PR (or on the sweep's repair) the task is not in review yet,
  // with one the same write put it there (RunStore.completeIntoReview).
  'track.attempt-completed',
  'track.in-review', // task in review, merges not decided yet
  'changed-files.read', // a PR's changed files read, not recorded on its task yet
  // The status comment.
  'status.claimed', // render version claimed, comment not written yet
  'status.comment-created', // status comment created, its id not recorded yet
  // Merging.
  'merge.order-check-created', // order check run created, not recorded yet (nor claimed)
  'merge.claimed', // task moved to merging, merge not called yet
  'merge.called', // PR merged on GitHub, task not marked merged yet
  'merge.enqueued', // PR added to the merge queue, not recorded yet
  'merge.dependents-freed', // task merged and its dependents freed (one statement), not scheduled yet
  'merge.update-asked', // a PR's update recorded as asked, GitHub not asked yet to merge the base into its branch
  'merge.branch-merged', // GitHub merged the base into a PR's branch (201), the merge commit not recorded yet
  'merge.update-refusal-told', // GitHub refused the App the update of a PR's branch (403) and the PR was told, the refusal not recorded yet
  // Stacked dispatch (dispatch.stack).
  'stack.permitted', // a task's permit to stack on its dependency's PR recorded, not scheduled yet
  'stack.restacked', // a stacked PR updated with its parent's new head, the head not recorded yet
  'stack.parent-rewritten-told', // a stacked PR's approval withdrawn and the PR told its parent's branch was rewritten, not updated yet
  'stack.retargeted', // a stacked PR pointed at the base after its parent merged, not updated yet
  'stack.cancelled', // a stacked task's worker run cancelled and its PR pointed at the base, the task not blocked yet
  // Finishing the run.
  'finish.run-finished', // run finished, `agent:done` label not added yet
  'finish.labelled', // labelled, issue not closed yet
  // Commands.
  'command.claimed', // a comment's command claimed for its delivery, not carried out yet
  // The sweep.
  'sweep.before-redispatch', // a dispatch with no run found, not dispatched again yet
  'sweep.before-adopt', // a run found for a dispatch without one, not adopted yet
  'redeliver.requested', // a failed delivery's redelivery requested
] as const;

export type CrashPoint = (typeof CRASH_POINTS)[number];

function parseTarget(value: string | undefined): { name: string; nth: number } | undefined {
  if (!value) return undefined;
  const [name = '', nth] = value.split('#');
  return { name, nth: nth === undefined ? 1 : Math.max(1, Number(nth) || 1) };
}

const target = parseTarget(process.env.AC_CRASH_AT);
let reached = 0;

/** Dies here (SIGKILL, no cleanup, like a power cut) when AC_CRASH_AT names this point. */
export function crashPoint(name: CrashPoint): void {
  if (target === undefined || name !== target.name) return;
  reached += 1;
  if (reached >= target.nth) process.kill(process.pid, 'SIGKILL');
}
