import { isOpenPull, type BranchUpdate } from '../core/lifecycle/index.js';
import {
  classifyUpdateRefusal,
  decideUpdateAnswer,
  decideUpdateHold,
  refusalNeedsPull,
  type BranchMergeRefusal,
  type UpdateRefusal,
} from '../core/merge/index.js';
import { crashPoint } from '../crash-points.js';
import type { PullRow } from '../store/pulls.js';
import type { RunGraph, TaskRow } from '../store/runs.js';
import { clearApproval } from './approval.js';
import type { Engine, RunScope } from './context.js';

export type UpdateOutcome =
  | { kind: 'updated' }
  /** The branch holds what it was to be brought up to date with already (GitHub's 204). */
  | { kind: 'up_to_date' }
  /** GitHub refused the App the update's push (a 403): the PR waits for a person at this head. */
  | { kind: 'held' }
  | Exclude<UpdateRefusal, { kind: 'needs_person' }>;

/**
 * The coordinator's update of an agent PR's branch: GitHub merges what it is brought up to date
 * with into it (`POST /repos/{o}/{r}/merges`), for the merge path (merge/act.ts) and stacking
 * (stack.ts), which each handle a conflict their way. A 403 is handled here for both
 * (holdForPerson). `base`: the branch the update brings in, as the caller knows it (a retarget has
 * just changed it); `with`: the commit of it to merge (the parent's head a restack decided on),
 * else the branch's head as GitHub has it; `stacked`: the PR is a stacked child's.
 *
 * docs/lifecycle.md step 8: the update's push keeps the approval, and only that push. GitHub
 * answers with the merge commit it made, so the coordinator knows which commit is its own; a
 * commit anyone else pushes, a merge of the base into the approved head included, is new work.
 * The update is recorded as asked before GitHub is asked, and its answer once it is in, within
 * the repository's merge turn: a push from the head it started from, handled before the answer is
 * recorded, waits for the turn to end (track.ts), and until the push is handled no other PR into
 * the same base is updated (merge-pool.ts).
 */
export async function updatePullBranch(
  engine: Engine,
  scope: RunScope,
  target: { row: PullRow; task: TaskRow },
  expectedHeadSha: string,
  options: { base: string; with?: string; stacked: boolean },
): Promise<UpdateOutcome> {
  const { row } = target;
  const { pulls } = engine.store;
  await pulls.recordUpdateAsked(row.id, expectedHeadSha);
  crashPoint('merge.update-asked');
  let answer;
  try {
    answer = await scope.port.mergeIntoBranch(scope.repo, {
      into: row.headRef,
      head: options.with ?? options.base,
      message: `Merge branch '${options.base}' into ${row.headRef}`,
    });
  } catch (error) {
    // No answer: whatever GitHub made, its push is taken for new work.
    await pulls.recordUpdateAnswer(row.id, expectedHeadSha, null);
    throw error;
  }
  const meant = decideUpdateAnswer(expectedHeadSha, answer);
  if (meant.kind === 'updated') crashPoint('merge.branch-merged');
  await pulls.recordUpdateAnswer(
    row.id,
    expectedHeadSha,
    meant.kind === 'updated' ? meant.to : null,
  );
  switch (meant.kind) {
    case 'updated':
    case 'up_to_date':
      return { kind: meant.kind };
    case 'merged_other_head':
      engine.log.info(
        { run: scope.run.id, task: target.task.taskKey, pr: row.number, parents: meant.parents },
        "merged into the branch after a push moved its head: the merge is that push's work",
      );
      return { kind: 'stale_head' };
    case 'refused':
      return refused(engine, scope, target, expectedHeadSha, options, meant.refusal);
  }
}

/** A refused update: a 403 holds the PR for a person; the rest is for the caller to sort. */
async function refused(
  engine: Engine,
  scope: RunScope,
  target: { row: PullRow; task: TaskRow },
  expectedHeadSha: string,
  options: { base: string; stacked: boolean },
  answer: BranchMergeRefusal,
): Promise<UpdateOutcome> {
  const { row } = target;
  const current = refusalNeedsPull(answer) ? await scope.port.pull(scope.repo, row.number) : null;
  const refusal = classifyUpdateRefusal(
    answer,
    expectedHeadSha,
    current && { ...current, open: isOpenPull(current) },
  );
  engine.log.info(
    { run: scope.run.id, task: target.task.taskKey, pr: row.number, refusal: refusal.kind },
    'update of the branch refused',
  );
  if (refusal.kind !== 'needs_person') return refusal;
  await holdForPerson(engine, scope, target, expectedHeadSha, {
    ...options,
    message: refusal.message,
  });
  return { kind: 'held' };
}

/**
 * The run's PRs whose update is recorded as asked with no answer, seen within the repository's
 * merge turn, in which every update is asked and answered: the process asking died before it
 * recorded GitHub's answer. The answer is lost: whatever GitHub made is taken for new work, and
 * the update is spent, so that the PR is decided afresh and holds its base's slot no longer.
 * Returns the graph with those rows as written.
 */
export async function spendLostUpdates(engine: Engine, graph: RunGraph): Promise<RunGraph> {
  let pullOf: RunGraph['pullOf'] | undefined;
  for (const [taskId, row] of graph.pullOf) {
    const from = row.updatedByCoordinatorFrom;
    if (from === null || row.updatedByCoordinatorTo !== null) continue;
    await engine.store.pulls.recordUpdateAnswer(row.id, from, null);
    (pullOf ??= new Map(graph.pullOf)).set(taskId, { ...row, updatedByCoordinatorFrom: null });
    engine.log.warn(
      { pr: row.number, from },
      'an update of the branch whose answer was never recorded: its push, if any, is new work',
    );
  }
  return pullOf ? { ...graph, pullOf } : graph;
}

/** The coordinator's update of the PR's branch, as its row records it (core's BranchUpdate). */
export function updateOf(row: PullRow): BranchUpdate | null {
  const from = row.updatedByCoordinatorFrom;
  return from === null ? null : { from, to: row.updatedByCoordinatorTo };
}

/**
 * The PR's row once the repository's merge turn in hand is over (none is waited for when none
 * is): every update is asked and answered within one, so the row then holds the answer of an
 * update that was out, or one that never came (spendLostUpdates).
 */
export async function rowAfterMergeTurn(
  engine: Engine,
  repositoryId: number,
  row: PullRow,
): Promise<PullRow> {
  const read = await engine.memory.repositoryMergeTurns.run(repositoryId, () =>
    engine.store.mergeTurns.between(repositoryId, () =>
      engine.store.pulls.byNumber(repositoryId, row.number),
    ),
  );
  return read ?? row;
}

/**
 * GitHub will not let the App push the update's merge (a workflow file's change, chdsbd/kodiak#853),
 * and an agent's token may not push it either: no send-back, no retry. What core's
 * decideUpdateHold says is applied: a stacked child's approval withdrawn, the PR told once per
 * head (a marker comment, found again before it is posted), then the refusal recorded on the
 * PR's row, which keeps the merge path and the stack from asking again at this head, and shows
 * in the status comment. A crash before the record: the next event is refused again, finds the
 * comment, and records it.
 */
async function holdForPerson(
  engine: Engine,
  scope: RunScope,
  { row, task }: { row: PullRow; task: TaskRow },
  head: string,
  { base, stacked, message }: { base: string; stacked: boolean; message: string },
): Promise<void> {
  const hold = decideUpdateHold({ head, headRef: row.headRef, base, message, stacked, task });
  if (hold.withdrawApproval) await clearApproval(engine, task, hold.withdrawApproval.move);
  const { marker, body } = hold.comment;
  if (!(await scope.port.findAppComment(scope.repo, row.number, marker)))
    await scope.port.createIssueComment(scope.repo, row.number, body);
  crashPoint('merge.update-refusal-told');
  if (await engine.store.pulls.recordUpdateRefusal(row.id, scope.run.id, head, message))
    engine.requestStatus(scope.run.id);
  engine.log.warn(
    { run: scope.run.id, task: task.taskKey, pr: row.number, message },
    'update of the branch refused to the App: waiting for a person',
  );
}
