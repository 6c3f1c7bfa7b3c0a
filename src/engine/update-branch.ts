import { isOpenPull } from '../core/lifecycle/index.js';
import {
  classifyUpdateRefusal,
  decideUpdateHold,
  refusalNeedsPull,
  type UpdateRefusal,
} from '../core/merge/index.js';
import { crashPoint } from '../crash-points.js';
import type { PullRow } from '../store/pulls.js';
import type { TaskRow } from '../store/runs.js';
import { clearApproval } from './approval.js';
import type { Engine, RunScope } from './context.js';

export type BranchUpdate =
  | { kind: 'updated' }
  /** GitHub refused the App the update's push (a 403): the PR waits for a person at this head. */
  | { kind: 'held' }
  | Exclude<UpdateRefusal, { kind: 'needs_person' }>;

/**
 * GitHub's update-branch of an agent PR (its base merged into its head), for the merge path
 * (merge/act.ts) and stacking (stack.ts), which each handle a 422 their way. A 403 is handled
 * here for both (holdForPerson). `base`: the branch the update brings in, as the caller knows it
 * (a retarget has just changed it); `stacked`: the PR is a stacked child's.
 */
export async function updatePullBranch(
  engine: Engine,
  scope: RunScope,
  target: { row: PullRow; task: TaskRow },
  expectedHeadSha: string,
  options: { base: string; stacked: boolean },
): Promise<BranchUpdate> {
  const { row } = target;
  const answer = await scope.port.updateBranch(scope.repo, row.number, expectedHeadSha);
  if (answer.ok) {
    // docs/lifecycle.md step 8: the update's push keeps the approval (decidePush), and until its
    // checks settle no other PR into the same base is updated (merge-pool.ts).
    await engine.store.pulls.update(row.id, { updatedByCoordinatorFrom: expectedHeadSha });
    return { kind: 'updated' };
  }
  const current = refusalNeedsPull(answer) ? await scope.port.pull(scope.repo, row.number) : null;
  const refusal = classifyUpdateRefusal(
    answer,
    expectedHeadSha,
    current && { ...current, open: isOpenPull(current) },
  );
  engine.log.info(
    { run: scope.run.id, task: target.task.taskKey, pr: row.number, refusal: refusal.kind },
    'update-branch refused',
  );
  if (refusal.kind !== 'needs_person') return refusal;
  await holdForPerson(engine, scope, target, expectedHeadSha, {
    ...options,
    message: refusal.message,
  });
  return { kind: 'held' };
}

/**
 * GitHub will not let the App push the update's merge (a workflow file's change, chdsbd/kodiak#853),
 * and an agent's token may not push it either: no send-back, no retry. What core's
 * decideUpdateHold says is applied: a stacked child's approval withdrawn, the PR told once per
 * head (a marker comment, found again before it is posted), then the refusal recorded on the
 * PR's row, which keeps the merge path and the stack from asking again at this head, and shows
 * in the status comment. A crash before the record: the next event is refused again, finds the
 * comment, and records it.
 */
async function holdForPerson(
  engine: Engine,
  scope: RunScope,
  { row, task }: { row: PullRow; task: TaskRow },
  head: string,
  { base, stacked, message }: { base: string; stacked: boolean; message: string },
): Promise<void> {
  const hold = decideUpdateHold({ head, headRef: row.headRef, base, message, stacked, task });
  if (hold.withdrawApproval) await clearApproval(engine, task, hold.withdrawApproval.move);
  const { marker, body } = hold.comment;
  if (!(await scope.port.findAppComment(scope.repo, row.number, marker)))
    await scope.port.createIssueComment(scope.repo, row.number, body);
  crashPoint('merge.update-refusal-told');
  if (await engine.store.pulls.recordUpdateRefusal(row.id, scope.run.id, head, message))
    engine.requestStatus(scope.run.id);
  engine.log.warn(
    { run: scope.run.id, task: task.taskKey, pr: row.number, message },
    'update-branch refused to the App: waiting for a person',
  );
}
