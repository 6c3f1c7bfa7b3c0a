import {
  afterFailedAttempt,
  dependentsToBlock,
  modeAfterFailedAttempt,
} from '../core/lifecycle/index.js';
import { taskBranch } from '../protocol/branch.js';
import { renderFailureComment } from '../core/status/index.js';
import type { AttemptRow } from '../store/attempt-row.js';
import type { TaskRow } from '../store/runs.js';
import type { Engine, RunScope } from './context.js';
import { settleRun } from './finish.js';
import { appPullForBranch } from './app-pulls.js';

/**
 * A failed attempt: retried on the same branch and PR after `retries.backoff`, up to
 * `retries.max` retries; then the task fails for good.
 */
export async function recordFailedAttempt(
  engine: Engine,
  scope: RunScope,
  task: TaskRow,
  attempt: AttemptRow,
  reason: string,
): Promise<'retry' | 'failed' | 'ignored'> {
  const verdict = afterFailedAttempt(task.attemptCount, scope.config.retries, engine.now());
  if (verdict.kind === 'retry') {
    const nextMode = await modeAfter(engine, scope, task, attempt);
    // Stopped at its time limit, the attempt did not get to what it was given: the next one
    // on top of its commits gets it again.
    const keptWork = nextMode === 'fix' && task.nextMode !== 'fix';
    const carried = nextMode === 'fix' && isTimedOut(attempt);
    const moved = await engine.store.runs.transitionTask(task.id, 'attempt failed', {
      nextAttemptAt: verdict.at,
      nextMode,
      pendingFeedback: task.pendingFeedback ?? (carried ? attempt.feedback : null),
      pendingReview: task.pendingReview ?? (carried ? attempt.review : null),
    });
    if (!moved) return 'ignored';
    engine.log.info(
      {
        run: scope.run.id,
        task: task.taskKey,
        attempt: attempt.attempt,
        reason,
        retryInMs: verdict.delayMs,
        nextMode,
        keptWork,
      },
      'attempt failed; retrying',
    );
    engine.requestStatus(scope.run.id);
    return 'retry';
  }
  await failTaskForGood(engine, scope, task.id, reason, attempt.workflowRunUrl);
  return 'failed';
}

/** Fail the task, block everything that depends on it, and tell the issue how to recover. */
export async function failTaskForGood(
  engine: Engine,
  scope: RunScope,
  taskId: number,
  reason: string,
  logUrl: string | null,
): Promise<void> {
  const failed = await engine.store.runs.transitionTask(taskId, 'failed');
  if (!failed) return;
  const blocked = await blockDependents(engine, scope.run.id, failed.taskKey);
  engine.log.warn({ run: scope.run.id, task: failed.taskKey, reason, blocked }, 'task failed');
  const body = renderFailureComment({
    taskKey: failed.taskKey,
    attempts: failed.attemptCount,
    reason,
    logUrl,
    blocked,
  });
  await scope.port.createIssueComment(scope.repo, scope.run.issueNumber, body);
  engine.requestStatus(scope.run.id);
  await settleRun(engine, scope);
}

/** Every task downstream of `taskKey` that has not finished becomes `blocked`. */
export async function blockDependents(
  engine: Engine,
  runId: number,
  taskKey: string,
): Promise<string[]> {
  const { tasks, depsOf, byKey } = await engine.store.runs.graphOf(runId);
  const blocked: string[] = [];
  for (const key of dependentsToBlock({ tasks, deps: depsOf }, taskKey)) {
    const task = byKey.get(key);
    if (!task) continue;
    const moved = await engine.store.runs.transitionTask(task.id, 'blocked');
    if (moved) blocked.push(key);
  }
  return blocked;
}

/**
 * The next attempt's mode (core's `modeAfterFailedAttempt`): GitHub is asked whether the task
 * has an open PR only when that would change it, and the task has none recorded yet (its
 * pull_request delivery may still be on the way).
 */
async function modeAfter(
  engine: Engine,
  scope: RunScope,
  task: TaskRow,
  attempt: AttemptRow,
): Promise<'work' | 'fix'> {
  const mode = task.nextMode === 'fix' ? 'fix' : 'work';
  const decide = (hasPull: boolean) =>
    modeAfterFailedAttempt({ failureReason: attempt.failureReason, mode, hasPull });
  if (decide(true) === mode) return mode;
  if (task.prNumber !== null) return decide(true);
  const branch = taskBranch(scope.run.issueNumber, task.taskKey);
  return decide((await appPullForBranch(engine, scope, branch)) !== null);
}

function isTimedOut(attempt: AttemptRow): boolean {
  return (
    modeAfterFailedAttempt({
      failureReason: attempt.failureReason,
      mode: 'work',
      hasPull: true,
    }) === 'fix'
  );
}
