import type { RepoConfig } from '../config/schema.js';
import { isOpenPull, isTaskMerged, NO_APPROVAL } from '../core/lifecycle/index.js';
import {
  checksLetStack,
  decideStacks,
  parentMovesToCheck,
  stackParentHeads,
  type ParentRewritten,
  type StackDecision,
  type StackPull,
  type StackTask,
} from '../core/stack/index.js';
import { crashPoint } from '../crash-points.js';
import { taskBranch } from '../protocol/branch.js';
import type { PullRow } from '../store/pulls.js';
import type { RunGraph, TaskRow } from '../store/runs.js';
import { runBaseOf, type Engine, type RunScope } from './context.js';
import { scheduleRepository } from './dispatch.js';
import { cancelLatestAttempt } from './cancel-attempt.js';
import { clearApproval } from './approval.js';
import { checksOf } from './merge/gather.js';
import { sendBack } from './merge/outcomes.js';
import { updatePullBranch } from './update-branch.js';

/** `dispatch.stack` as the run's config says it (a run started before the key has none). */
export function stacksOn(config: RepoConfig): boolean {
  return (config.dispatch as RepoConfig['dispatch'] | undefined)?.stack === true;
}

/**
 * `dispatch.stack` (docs/stacking.md): read the run's graph, ask GitHub for the checks of the
 * PRs a pending task could stack on (those only), let core decide, and apply each decision. The
 * merge turn calls it after the merge decisions, so a repository's stacks move one at a time;
 * `known`: the graph as the turn read it, when its merge decisions changed nothing since (one
 * read of the run per turn).
 */
export async function advanceStacks(
  engine: Engine,
  scope: RunScope,
  known?: RunGraph,
): Promise<void> {
  if (!stacksOn(scope.config)) return;
  const graph = known ?? (await engine.store.runs.graphOf(scope.run.id));
  const tasks: StackTask[] = graph.tasks.map((t) => ({
    taskId: t.taskKey,
    deps: graph.depsOf.get(t.taskKey) ?? [],
    state: t.state,
    held: t.held,
    vetoed: t.vetoReason !== null,
    attempts: t.attemptCount,
    approved: t.approvedSha !== null,
    ...(t.stackParent !== null && {
      stackedOn: { parent: t.stackParent, pr: t.stackParentPr!, head: t.stackParentHead! },
    }),
  }));
  const pulls: StackPull[] = graph.tasks.flatMap((t) => {
    const row = graph.pullOf.get(t.id);
    return row && isOpenPull(row)
      ? [
          {
            taskId: t.taskKey,
            number: row.number,
            headSha: row.headSha,
            baseRef: row.baseRef,
            ...updateFields(row),
            ...(row.updateRefusedSha !== null && { updateRefusedSha: row.updateRefusedSha }),
          },
        ]
      : [];
  });
  const greenHeads = new Set<string>();
  for (const head of stackParentHeads({ tasks, pulls })) {
    if (checksLetStack(await checksOf(engine, scope, head))) greenHeads.add(head);
  }
  const base = await runBaseOf(scope.run, scope.port, scope.repo);
  const snapshot = {
    base,
    branchOf: (id: string) => taskBranch(scope.run.issueNumber, id),
    tasks,
    pulls,
    greenHeads,
  };
  const decisions = decideStacks({
    ...snapshot,
    droppedParentHeads: await droppedParentHeads(scope, parentMovesToCheck(snapshot)),
    mergedHeads: mergedHeads(graph),
  });
  for (const decision of decisions) await applyStack(engine, scope, graph, decision);
  if (decisions.some((d) => d.kind === 'permit'))
    await scheduleRepository(engine, scope.repositoryId, scope.repository);
}

/**
 * The recorded parent heads a restack would move past that the parent's head no longer holds (a
 * person rewrote the parent's branch): one comparison per move, only where a restack is due.
 */
async function droppedParentHeads(
  scope: RunScope,
  moves: Array<{ from: string; to: string }>,
): Promise<Set<string>> {
  const dropped = new Set<string>();
  const asked = new Set<string>();
  for (const { from, to } of moves) {
    if (asked.has(`${from}..${to}`)) continue;
    asked.add(`${from}..${to}`);
    if (!(await scope.port.holdsCommit(scope.repo, to, from))) dropped.add(from);
  }
  return dropped;
}

/**
 * Each merged task's PR head: the head it merged at, as GitHub showed the closed PR (a person's
 * merge), or as the coordinator read it for its own merge, guarded by that head (merge/gather.ts).
 */
function mergedHeads(
  graph: RunGraph,
): Map<string, { head: string; updatedFrom?: string; updatedTo?: string }> {
  const heads = new Map<string, { head: string; updatedFrom?: string; updatedTo?: string }>();
  for (const t of graph.tasks) {
    const row = graph.pullOf.get(t.id);
    if (isTaskMerged(t.state) && row)
      heads.set(t.taskKey, {
        head: row.headSha,
        ...updateFields(row),
      });
  }
  return heads;
}

/** The coordinator's last update of the PR's branch, as its row records it (StackPull). */
function updateFields(row: PullRow): { updatedFrom?: string; updatedTo?: string } {
  return {
    ...(row.updatedByCoordinatorFrom !== null && { updatedFrom: row.updatedByCoordinatorFrom }),
    ...(row.updatedByCoordinatorTo !== null && { updatedTo: row.updatedByCoordinatorTo }),
  };
}

const UNSTACKED = { stackParent: null, stackParentPr: null, stackParentHead: null };

async function applyStack(
  engine: Engine,
  scope: RunScope,
  graph: RunGraph,
  decision: StackDecision,
): Promise<void> {
  const task = graph.byKey.get(decision.task);
  if (!task) return;
  const row = graph.pullOf.get(task.id);
  const { runs } = engine.store;
  const log = engine.log.child({ run: scope.run.id, task: task.taskKey });
  switch (decision.kind) {
    case 'permit':
      // Guarded by the state: a task claimed meanwhile keeps the permit it was claimed with.
      await runs.updateTaskFields(
        task.id,
        {
          stackParent: decision.on.parent,
          stackParentPr: decision.on.pr,
          stackParentHead: decision.on.head,
        },
        { expected: 'pending' },
      );
      crashPoint('stack.permitted');
      log.info({ on: decision.on }, 'stack: may start on its dependency’s PR');
      return;

    case 'revoke':
      await runs.updateTaskFields(task.id, UNSTACKED, { expected: task.state });
      return;

    case 'restack': {
      if (!row) return;
      const child = await tellParentRewritten(engine, scope, task, row, decision.parentRewritten);
      if (!child) return;
      const updated = await updateChild(engine, scope, child, row, decision.expectedHeadSha, {
        baseHead: decision.parentHead,
      });
      if (updated === 'updated') crashPoint('stack.restacked');
      // Not brought up to date: the parent's new head is recorded once the child holds it.
      if (updated === 'conflict' || updated === 'held' || updated === 'later') return;
      await runs.updateTaskFields(
        task.id,
        { stackParentHead: decision.parentHead },
        { expected: child.state },
      );
      log.info({ parentHead: decision.parentHead }, 'stack: brought up to date with its parent');
      return;
    }

    case 'keep':
      await runs.updateTaskFields(
        task.id,
        { stackParentHead: decision.parentHead },
        { expected: task.state },
      );
      return;

    case 'retarget': {
      if (!row) return;
      const child = await tellParentRewritten(
        engine,
        scope,
        task,
        row,
        decision.parentMergedUnseen,
      );
      if (!child) return;
      // After the parent's merge GitHub may have retargeted the PR itself (it deletes the merged
      // branch under "Automatically delete head branches"): a read then saves a content write.
      const current = decision.unstacks ? await scope.port.pull(scope.repo, decision.pr) : null;
      if (current && !isOpenPull(current)) return;
      const retargeted = current?.baseRef === decision.to;
      if (!retargeted && !(await scope.port.changePullBase(scope.repo, decision.pr, decision.to)))
        return;
      crashPoint('stack.retargeted');
      await engine.store.pulls.update(row.id, { baseRef: decision.to });
      if (decision.update)
        await updateChild(engine, scope, child, row, decision.expectedHeadSha, {
          base: decision.to,
        });
      if (decision.unstacks)
        await runs.updateTaskFields(task.id, UNSTACKED, { expected: child.state });
      log.info({ pr: decision.pr, base: decision.to }, 'stack: PR retargeted');
      return;
    }

    case 'unstack': {
      const child = row
        ? await tellParentRewritten(engine, scope, task, row, decision.parentMergedUnseen)
        : task;
      if (!child) return;
      if (row && decision.expectedHeadSha !== undefined)
        await updateChild(engine, scope, child, row, decision.expectedHeadSha);
      await runs.updateTaskFields(task.id, UNSTACKED, { expected: child.state });
      return;
    }

    case 'cancel':
      await cancelStacked(engine, scope, task, row, decision);
      return;
  }
}

/**
 * A person rewrote the parent's branch (core's decideParentRewritten, before a restack), or the
 * parent merged at a head the child never took in (decideParentMergedUnseen, before a retarget or
 * unstack): applied before the child's update, so that the update's push carries no approval
 * (decidePush), and before the stack is forgotten, so that a crash decides it again. The PR is
 * told once per parent head (a marker comment, found again before it is posted). Returns the
 * child as it is afterwards (as it was, with nothing to tell), or undefined when it moved meanwhile.
 */
async function tellParentRewritten(
  engine: Engine,
  scope: RunScope,
  task: TaskRow,
  row: PullRow,
  rewritten: ParentRewritten | undefined,
): Promise<TaskRow | undefined> {
  if (!rewritten) return task;
  const child = rewritten.withdrawApproval
    ? await clearApproval(engine, task, rewritten.withdrawApproval.move)
    : task;
  const { marker, body } = rewritten.comment;
  if (!(await scope.port.findAppComment(scope.repo, row.number, marker)))
    await scope.port.createIssueComment(scope.repo, row.number, body);
  crashPoint('stack.parent-rewritten-told');
  engine.requestStatus(scope.run.id);
  engine.log.warn(
    { run: scope.run.id, task: task.taskKey, from: rewritten.from, to: rewritten.to },
    'stack: the parent’s branch was rewritten, or merged at a head the child never took in',
  );
  return child;
}

/**
 * The coordinator's update of the child's PR: its base (or the parent's head a restack decided on)
 * merged into its head. The push it makes is the coordinator's own: it keeps the approval
 * (decidePush). A conflict of the child's head goes back to the worker in `mode=fix`; a branch that
 * holds what it was to take in already (GitHub's 204) counts as updated; a push GitHub refuses the
 * App (a workflow file's change) waits for a person, its approval void (update-branch.ts).
 */
async function updateChild(
  engine: Engine,
  scope: RunScope,
  task: TaskRow,
  row: PullRow,
  expectedHeadSha: string,
  {
    base = row.baseRef,
    baseHead,
  }: {
    base?: string;
    /** The base's head as the decision saw it (a restack's parent head), else the base's now. */
    baseHead?: string;
  } = {},
): Promise<'updated' | 'up_to_date' | 'conflict' | 'held' | 'later'> {
  const update = await updatePullBranch(engine, scope, { row, task }, expectedHeadSha, {
    base,
    ...(baseHead !== undefined && { with: baseHead }),
    stacked: true,
  });
  switch (update.kind) {
    case 'updated':
    case 'up_to_date':
    case 'held':
      return update.kind;
    case 'stale_head':
    case 'unknown':
      return 'later';
    case 'conflict':
      await sendBack(
        engine,
        scope,
        { row, task, pull: { headSha: expectedHeadSha } },
        `The branch has conflicts with ${base}, which it is stacked on; merge ${base} into it and resolve them.`,
      );
      return 'conflict';
  }
}

/**
 * The parent will not merge: cancel the child's worker run, point its PR at the base, forget
 * the stack, take back its approval (core says when), and block it until the parent is retried
 * (then it is dispatched again, from the base once the parent merged, its next attempt a `work`
 * that starts over).
 */
async function cancelStacked(
  engine: Engine,
  scope: RunScope,
  task: TaskRow,
  row: PullRow | undefined,
  decision: Extract<StackDecision, { kind: 'cancel' }>,
): Promise<void> {
  const why = `the dependency it was stacked on (${decision.parent}) will not merge`;
  await cancelLatestAttempt(engine, scope, task, why);
  if (row && decision.retargetTo !== undefined) {
    if (await scope.port.changePullBase(scope.repo, row.number, decision.retargetTo))
      await engine.store.pulls.update(row.id, { baseRef: decision.retargetTo });
  }
  // A crash here leaves the record: the cancel is decided again, and what is done is not redone.
  crashPoint('stack.cancelled');
  const values = {
    ...UNSTACKED,
    ...(decision.withdrawApproval && NO_APPROVAL),
    nextMode: 'work',
    nextAttemptAt: null,
  };
  const moved = await engine.store.runs.transitionTask(task.id, 'stack cancelled', values);
  // Already blocked (its parent blocked it while it waited): the stack is forgotten all the same.
  if (!moved) await engine.store.runs.updateTaskFields(task.id, values, { expected: task.state });
  engine.requestStatus(scope.run.id);
  engine.log.info({ run: scope.run.id, task: task.taskKey, why }, 'stack: cancelled');
}
