import { inMergeQueue, isOpenPull } from '../../core/lifecycle/index.js';
import {
  countedChecks,
  runStartersToRead,
  isOrderCheck,
  offRunBase,
  pullsNeedingGitHubView,
  type ApproverStanding,
  type HeldSlot,
  type MergePull,
  type MergeSnapshot,
  type MergeTask,
} from '../../core/merge/index.js';
import type { CheckInfo, PullState } from '../../github/port.js';
import type { MergeTurnView } from '../../store/merge-turns.js';
import type { RunGraph } from '../../store/runs.js';
import { runBaseOf, type Engine, type RunScope } from '../context.js';
import type { MergeTarget } from './merge-target.js';
import { readApprovers } from './approvers.js';
import { writersAmong } from '../roles.js';
import { settleRerun } from './failing-checks.js';

/** What one merge decision for a run is made on: the database's view, GitHub's where it counts. */
export interface MergeView {
  tasks: MergeTask[];
  /** The run's open agent PRs, in the order the database lists them. */
  targets: MergeTarget[];
  /** The branch the run merges into: core's `runBase`. */
  runBase: string;
  /** Base branch → whether PRs into it go through GitHub's merge queue. */
  mergeQueueByBase: Map<string, boolean>;
  /** Slots of the repository's base branches other runs hold (one pool per repository and base). */
  slotsHeldElsewhere: HeldSlot[];
  /**
   * The permission now of the approvers of PRs otherwise ready to merge or enter the queue (core's
   * approversToRead), by lower-cased login.
   */
  approvers: Map<string, ApproverStanding>;
  /**
   * The run's graph this view was made from, its PR rows as the view left them (the heads and
   * re-runs GitHub's view recorded): what the turn's stack decisions take when nothing acted.
   */
  graph: RunGraph;
}

/**
 * `opened`: the database's view as the merge turn read it, when it is this turn's first look;
 * `readNow`: PRs the caller read from GitHub just before (advanceRun), not read again.
 */
export async function gatherMergeView(
  engine: Engine,
  scope: RunScope,
  opened?: MergeTurnView,
  readNow?: readonly PullState[],
): Promise<MergeView> {
  const { run } = scope;
  const { graph, slotsHeldElsewhere } =
    opened ?? (await engine.store.mergeTurns.view(scope.repositoryId, run.id));
  const { tasks, depsOf: deps, pullOf } = graph;
  const mergeTasks: MergeTask[] = tasks.map((t) => ({
    taskId: t.taskKey,
    deps: deps.get(t.taskKey) ?? [],
    state: t.state,
    held: t.held,
    vetoReason: t.vetoReason ?? undefined,
    approvedSha: t.approvedSha ?? undefined,
    approvedBy: t.approvedBy ?? undefined,
    prNumber: t.prNumber ?? undefined,
    title: t.title,
    ...(t.stackParent !== null && { stackedOn: { parent: t.stackParent, pr: t.stackParentPr! } }),
  }));

  const stored: MergeTarget[] = [];
  for (const task of tasks) {
    // The PR the task points at; an earlier PR of the task (closed, replaced) has no say.
    const row = pullOf.get(task.id);
    if (!row || !isOpenPull(row)) continue;
    const pull: MergePull = {
      taskId: task.taskKey,
      number: row.number,
      headSha: row.headSha,
      baseRef: row.baseRef,
      mergeableState: 'unknown',
      mergeable: null,
      draft: false,
      checks: [],
      inMergeQueue: inMergeQueue(task.state, row.enqueuedAt),
      sentBackForSha: row.sentBackForSha ?? undefined,
      updatedByCoordinatorFrom: row.updatedByCoordinatorFrom ?? undefined,
      updateRefusedSha: row.updateRefusedSha ?? undefined,
      updateRefusedMessage: row.updateRefusedMessage ?? undefined,
    };
    stored.push({ row, task, nodeId: row.nodeId ?? '', pull, checks: [] });
  }
  const runBase = await runBaseOf(run, scope.port, scope.repo);
  // Only a PR that could move needs GitHub's view: asking GitHub for every PR on every event
  // would cost O(PRs²) calls across a run.
  const needView = pullsNeedingGitHubView({
    tasks: mergeTasks,
    pulls: stored.map((s) => s.pull),
    runBase,
    runHeld: run.held,
    requireApproval: scope.config.merge.requireApproval,
  });

  const targets: MergeTarget[] = [];
  for (const target of stored) {
    if (!needView.has(target.row.number)) {
      targets.push(target);
      continue;
    }
    const read = readNow?.find((p) => p.number === target.row.number);
    const fresh = await withGitHubView(engine, scope, target, read);
    if (fresh) targets.push(fresh);
  }

  // Only PRs into the run's base ever merge or enter a queue (core's `offRunBase`): another
  // base's queue is not asked about.
  const mergeQueueByBase = new Map<string, boolean>();
  for (const { pull } of targets) {
    if (mergeQueueByBase.has(pull.baseRef)) continue;
    const queue =
      offRunBase(pull, runBase) === undefined && (await usesMergeQueue(engine, scope, runBase));
    mergeQueueByBase.set(pull.baseRef, queue);
  }
  // Read last, once everything else that could hold a PR back is known.
  const unread = { tasks: mergeTasks, targets, runBase, mergeQueueByBase, slotsHeldElsewhere };
  const approvers = await readApprovers(engine, scope, baseSnapshots(scope, unread));
  // The rows GitHub's view wrote (a new head, a re-run settled) replace those read.
  const viewedPullOf = new Map(pullOf);
  for (const { row, task } of targets) viewedPullOf.set(task.id, row);
  return { ...unread, approvers, graph: { ...graph, pullOf: viewedPullOf } };
}

/**
 * What core decides each base branch's merges on: the run's base, and any other a PR targets (a
 * stacked child's parent branch, a retarget), whose PRs only wait or leave a queue. Without
 * `approvers`, no approver's permission is known yet.
 */
export function baseSnapshots(
  scope: RunScope,
  view: Pick<
    MergeView,
    'tasks' | 'targets' | 'runBase' | 'mergeQueueByBase' | 'slotsHeldElsewhere'
  > &
    Partial<Pick<MergeView, 'approvers'>>,
): MergeSnapshot[] {
  const { merge } = scope.config;
  return [...view.mergeQueueByBase].map(([base, mergeQueue]) => ({
    tasks: view.tasks,
    pulls: view.targets.filter((t) => t.pull.baseRef === base).map((t) => t.pull),
    runBase: view.runBase,
    runHeld: scope.run.held,
    requireApproval: merge.requireApproval,
    mergeQueue,
    mergeMethod: merge.method,
    slotsHeldElsewhere: view.slotsHeldElsewhere,
    ...(view.approvers && { approvers: view.approvers }),
  }));
}

/**
 * The PR as GitHub shows it now, with its checks; null once it is closed or merged. `read`: the
 * PR as the caller has just read it (one read of the PR per decision).
 */
async function withGitHubView(
  engine: Engine,
  scope: RunScope,
  { row, task, pull }: MergeTarget,
  read?: PullState,
): Promise<MergeTarget | null> {
  const current = read ?? (await scope.port.pull(scope.repo, row.number));
  if (!current || !isOpenPull(current)) return null;
  if (current.headSha !== row.headSha)
    await engine.store.pulls.update(row.id, { headSha: current.headSha });
  const checks = await checksOf(engine, scope, current.headSha);
  const rerunning = await settleRerun(engine, scope, row, current.headSha, checks);
  return {
    row: { ...row, headSha: current.headSha, checksRerunning: rerunning },
    task,
    checks,
    nodeId: current.nodeId,
    pull: {
      ...pull,
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
  };
}

/**
 * A head's checks that merges, re-runs, send-backs and stacks go by: those that count (core's
 * countedChecks: not the jobs of a fork's PR on the same commit), but the coordinator's own
 * order check. A head whose Actions jobs cannot be told apart decides nothing: an error.
 */
export async function checksOf(
  engine: Engine,
  scope: RunScope,
  head: string,
): Promise<CheckInfo[]> {
  const origins = engine.memory.actionsRunOrigins;
  const known = (suite: number) => origins.get(String(suite)) !== undefined;
  const { checks, actionsRuns } = await scope.port.checksFor(scope.repo, head, known);
  for (const run of actionsRuns) origins.set(String(run.checkSuiteId), run);
  const remembered = checks.flatMap((c) => {
    const run = c.checkSuiteId === null ? undefined : origins.get(String(c.checkSuiteId));
    return run ? [run] : [];
  });
  const runs = [...actionsRuns, ...remembered];
  // Only the App's runs and those of people with write access count (core's RunStarters).
  const appLogin = await engine.appLogin();
  const toRead = runStartersToRead(runs, scope.repositoryId, appLogin, checks);
  const writers = new Set([
    ...(await writersAmong(engine, scope.port, scope.repo, toRead.fresh, { fresh: true })),
    ...(await writersAmong(engine, scope.port, scope.repo, toRead.cached, { fresh: false })),
  ]);
  const verdict = countedChecks(
    checks,
    runs,
    scope.repositoryId,
    { appLogin, writers },
    scope.config.worker.workflow,
  );
  if (!verdict.ok) throw new Error(`the checks on ${head} cannot be told apart: ${verdict.why}`);
  return verdict.counted.filter((c) => !isOrderCheck(c));
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
