import {
  ORDER_CHECK_NAME,
  orderCheck,
  orderCheckSignature,
  orderCheckWrite,
  type MergePull,
  type OrderCheck,
  type MergeTask,
} from '../../core/merge/index.js';
import type { PullRow } from '../../store/pulls.js';
import type { OrderCheckRecord, TaskRow } from '../../store/runs.js';
import type { RunScope } from '../context.js';
import { crashPoint } from '../../crash-points.js';

/** An order check written to GitHub: the PR row's record of it, and what it says now. */
export interface WrittenOrderCheck {
  record: OrderCheckRecord;
  check: OrderCheck;
}

/**
 * One `agent-coordinator/order` check run per head SHA, rewritten only when what it says changes.
 * Returns what was written when GitHub was called, for the caller to record: with the PR's
 * merge claim when there is one (one statement), else at once (`recordOrderCheck`).
 */
export async function ensureOrderCheck(
  scope: RunScope,
  row: PullRow,
  task: TaskRow,
  tasks: MergeTask[],
  pulls: MergePull[],
): Promise<WrittenOrderCheck | undefined> {
  const mergeTask = tasks.find((t) => t.taskId === task.taskKey);
  if (!mergeTask) return undefined;
  const check = orderCheck(mergeTask, row.headSha, {
    tasks,
    pulls,
    requireApproval: scope.config.merge.requireApproval,
    runHeld: scope.run.held,
  });
  const signature = orderCheckSignature(check);
  const write = orderCheckWrite(
    {
      sha: row.orderCheckSha,
      signature: row.orderCheckConclusion,
      checkRunId: row.orderCheckRunId,
    },
    row.headSha,
    check,
  );
  if (write.kind === 'none') return undefined;
  const output = {
    status: check.status,
    conclusion: check.conclusion,
    title: check.title,
    summary: check.summary,
  };
  // Merge decisions of a repository take turns (advanceRun), so `row` is as current as the
  // database knows it: no second writer can create the head's check meanwhile.
  if (write.kind === 'update') {
    await scope.port.updateCheckRun(scope.repo, write.checkRunId, output);
    return { record: record(row, write.checkRunId, signature), check };
  }
  const created = await scope.port.createCheckRun(
    scope.repo,
    row.headSha,
    ORDER_CHECK_NAME,
    output,
  );
  crashPoint('merge.order-check-created');
  return { record: record(row, created.id, signature), check };
}

function record(row: PullRow, checkRunId: number, conclusion: string): OrderCheckRecord {
  return { pullId: row.id, checkRunId, sha: row.headSha, conclusion };
}
