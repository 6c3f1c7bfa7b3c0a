import { afterSendBack, isTaskMerged } from '../../core/lifecycle/index.js';
import type { MergePull } from '../../core/merge/index.js';
import type { PullRow } from '../../store/pulls.js';
import type { TaskRow } from '../../store/runs.js';
import type { Engine, RunScope } from '../context.js';
import { scheduleRepository } from '../dispatch.js';
import { failTaskForGood } from '../failures.js';
import { settleRun } from '../finish.js';
import { crashPoint } from '../../crash-points.js';
import type { StoredFeedback } from '../feedback.js';

/**
 * Conflicts, failing checks or a "changes requested" review go back to the worker in mode=fix,
 * once per head (or review), within retries.max; `structured` is the review and checks behind
 * the text (tasks.pending_review), which the next attempt's assignment carries. The PR is out of
 * GitHub's merge queue unless core says it is still in (`inMergeQueue`, a review asking for
 * changes there): then it stays recorded as queued, and the merge turn that follows takes it out
 * (core's inMergeQueue and evaluatePull), as for a task cancelled or vetoed there.
 */
export async function sendBack(
  engine: Engine,
  scope: RunScope,
  target: { row: PullRow; task: TaskRow; pull: Pick<MergePull, 'headSha'> },
  feedback: string,
  structured?: StoredFeedback,
  queue: { inMergeQueue: boolean } = { inMergeQueue: false },
): Promise<void> {
  const { task, row } = target;
  await engine.store.pulls.update(row.id, {
    sentBackForSha: target.pull.headSha,
    ...(!queue.inMergeQueue && { enqueuedAt: null }),
  });
  const verdict = afterSendBack(task.attemptCount, scope.config.retries, feedback);
  if (verdict.kind === 'fail') {
    await failTaskForGood(engine, scope, task.id, verdict.reason, null);
    return;
  }
  const moved = await engine.store.runs.transitionTask(task.id, 'sent back', {
    nextMode: 'fix',
    pendingFeedback: feedback,
    pendingReview: structured ?? null,
    nextAttemptAt: null,
  });
  if (!moved) return;
  engine.log.info(
    { run: scope.run.id, task: task.taskKey, pr: row.number, feedback },
    'sent back to the worker',
  );
  await scheduleRepository(engine, scope.repositoryId, scope.repository);
}

/** Merged (by us, the queue, or a person): dependents become ready, the run may be done. */
export async function markTaskMerged(
  engine: Engine,
  scope: RunScope,
  taskId: number,
  taskKey: string,
): Promise<boolean> {
  // The dependents are freed in the same statement (RunStore.markMerged).
  const merged = await engine.store.runs.markMerged(taskId, scope.run.id, taskKey);
  if (!merged) {
    // Seen merged before: if closing out the run failed then, this retried event finishes it.
    const current = await engine.store.runs.taskById(taskId);
    if (current && isTaskMerged(current.state)) {
      // Merged by a version that freed the dependents in a statement of their own: a crash
      // may have come in between.
      await engine.store.runs.decrementDependents(scope.run.id, taskKey);
      await scheduleRepository(engine, scope.repositoryId, scope.repository);
      await settleRun(engine, scope);
      return false;
    }
    await settleRun(engine, scope);
    return false;
  }
  crashPoint('merge.dependents-freed');
  engine.log.info(
    { run: scope.run.id, issue: scope.run.issueNumber, task: taskKey },
    'task merged',
  );
  engine.requestStatus(scope.run.id);
  await scheduleRepository(engine, scope.repositoryId, scope.repository);
  // Other tasks still going: the run is not over, and the last of them settles it (or the
  // sweep, if two merges counted each other as going: docs/running.md, "The sweep").
  if (merged.othersOpen === 0) await settleRun(engine, scope);
  return true;
}
