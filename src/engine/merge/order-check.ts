import {
  ORDER_CHECK_NAME,
  orderCheck,
  type MergePull,
  type MergeTask,
} from '../../core/merge/index.js';
import type { PullRow } from '../../store/pulls.js';
import type { TaskRow } from '../../store/runs.js';
import type { Engine, RunScope } from '../context.js';
import { crashPoint } from '../../crash-points.js';

/** One `agent-coordinator/order` check run per head SHA, rewritten only when what it says changes. */
export async function ensureOrderCheck(
  engine: Engine,
  scope: RunScope,
  row: PullRow,
  task: TaskRow,
  tasks: MergeTask[],
  pulls: MergePull[],
): Promise<void> {
  const mergeTask = tasks.find((t) => t.taskId === task.taskKey);
  if (!mergeTask) return;
  const check = orderCheck(mergeTask, { tasks, pulls });
  const signature = `${check.status}:${check.conclusion ?? ''}:${check.title}`;
  if (row.orderCheckSha === row.headSha && row.orderCheckConclusion === signature) return;
  const output = {
    status: check.status,
    conclusion: check.conclusion,
    title: check.title,
    summary: check.summary,
  };
  // Merge decisions of a repository take turns (advanceRun), so `row` is as current as the
  // database knows it: no second writer can create the head's check meanwhile.
  if (row.orderCheckSha === row.headSha && row.orderCheckRunId !== null) {
    await scope.port.updateCheckRun(scope.repo, row.orderCheckRunId, output);
    await engine.store.pulls.update(row.id, { orderCheckConclusion: signature });
    return;
  }
  const created = await scope.port.createCheckRun(
    scope.repo,
    row.headSha,
    ORDER_CHECK_NAME,
    output,
  );
  crashPoint('merge.order-check-created');
  await engine.store.pulls.update(row.id, {
    orderCheckRunId: created.id,
    orderCheckSha: row.headSha,
    orderCheckConclusion: signature,
  });
}
