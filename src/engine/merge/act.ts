import { mergeReleased } from '../../core/lifecycle/index.js';
import {
  classifyMergeError,
  updateRefusedAtHead,
  type MergeDecision,
} from '../../core/merge/index.js';
import type { PullRow } from '../../store/pulls.js';
import type { OrderCheckRecord, TaskRow } from '../../store/runs.js';
import type { Engine, RunScope } from '../context.js';
import { crashPoint } from '../../crash-points.js';
import { markTaskMerged, sendBack } from './outcomes.js';
import { sendBackFailingChecks } from './failing-checks.js';
import type { MergeTarget } from './merge-target.js';
import { updatePullBranch } from '../update-branch.js';
import { withdrawLostApproval } from '../approval.js';

/**
 * Carry out one merge decision. Returns true when GitHub's answer, an approval withdrawn or a
 * send-back means the snapshot is stale and the run should be decided again at once.
 */
export async function act(
  engine: Engine,
  scope: RunScope,
  decision: MergeDecision,
  target: MergeTarget,
  /** The PR's order check as just written to GitHub: the merge claim records it. */
  orderCheck?: OrderCheckRecord,
): Promise<boolean> {
  const { task, row } = target;
  const log = engine.log.child({
    run: scope.run.id,
    issue: scope.run.issueNumber,
    task: task.taskKey,
    pr: row.number,
  });
  switch (decision.kind) {
    case 'wait':
      log.debug({ reason: decision.reason, detail: decision.detail }, 'merge: waiting');
      return false;

    case 'merge': {
      const claimed = await engine.store.runs.transitionTask(
        task.id,
        'merge claimed',
        {},
        { orderCheck },
      );
      if (!claimed) return false;
      crashPoint('merge.claimed');
      const result = await giveBackOnError(engine, task, () =>
        scope.port.mergePull(scope.repo, row.number, decision.sha, decision.method),
      );
      if (result.merged) {
        crashPoint('merge.called');
        log.info({ sha: result.sha }, 'merged');
        await markTaskMerged(engine, scope, task.id, task.taskKey);
        return false;
      }
      await engine.store.runs.transitionTask(task.id, mergeReleased(task));
      return handleRefusal(engine, scope, target, result.status, result.message);
    }

    case 'enqueue': {
      const claimed = await engine.store.runs.transitionTask(
        task.id,
        'merge claimed',
        {},
        { orderCheck },
      );
      if (!claimed) return false;
      const result = await giveBackOnError(engine, task, () =>
        scope.port.enqueuePullRequest(target.nodeId, decision.expectedHeadOid),
      );
      if (result.ok) {
        crashPoint('merge.enqueued');
        await setPull(engine, row.id, { enqueuedAt: engine.now() });
        log.info('added to the merge queue');
        return false;
      }
      await engine.store.runs.transitionTask(task.id, mergeReleased(task));
      return handleRefusal(engine, scope, target, 200, result.message);
    }

    case 'dequeue':
      await scope.port.dequeuePullRequest(target.nodeId);
      await setPull(engine, row.id, { enqueuedAt: null });
      await engine.store.runs.transitionTask(task.id, mergeReleased(task));
      log.info({ reason: decision.reason }, 'removed from the merge queue');
      return false;

    case 'update_branch':
      return updateBranch(engine, scope, target, decision.expectedHeadSha);

    case 'send_back_to_worker':
      if (decision.failingChecks) {
        await sendBackFailingChecks(
          engine,
          scope,
          target,
          decision.feedback,
          decision.failingChecks,
        );
        return true;
      }
      await sendBack(engine, scope, target, decision.feedback);
      // Decided again, as for every send-back: the order check written this turn may pass on the
      // approved head that no longer awaits its merge, and must stop passing now (docs/security.md).
      return true;

    case 'withdraw_approval':
      await withdrawLostApproval(engine, scope, target, decision);
      // Decided again: the order check written this turn passed on the approval just withdrawn,
      // and must stop passing now, not at the next event (docs/security.md).
      return true;
  }
}

/**
 * Bring a behind branch up to date with its base. Only a conflict of the head decided on goes back
 * to the worker: a merge onto a head someone pushed meanwhile, or a branch up to date already,
 * means the snapshot was stale, and the run is decided again (classifyUpdateRefusal); so it is
 * after GitHub refused the App the update's push (held for a person, update-branch.ts), so that
 * another PR may take the base's slot. Returns true to decide again.
 */
async function updateBranch(
  engine: Engine,
  scope: RunScope,
  target: MergeTarget,
  expectedHeadSha: string,
): Promise<boolean> {
  const { pull } = target;
  const update = await updatePullBranch(engine, scope, target, expectedHeadSha, {
    base: pull.baseRef,
    stacked: target.task.stackParent !== null,
  });
  switch (update.kind) {
    case 'updated':
      engine.log.info(
        { run: scope.run.id, task: target.task.taskKey, pr: target.row.number },
        'branch was behind its base; updated',
      );
      return false;
    case 'conflict':
      await sendBack(
        engine,
        scope,
        target,
        `The branch has conflicts with ${pull.baseRef}; merge ${pull.baseRef} into it and resolve them.`,
      );
      return true;
    case 'held':
    case 'stale_head':
    case 'up_to_date':
      return true;
    case 'unknown':
      return false;
  }
}

/** Tide-style: every refusal is sorted on purpose; none is retried blindly. */
async function handleRefusal(
  engine: Engine,
  scope: RunScope,
  target: MergeTarget,
  status: number,
  message: string,
): Promise<boolean> {
  const verdict = classifyMergeError(status, message);
  const log = engine.log.child({
    run: scope.run.id,
    task: target.task.taskKey,
    pr: target.row.number,
  });
  log.warn({ status, kind: verdict.kind, reason: verdict.reason }, 'merge refused');
  switch (verdict.kind) {
    case 'reread':
      return true;
    case 'update_branch':
      // GitHub refused the App this update at this head already: a person's push comes first.
      if (updateRefusedAtHead(target.pull)) return false;
      return updateBranch(engine, scope, target, target.pull.headSha);
    case 'send_back':
      await sendBack(engine, scope, target, `GitHub cannot merge the PR: ${verdict.reason}`);
      return true;
    case 'already_merged': {
      const state = await scope.port.pull(scope.repo, target.row.number);
      if (state?.merged) await markTaskMerged(engine, scope, target.task.id, target.task.taskKey);
      return false;
    }
    case 'already_queued':
      await engine.store.runs.transitionTask(target.task.id, 'merge claimed');
      await setPull(engine, target.row.id, { enqueuedAt: engine.now() });
      return false;
    case 'retry_later':
    case 'blocked':
    case 'unknown':
      // The next event or sweep decides again on fresh state.
      return false;
  }
}

/**
 * No answer from GitHub (5xx after retries, a dropped connection): the merge may or may not have
 * happened. Give the `merging` claim back before the error propagates, so the retried delivery or
 * the sweep re-reads the PR and decides again; left in `merging`, the task would wait forever for
 * a `pull_request.closed` that never comes.
 */
async function giveBackOnError<T>(
  engine: Engine,
  task: TaskRow,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    await engine.store.runs.transitionTask(task.id, mergeReleased(task));
    throw error;
  }
}

async function setPull(
  engine: Engine,
  id: number,
  values: Partial<Omit<PullRow, 'id'>>,
): Promise<void> {
  await engine.store.pulls.update(id, values);
}
