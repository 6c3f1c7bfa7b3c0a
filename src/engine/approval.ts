import {
  approvalAfterPush,
  approvalEvent,
  decideApproval,
  type Approval,
} from '../core/lifecycle/index.js';
import { canMoveTask } from '../core/transitions.js';
import type { TaskRow } from '../store/runs.js';
import type { GitHubPort, RepoCoords } from '../github/port.js';
import type { Engine } from './context.js';

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
  const values = { approvedSha: verdict.approvedSha, approvedAt: verdict.approvedAt };
  // Only if the task is still as read: a concurrent approval of the head must not be replaced.
  const expected = { expected: task.state };
  // Before review the approval waits on the task (enterReview applies it); in review it decides.
  if (!canMoveTask(task.state, 'approved'))
    return engine.store.runs.updateTaskFields(task.id, values, expected);
  const event = approvalEvent(verdict.state);
  return engine.store.runs.transitionTask(task.id, event, values, expected);
}

/**
 * New work reached the PR (`pull_request.synchronize`, not the coordinator's own update): a plain
 * `/approve` written before GitHub dates that push covers none of it (core's
 * `approvalAfterPush`), even when the command was handled after the push and recorded its head.
 * The PR gets a reply saying so.
 */
export async function onPushOfWork(
  engine: Engine,
  port: GitHubPort,
  repo: RepoCoords,
  task: TaskRow,
  push: { number: number; head: string; at: Date },
): Promise<TaskRow> {
  const verdict = approvalAfterPush(task, push);
  if (verdict.kind === 'stands') return task;
  const values = { approvedSha: null, approvedAt: null };
  const expected = { expected: task.state };
  const withdrawn = canMoveTask(task.state, 'approval withdrawn')
    ? await engine.store.runs.transitionTask(task.id, 'approval withdrawn', values, expected)
    : await engine.store.runs.updateTaskFields(task.id, values, expected);
  if (!withdrawn) return task;
  if (repo.owner && repo.repo) await port.createIssueComment(repo, push.number, verdict.reply);
  return withdrawn;
}
