import {
  closedPullKeepsOrderCheck,
  decideMerges,
  viewPredatesPassingOrderCheck,
  type MergeDecision,
} from '../../core/merge/index.js';
import type { MergeTurnView } from '../../store/merge-turns.js';
import type { OrderCheckRecord, RunGraph } from '../../store/runs.js';
import type { PullState } from '../../github/port.js';
import { timeDecision, type Engine, type RunScope } from '../context.js';
import { act } from './act.js';
import { baseSnapshots, gatherMergeView } from './gather.js';
import { ensureOrderCheck } from './order-check.js';
import { advanceStacks } from '../stack.js';
import { spendLostUpdates } from '../update-branch.js';

export { markTaskMerged, sendBack } from './outcomes.js';

/**
 * Re-read the run's open agent PRs from GitHub, keep their order checks current, decide, and
 * act: one action per PR (Tide's sync loop). Webhooks and the sweep both call it. `readNow`: PRs
 * the caller has just read from GitHub (`GitHubPort.pull`) on the way here; the first decision
 * takes them as GitHub's view instead of reading them again.
 */
export async function advanceRun(
  engine: Engine,
  scope: RunScope,
  readNow?: readonly PullState[],
): Promise<void> {
  // A base branch is one pool per repository: two runs deciding at once would each see the
  // slot free and both merge (the other PR is then behind), and two deliveries for one run would
  // each create the order check of a new head. So the repository's merge decisions take turns:
  // in this process first (a waiting turn holds no pooled connection), then across processes.
  await timeDecision(engine, 'merge', () =>
    engine.memory.repositoryMergeTurns.run(scope.repositoryId, () =>
      engine.store.mergeTurns.take(scope.repositoryId, scope.run.id, async (opened) => {
        const graph = await spendLostUpdates(engine, opened.graph);
        const unchanged = await advanceOnce(engine, scope, 0, { ...opened, graph }, readNow);
        await advanceStacks(engine, scope, unchanged);
      }),
    ),
  );
}

/**
 * `opened` and `readNow`: the turn's first reads; a decision again after acting reads afresh.
 * Returns the run's graph as the last decision read it when no decision acted on it since (every
 * PR waits), for the turn's stack decisions to take instead of reading it again; undefined
 * when one acted (a merge, an update, a send-back changes the rows they read).
 */
async function advanceOnce(
  engine: Engine,
  scope: RunScope,
  depth: number,
  opened?: MergeTurnView,
  readNow?: readonly PullState[],
): Promise<RunGraph | undefined> {
  const view = await gatherMergeView(engine, scope, opened, readNow);
  const pulls = view.targets.map((t) => t.pull);
  const orderChecks = new Map<number, OrderCheckRecord>();
  let stale = false;
  for (const { row, task, pull } of view.targets) {
    const written = await ensureOrderCheck(scope, row, task, view.tasks, pulls);
    if (!written) continue;
    orderChecks.set(row.number, written.record);
    stale ||= viewPredatesPassingOrderCheck(written.check, pull.mergeableState);
  }
  // A closed PR is no target, but reopened it merges by its head's check: kept current all
  // the same, recorded at once (it is never merged from here).
  for (const task of view.graph.tasks) {
    const row = view.graph.pullOf.get(task.id);
    if (!row || !closedPullKeepsOrderCheck(row)) continue;
    const written = await ensureOrderCheck(scope, row, task, view.tasks, pulls);
    if (written) await engine.store.runs.recordOrderCheck(written.record);
  }
  // An order check passed just now (an approval, the last dependency merged) on a PR GitHub
  // showed `blocked` before: decide on GitHub's view again. Once per head state: a check that
  // passes is not written again.
  if (stale && depth < 2) {
    for (const check of orderChecks.values()) await engine.store.runs.recordOrderCheck(check);
    return advanceOnce(engine, scope, depth + 1);
  }

  const decisions: MergeDecision[] = baseSnapshots(scope, view).flatMap((snapshot) =>
    decideMerges(snapshot),
  );

  // A PR's merge claim records its order check in the same statement; every other record is
  // written now, before anything else is asked of GitHub.
  const carried = new Map<number, OrderCheckRecord>();
  for (const { kind, pr } of decisions) {
    const check = orderChecks.get(pr);
    if (!check || (kind !== 'merge' && kind !== 'enqueue')) continue;
    carried.set(pr, check);
    orderChecks.delete(pr);
  }
  for (const check of orderChecks.values()) await engine.store.runs.recordOrderCheck(check);

  let reread = false;
  for (const decision of decisions) {
    const target = view.targets.find((t) => t.pull.number === decision.pr);
    if (!target) continue;
    reread = (await act(engine, scope, decision, target, carried.get(decision.pr))) || reread;
  }
  if (reread && depth < 2) return advanceOnce(engine, scope, depth + 1);
  // Order checks recorded alone change only what no stack decision reads.
  return decisions.every((d) => d.kind === 'wait') ? view.graph : undefined;
}
