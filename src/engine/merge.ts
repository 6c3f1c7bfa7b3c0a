import { LOCK_KEYS } from '../store/lock-keys.js';
import {
  classifyMergeError,
  decideMerges,
  ORDER_CHECK_NAME,
  orderCheck,
  pullsNeedingGitHubView,
  type MergeDecision,
  type MergePull,
  type MergeTask,
} from '../core/merge/index.js';
import { afterSendBack } from '../core/lifecycle/index.js';
import type { TaskMove } from '../core/transitions.js';
import type { PullRow } from '../store/pulls.js';
import type { TaskRow } from '../store/runs.js';
import { timeDecision, type Engine, type RunScope } from './context.js';
import { scheduleRepository } from './dispatch.js';
import { failTaskForGood } from './failures.js';
import { settleRun } from './finish.js';
import { crashPoint } from '../crash-points.js';

/**
 * Re-read the run's open agent PRs from GitHub, keep their order checks current, decide, and
 * act: one action per PR (Tide's sync loop, for one run). Webhooks and the sweep both call it.
 */
export async function advanceRun(engine: Engine, scope: RunScope): Promise<void> {
  // Two deliveries, two processes or the sweep deciding for one run at once would each create
  // the order check of a new head (two check runs, the stale one possibly last) and act on
  // snapshots the other is changing: decisions for a run take turns, across processes.
  await timeDecision(engine, 'merge', () =>
    engine.store.handle.withLock(LOCK_KEYS.runMerges(scope.run.id), () =>
      advanceOnce(engine, scope, 0),
    ),
  );
}

async function advanceOnce(engine: Engine, scope: RunScope, depth: number): Promise<void> {
  const { run } = scope;
  const [{ tasks, depsOf: deps }, pulls] = await Promise.all([
    engine.store.runs.graphOf(run.id),
    engine.store.pulls.ofRun(run.id),
  ]);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const mergeTasks: MergeTask[] = tasks.map((t) => ({
    taskId: t.taskKey,
    deps: deps.get(t.taskKey) ?? [],
    state: t.state,
    held: t.held,
    vetoReason: t.vetoReason ?? undefined,
    approvedSha: t.approvedSha ?? undefined,
    prNumber: t.prNumber ?? undefined,
    title: t.title,
  }));

  const stored: Array<{ row: PullRow; task: TaskRow; pull: MergePull }> = [];
  for (const row of pulls) {
    const task = row.taskId === null ? undefined : byId.get(row.taskId);
    if (!task || row.state !== 'open' || task.prNumber !== row.number) continue;
    const fromDb: MergePull = {
      taskId: task.taskKey,
      number: row.number,
      headSha: row.headSha,
      baseRef: row.baseRef,
      mergeableState: 'unknown',
      mergeable: null,
      draft: false,
      checks: [],
      inMergeQueue: task.state === 'merging' && row.enqueuedAt !== null,
      sentBackForSha: row.sentBackForSha ?? undefined,
    };
    stored.push({ row, task, pull: fromDb });
  }
  const needView = pullsNeedingGitHubView({
    tasks: mergeTasks,
    pulls: stored.map((s) => s.pull),
    runHeld: run.held,
    requireApproval: scope.config.merge.requireApproval,
  });

  const live: Array<{ row: PullRow; task: TaskRow; pull: MergePull; nodeId: string }> = [];
  for (const { row, task, pull: fromDb } of stored) {
    if (!needView.has(row.number)) {
      live.push({ row, task, nodeId: row.nodeId ?? '', pull: fromDb });
      continue;
    }
    const current = await scope.port.pull(scope.repo, row.number);
    if (!current || current.state !== 'open' || current.merged) continue;
    if (current.headSha !== row.headSha)
      await setPull(engine, row.id, { headSha: current.headSha });
    const checks = (await scope.port.checksFor(scope.repo, current.headSha)).filter(
      (c) => c.name !== ORDER_CHECK_NAME,
    );
    live.push({
      row: { ...row, headSha: current.headSha },
      task,
      nodeId: current.nodeId,
      pull: {
        ...fromDb,
        headSha: current.headSha,
        baseRef: current.baseRef,
        mergeableState: current.mergeableState,
        mergeable: current.mergeable,
        draft: current.draft,
        checks: checks.map((c) => ({
          name: c.name,
          status: c.status as MergePull['checks'][number]['status'],
          conclusion: c.conclusion,
        })),
      },
    });
  }

  for (const { row, task } of live)
    await ensureOrderCheck(
      engine,
      scope,
      row,
      task,
      mergeTasks,
      live.map((l) => l.pull),
    );

  const queueBases = new Map<string, boolean>();
  for (const { pull } of live) {
    if (!queueBases.has(pull.baseRef))
      queueBases.set(pull.baseRef, await usesMergeQueue(engine, scope, pull.baseRef));
  }
  // Runs rarely mix bases; when they do, decide per base so each gets the right merge path.
  const decisions: MergeDecision[] = [];
  for (const [base, mergeQueue] of queueBases) {
    decisions.push(
      ...decideMerges({
        tasks: mergeTasks,
        pulls: live.filter((l) => l.pull.baseRef === base).map((l) => l.pull),
        runHeld: run.held,
        requireApproval: scope.config.merge.requireApproval,
        mergeQueue,
        mergeMethod: scope.config.merge.method,
      }),
    );
  }

  let reread = false;
  for (const decision of decisions) {
    const target = live.find((l) => l.pull.number === decision.pr);
    if (!target) continue;
    const again = await act(engine, scope, decision, target);
    reread ||= again;
  }
  if (reread && depth < 2) await advanceOnce(engine, scope, depth + 1);
}

async function act(
  engine: Engine,
  scope: RunScope,
  decision: MergeDecision,
  target: { row: PullRow; task: TaskRow; nodeId: string; pull: MergePull },
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
      const claimed = await engine.store.runs.transitionTask(task.id, 'merge claimed');
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
      await engine.store.runs.transitionTask(task.id, release(task));
      return handleRefusal(engine, scope, target, result.status, result.message);
    }

    case 'enqueue': {
      const claimed = await engine.store.runs.transitionTask(task.id, 'merge claimed');
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
      await engine.store.runs.transitionTask(task.id, release(task));
      return handleRefusal(engine, scope, target, 200, result.message);
    }

    case 'dequeue':
      await scope.port.dequeuePullRequest(target.nodeId);
      await setPull(engine, row.id, { enqueuedAt: null });
      await engine.store.runs.transitionTask(task.id, release(task));
      log.info({ reason: decision.reason }, 'removed from the merge queue');
      return false;

    case 'update_branch': {
      const updated = await scope.port.updateBranch(
        scope.repo,
        row.number,
        decision.expectedHeadSha,
      );
      if (updated) {
        // Our own update of an approved branch keeps its approval (docs/lifecycle.md step 8).
        await setPull(engine, row.id, { updatedByCoordinatorFrom: decision.expectedHeadSha });
        log.info('branch was behind its base; updated');
        return false;
      }
      await sendBack(
        engine,
        scope,
        target,
        `The branch has conflicts with ${target.pull.baseRef}; merge ${target.pull.baseRef} into it and resolve them.`,
      );
      return false;
    }

    case 'send_back_to_worker':
      await sendBack(engine, scope, target, decision.feedback);
      return false;
  }
}

/** Tide-style: every refusal is sorted on purpose; none is retried blindly. */
async function handleRefusal(
  engine: Engine,
  scope: RunScope,
  target: { row: PullRow; task: TaskRow; nodeId: string; pull: MergePull },
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
      if (await scope.port.updateBranch(scope.repo, target.row.number, target.pull.headSha)) {
        await setPull(engine, target.row.id, { updatedByCoordinatorFrom: target.pull.headSha });
      } else {
        await sendBack(
          engine,
          scope,
          target,
          `The branch has conflicts with ${target.pull.baseRef}; merge it in and resolve them.`,
        );
      }
      return false;
    case 'send_back':
      await sendBack(engine, scope, target, `GitHub cannot merge the PR: ${verdict.reason}`);
      return false;
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

/** Conflicts or failing checks go back to the worker in mode=fix, once per head, within retries.max. */
export async function sendBack(
  engine: Engine,
  scope: RunScope,
  target: { row: PullRow; task: TaskRow; pull: Pick<MergePull, 'headSha'> },
  feedback: string,
): Promise<void> {
  const { task, row } = target;
  await setPull(engine, row.id, { sentBackForSha: target.pull.headSha, enqueuedAt: null });
  const verdict = afterSendBack(task.attemptCount, scope.config.retries, feedback);
  if (verdict.kind === 'fail') {
    await failTaskForGood(engine, scope, task.id, verdict.reason, null);
    return;
  }
  const moved = await engine.store.runs.transitionTask(task.id, 'sent back', {
    nextMode: 'fix',
    pendingFeedback: feedback,
    nextAttemptAt: null,
  });
  if (!moved) return;
  engine.log.info(
    { run: scope.run.id, task: task.taskKey, pr: row.number, feedback },
    'sent back to the worker',
  );
  await scheduleRepository(engine, scope.repositoryId);
}

/** Merged (by us, the queue, or a person): dependents become ready, the run may be done. */
export async function markTaskMerged(
  engine: Engine,
  scope: RunScope,
  taskId: number,
  taskKey: string,
): Promise<boolean> {
  const merged = await engine.store.runs.transitionTask(taskId, 'merged');
  if (!merged) {
    // Seen merged before: if closing out the run failed then, this retried event finishes it.
    if ((await engine.store.runs.taskById(taskId))?.state === 'merged') {
      // And if the process died before freeing the dependents, they are freed now.
      await engine.store.runs.decrementDependents(scope.run.id, taskKey);
      await scheduleRepository(engine, scope.repositoryId);
    }
    await settleRun(engine, scope);
    return false;
  }
  crashPoint('merge.task-merged');
  await engine.store.runs.decrementDependents(scope.run.id, taskKey);
  crashPoint('merge.dependents-freed');
  engine.log.info(
    { run: scope.run.id, issue: scope.run.issueNumber, task: taskKey },
    'task merged',
  );
  engine.requestStatus(scope.run.id);
  await scheduleRepository(engine, scope.repositoryId);
  await settleRun(engine, scope);
  return true;
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
    await engine.store.runs.transitionTask(task.id, release(task));
    throw error;
  }
}

/** A claim given back: the task waits in the state it was claimed from (approved when unknown). */
function release(task: TaskRow): TaskMove {
  return { event: 'merge released', to: task.state === 'in_review' ? 'in_review' : 'approved' };
}

async function usesMergeQueue(engine: Engine, scope: RunScope, base: string): Promise<boolean> {
  const setting = scope.config.merge.useMergeQueue;
  if (setting === 'never') return false;
  if (setting === 'always') return true;
  // Merge queue detection is a GraphQL call: the engine remembers the answer for a while.
  const key = `${scope.repositoryId}:${base}`;
  const hit = engine.memory.mergeQueues.get(key);
  if (hit !== undefined) return hit;
  const value = await scope.port.hasMergeQueue(scope.repo, base);
  engine.memory.mergeQueues.set(key, value);
  return value;
}

/** One `agent-coordinator/order` check run per head SHA, rewritten only when what it says changes. */
async function ensureOrderCheck(
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
      await setPull(engine, row.id, { orderCheckConclusion: signature });
      return;
    }
    const created = await scope.port.createCheckRun(
      scope.repo,
      row.headSha,
      ORDER_CHECK_NAME,
      output,
    );
    crashPoint('merge.order-check-created');
    await setPull(engine, row.id, {
      orderCheckRunId: created.id,
      orderCheckSha: row.headSha,
      orderCheckConclusion: signature,
    });
  });
}

async function setPull(
  engine: Engine,
  id: number,
  values: Partial<Omit<PullRow, 'id'>>,
): Promise<void> {
  await engine.store.pulls.update(id, values);
}
