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
  // Deliveries are handled several at a time: two at once (a PR opened, its worker run
  // completed) would each find no check on the head and create one, and a later veto would
  // fail only one of them while GitHub shows the other, newer one passing. So one write per
  // PR at a time, each deciding from the row as it is now.
  await engine.memory.orderCheckTurns.run(row.id, async () => {
    const now = (await engine.store.pulls.withTask(scope.repositoryId, row.number))?.pull;
    const current = now ?? row;
    if (current.orderCheckSha === row.headSha && current.orderCheckConclusion === signature) return;
    if (current.orderCheckSha === row.headSha && current.orderCheckRunId !== null) {
      await scope.port.updateCheckRun(scope.repo, current.orderCheckRunId, output);
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
  });
}
