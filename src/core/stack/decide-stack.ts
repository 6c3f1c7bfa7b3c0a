import { updateRefusedAtHead } from '../merge/classify-update-refusal.js';
import { AWAITING_MERGE_TASK_STATES, IN_REVIEW_TASK_STATES, type TaskState } from '../states.js';
import { decideParentMergedUnseen, decideParentRewritten } from './parent-rewritten.js';
import type {
  ParentRewritten,
  StackDecision,
  StackPull,
  StackRecord,
  StackSnapshot,
  StackTask,
} from './types.js';

// A dependency in one of these never merges until a person acts on it (docs/lifecycle.md).
const DEAD: ReadonlySet<TaskState> = new Set<TaskState>([
  'failed',
  'vetoed',
  'rejected',
  'cancelled',
  'blocked',
]);

// A worker of the child is out: its push would race an update of the branch, and its PR (if
// it opens one) is seen when it finishes.
const WORKING: ReadonlySet<TaskState> = new Set<TaskState>(['dispatched', 'running']);

/**
 * The scheduler's readiness rule with `dispatch.stack` (docs/stacking.md): every dependency
 * merged, or all but one and the task is permitted to stack on that one. The dispatch claim
 * repeats it under its lock (`claim_dispatches`); a property test holds the two together.
 */
export function isDispatchReady(task: { unmetDeps: number; stackParent: string | null }): boolean {
  return task.unmetDeps === 0 || (task.unmetDeps === 1 && task.stackParent !== null);
}

/** The one dependency of `task` not merged yet, when exactly one is; a diamond's join has two. */
function soleUnmergedDep(task: StackTask, byId: ReadonlyMap<string, StackTask>): string | null {
  const unmerged = [...new Set(task.deps)].filter((d) => byId.get(d)?.state !== 'merged');
  return unmerged.length === 1 ? unmerged[0]! : null;
}

/**
 * The open PR a pending task could stack on, before its checks are known: its one unmerged
 * dependency is waiting on review or merge (not being reworked, held or vetoed).
 */
function stackablePull(
  task: StackTask,
  byId: ReadonlyMap<string, StackTask>,
  pullOf: ReadonlyMap<string, StackPull>,
): StackPull | null {
  if (task.state !== 'pending') return null;
  const parentId = soleUnmergedDep(task, byId);
  const parent = parentId === null ? undefined : byId.get(parentId);
  if (!parent || parent.held || parent.vetoed) return null;
  if (!AWAITING_MERGE_TASK_STATES.has(parent.state)) return null;
  return pullOf.get(parent.taskId) ?? null;
}

function indexes(snapshot: Pick<StackSnapshot, 'tasks' | 'pulls'>) {
  const byId = new Map(snapshot.tasks.map((t) => [t.taskId, t] as const));
  const pullOf = new Map<string, StackPull>();
  for (const pull of snapshot.pulls) {
    const own = pullOf.get(pull.taskId);
    if (!own || pull.number < own.number) pullOf.set(pull.taskId, pull);
  }
  return { byId, pullOf };
}

/**
 * The PR heads whose checks decide whether a pending task may stack on them: the engine asks
 * GitHub for these checks only, never for every PR of the run.
 */
export function stackParentHeads(snapshot: Pick<StackSnapshot, 'tasks' | 'pulls'>): string[] {
  const { byId, pullOf } = indexes(snapshot);
  const heads = new Set<string>();
  for (const task of snapshot.tasks) {
    if (task.attempts > 0 && task.stackedOn) continue;
    const pull = stackablePull(task, byId, pullOf);
    if (pull) heads.add(pull.headSha);
  }
  return [...heads];
}

/**
 * What stacking asks of the run now (docs/stacking.md), at most one decision per task. Pure and
 * derived from the snapshot every time: acting on a decision and deciding again converges.
 */
export function decideStacks(snapshot: StackSnapshot): StackDecision[] {
  const { byId, pullOf } = indexes(snapshot);
  const decisions: StackDecision[] = [];
  for (const task of snapshot.tasks) {
    const decision =
      task.stackedOn && task.attempts > 0
        ? follow(snapshot, task, byId, pullOf)
        : permit(snapshot, task, byId, pullOf);
    if (decision) decisions.push(decision);
  }
  return decisions;
}

/**
 * The parent moves a restack would bring into a child (its recorded parent head `from`, the
 * parent's head now `to`): the engine asks GitHub whether `to` still holds `from` for these only,
 * and passes the ones it does not as `droppedParentHeads`.
 */
export function parentMovesToCheck(snapshot: StackSnapshot): Array<{ from: string; to: string }> {
  const byId = new Map(snapshot.tasks.map((t) => [t.taskId, t] as const));
  return decideStacks(snapshot).flatMap((d) => {
    const from = d.kind === 'restack' ? byId.get(d.task)?.stackedOn?.head : undefined;
    return d.kind === 'restack' && from !== undefined ? [{ from, to: d.parentHead }] : [];
  });
}

/** A task not started yet: may it start on its one unmerged dependency's PR, and on which head? */
function permit(
  snapshot: StackSnapshot,
  task: StackTask,
  byId: ReadonlyMap<string, StackTask>,
  pullOf: ReadonlyMap<string, StackPull>,
): StackDecision | undefined {
  const pull = stackablePull(task, byId, pullOf);
  const ok = pull !== null && snapshot.greenHeads.has(pull.headSha);
  const recorded = task.stackedOn;
  if (!ok) return recorded ? { kind: 'revoke', task: task.taskId } : undefined;
  if (
    recorded?.parent === pull.taskId &&
    recorded.pr === pull.number &&
    recorded.head === pull.headSha
  )
    return undefined;
  return {
    kind: 'permit',
    task: task.taskId,
    on: { parent: pull.taskId, pr: pull.number, head: pull.headSha },
  };
}

/** A task started on its parent's PR: keep it on the parent's head until the parent settles. */
function follow(
  snapshot: StackSnapshot,
  task: StackTask,
  byId: ReadonlyMap<string, StackTask>,
  pullOf: ReadonlyMap<string, StackPull>,
): StackDecision | undefined {
  const record = task.stackedOn!;
  const parent = byId.get(record.parent);
  const own = pullOf.get(task.taskId);
  const parentBranch = snapshot.branchOf(record.parent);
  if (task.state === 'merged') return undefined;
  const cancelled = !parent || parent.vetoed || DEAD.has(parent.state);
  if (cancelled) {
    return {
      kind: 'cancel',
      task: task.taskId,
      parent: record.parent,
      ...(own && { pr: own.number }),
      ...(own?.baseRef === parentBranch && { retargetTo: snapshot.base }),
      // Given to its diff against the parent's branch: on the base its PR also shows the
      // parent's commits, which will not merge as they are, and the order check would pass on
      // it once the parent merges other work (its `/retry`) before the child starts over.
      ...(task.approved === true && { withdrawApproval: true }),
    };
  }
  if (parent.state === 'merged') {
    if (!own) return WORKING.has(task.state) ? undefined : { kind: 'unstack', task: task.taskId };
    const refused = updateRefusedAtHead(own);
    const unseen = mergedUnseen(snapshot, task, parentBranch);
    if (own.baseRef === parentBranch)
      return {
        kind: 'retarget',
        task: task.taskId,
        pr: own.number,
        to: snapshot.base,
        expectedHeadSha: own.headSha,
        update: !WORKING.has(task.state) && !refused,
        unstacks: true,
        ...(unseen && { parentMergedUnseen: unseen }),
      };
    // A worker of the child may be out (a fix): its push brings the branch up to date.
    if (WORKING.has(task.state)) return undefined;
    // Updated only from the run's base: a PR someone pointed at another branch would take that
    // branch's commits in by the coordinator's own push, which keeps the approval.
    const onBase = own.baseRef === snapshot.base;
    return {
      kind: 'unstack',
      task: task.taskId,
      pr: own.number,
      ...(!refused && onBase && { expectedHeadSha: own.headSha }),
      ...(unseen && { parentMergedUnseen: unseen }),
    };
  }
  const parentPull = pullOf.get(record.parent);
  // Stacked anew after a cancelled stack pointed its PR at the base: back onto the parent. Not
  // when the parent's PR is no longer open: it merged and its merge is not recorded yet, and the
  // child's worker opened its PR on the base because the parent's branch was gone.
  if (parentPull && own && own.baseRef !== parentBranch && own.baseRef === snapshot.base)
    return {
      kind: 'retarget',
      task: task.taskId,
      pr: own.number,
      to: parentBranch,
      expectedHeadSha: own.headSha,
      update: false,
      unstacks: false,
    };
  if (!parentPull || parentPull.headSha === record.head) return undefined;
  // The coordinator's own update of the parent from the run's base (its own parent merged):
  // updating the child with it would move the child's head (its CI again, and its own
  // children's) for no work of the parent. An update from a stack parent (a restack) brings
  // that parent's work, and the child follows it.
  if (
    movedByUpdateOnly(parentPull.headSha, parentPull, record.head) &&
    parentPull.baseRef === snapshot.base
  )
    return { kind: 'keep', task: task.taskId, parentHead: parentPull.headSha };
  if (!own || !IN_REVIEW_TASK_STATES.has(task.state)) return undefined;
  // GitHub refused this update at the child's head: a person merges the parent's branch in.
  if (updateRefusedAtHead(own)) return undefined;
  return {
    kind: 'restack',
    task: task.taskId,
    pr: own.number,
    expectedHeadSha: own.headSha,
    parentHead: parentPull.headSha,
    ...(snapshot.droppedParentHeads?.has(record.head) === true && {
      parentRewritten: decideParentRewritten({
        from: record.head,
        to: parentPull.headSha,
        parent: record.parent,
        parentBranch,
        task: { state: task.state, approved: task.approved === true },
      }),
    }),
  };
}

/**
 * The parent merged at a head the child never took in: not the head last recorded (a restack's,
 * or a `keep`'s), nor one the coordinator's own update of the parent made from it (a `keep`
 * whose turn came after the merge: with no CI to wait for, the update's push and the merge are
 * handled in one turn): the rule is the `keep`'s.
 */
function mergedUnseen(
  snapshot: StackSnapshot,
  task: StackTask,
  parentBranch: string,
): ParentRewritten | undefined {
  const record = task.stackedOn!;
  const merged = snapshot.mergedHeads?.get(record.parent);
  if (merged === undefined || merged.head === record.head) return undefined;
  if (movedByUpdateOnly(merged.head, merged, record.head)) return undefined;
  return decideParentMergedUnseen({
    from: record.head,
    to: merged.head,
    parent: record.parent,
    parentBranch,
    base: snapshot.base,
    task: { state: task.state, approved: task.approved === true },
  });
}

/**
 * The PR's head moved from `from` by the coordinator's update alone: it is the merge commit GitHub
 * answered that update with (a push from `from` to any other commit is new work).
 */
function movedByUpdateOnly(
  head: string,
  update: { updatedFrom?: string; updatedTo?: string },
  from: string,
): boolean {
  return update.updatedFrom === from && update.updatedTo === head;
}

/** How the order check and the status comment name the stack: "stacked on task_001 (#12)". */
export function stackedOnText(record: Pick<StackRecord, 'parent' | 'pr'>): string {
  return `stacked on ${record.parent} (#${record.pr})`;
}
