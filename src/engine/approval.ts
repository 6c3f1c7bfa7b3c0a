import { approvalAfterPush, decideApproval, type Approval } from '../core/lifecycle/index.js';
import { canMoveTask } from '../core/transitions.js';
import type { TaskRow } from '../store/runs.js';
import { WRITE_ROLES, type GitHubPort, type RepoCoords } from '../github/port.js';
import { loadRunScope, type Engine } from './context.js';
import { advanceRun } from './merge/index.js';
import { recordedAgentPull, type PullEventInfo } from './track.js';

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
  const event = verdict.state === 'approved' ? 'approved' : 'older head approved';
  return engine.store.runs.transitionTask(task.id, event, values, expected);
}

/**
 * An approving review from a write+ person approves the task for the reviewed commit, in
 * whatever phase its attempt is: the review may come (or be handled) before the worker's run
 * has completed, or before the PR's own opened delivery.
 */
export async function onApprovingReview(
  engine: Engine,
  port: GitHubPort,
  repo: RepoCoords,
  repositoryId: number,
  pull: PullEventInfo,
  review: { commitId: string; author: string; authorIsBot: boolean },
): Promise<void> {
  if (review.authorIsBot) return;
  const current = repo.owner && repo.repo ? await port.pull(repo, pull.number) : null;
  const linked = await recordedAgentPull(engine, repositoryId, {
    ...pull,
    currentHeadSha: current?.headSha,
  });
  if (!linked || linked.run.finishedAt) return;
  const role = await port.roleOf(repo, review.author);
  if (!WRITE_ROLES.has(role)) return;
  const task = (await engine.store.runs.taskById(linked.task.id)) ?? linked.task;
  const approved = await recordApproval(engine, task, {
    sha: review.commitId,
    currentHead: current?.headSha ?? pull.headSha,
  });
  if (approved) await advanceRun(engine, await loadRunScope(engine, linked.run, port));
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
