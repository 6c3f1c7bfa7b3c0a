import { decideApproval, NO_APPROVAL, type Approval } from '../core/lifecycle/index.js';
import type { MergeDecision } from '../core/merge/index.js';
import type { TaskMove } from '../core/transitions.js';
import type { PullRow } from '../store/pulls.js';
import type { TaskRow } from '../store/runs.js';
import type { GitHubPort, RepoCoords } from '../github/port.js';
import type { Engine, RunScope } from './context.js';

/**
 * Record an approval (core's `decideApproval` says what it does) given the head GitHub shows
 * now. Returns the task as it is afterwards, or undefined when it is in no state to approve.
 */
export async function recordApproval(
  engine: Engine,
  task: TaskRow,
  approval: Approval,
): Promise<TaskRow | undefined> {
  const verdict = decideApproval(task, approval);
  if (verdict.kind === 'refuse') return undefined;
  if (verdict.kind === 'keep') return task;
  const values = {
    approvedSha: verdict.approvedSha,
    approvedAt: verdict.approvedAt,
    approvedBy: verdict.approvedBy,
    approvalOriginSha: verdict.approvalOriginSha,
  };
  // Only if the task is still as read: a concurrent approval of the head must not be replaced.
  const expected = { expected: task.state };
  // Before review the approval waits on the task (enterReview applies it); in review it decides.
  return verdict.move
    ? engine.store.runs.transitionTask(task.id, verdict.move, values, expected)
    : engine.store.runs.updateTaskFields(task.id, values, expected);
}

/**
 * New work reached the PR after a plain `/approve` was written (core's `decidePullChanged`): the
 * approval is taken back, if the task is still as read, and the PR gets a reply saying so.
 */
export async function withdrawApproval(
  engine: Engine,
  port: GitHubPort,
  repo: RepoCoords,
  task: TaskRow,
  prNumber: number,
  effect: { move?: TaskMove; reply: string },
): Promise<void> {
  const withdrawn = await clearApproval(engine, task, effect.move);
  if (withdrawn && repo.owner && repo.repo)
    await port.createIssueComment(repo, prNumber, effect.reply);
}

/**
 * Take the task's approval back (by `move` when core gives one, as fields otherwise), if the task
 * is still as read, and when `approval` is given, still holds that approval. Returns the task
 * afterwards, or undefined when it moved meanwhile.
 */
export function clearApproval(
  engine: Engine,
  task: TaskRow,
  move: TaskMove | undefined,
  approval?: { sha: string; by: string | null },
): Promise<TaskRow | undefined> {
  const values = NO_APPROVAL;
  const expected = { expected: task.state, ...(approval ? { approval } : {}) };
  return move
    ? engine.store.runs.transitionTask(task.id, move, values, expected)
    : engine.store.runs.updateTaskFields(task.id, values, expected);
}

/**
 * An approval whose author no longer has write access (core's approverCheck): the PR is told
 * once (a marker comment, found again before it is posted), then the approval is withdrawn and
 * the task is back in review, if it still holds that approval. Told first: after a crash in
 * between, the next turn decides the same, finds the comment and withdraws (test/e2e's
 * approver-lost-write.test.ts plays that state); withdrawn first, the PR would never be told.
 */
export async function withdrawLostApproval(
  engine: Engine,
  scope: RunScope,
  { row, task }: { row: PullRow; task: TaskRow },
  decision: Extract<MergeDecision, { kind: 'withdraw_approval' }>,
): Promise<void> {
  const { marker, body } = decision.comment;
  if (!(await scope.port.findAppComment(scope.repo, row.number, marker)))
    await scope.port.createIssueComment(scope.repo, row.number, body);
  const withdrawn = await engine.store.runs.transitionTask(
    task.id,
    'approval withdrawn',
    NO_APPROVAL,
    { expected: task.state, approval: { sha: decision.approvedSha, by: decision.approvedBy } },
  );
  engine.log.warn(
    {
      run: scope.run.id,
      task: task.taskKey,
      pr: row.number,
      approver: decision.approvedBy,
      withdrawn: withdrawn !== undefined,
    },
    'merge: the approver no longer has write access; the PR told, the approval withdrawn if still held',
  );
}
