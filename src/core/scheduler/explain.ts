import { AWAITING_MERGE_TASK_STATES, type TaskState } from '../states.js';
import {
  type SchedulerDecision,
  type TaskExplanation,
  type UnmergedDep,
  type WaitReason,
} from './types.js';

export interface ExplainTaskInput {
  id: string;
  deps: readonly string[];
  state: TaskState;
  prNumber?: number;
  backoffUntil?: number;
  /** `/hold` on the task's PR. */
  held?: boolean;
}

export interface ExplainInput {
  now: number;
  runId: string;
  /** The whole run: deps are looked up here to name their PRs. */
  tasks: readonly ExplainTaskInput[];
  /** `/hold` on the issue, or the budget hold (docs/configuration.md) once it is turned into one. */
  runHeld: boolean;
  budgetExhausted: boolean;
  /** The repository's latest decision; the only source of concurrency and overlap waits. */
  decision?: SchedulerDecision;
}

/**
 * Why each non-terminal task that is not running a worker is not moving, keyed by task id.
 * Tasks absent from the result are free to go (being dispatched, or mergeable as far as
 * ordering goes). One pass over the run: O(tasks + deps).
 */
export function explainRun(input: ExplainInput): Map<string, TaskExplanation> {
  const byId = new Map(input.tasks.map((t) => [t.id, t]));
  const decided = decisionWaits(input);
  const out = new Map<string, TaskExplanation>();
  for (const task of input.tasks) {
    const why = explainOne(input, task, byId, decided);
    if (why) out.set(task.id, why);
  }
  return out;
}

/** `explainRun` for a single task (the order check on one PR). O(tasks) for the lookup. */
export function explainTask(input: ExplainInput, taskId: string): TaskExplanation | undefined {
  const byId = new Map(input.tasks.map((t) => [t.id, t]));
  const task = byId.get(taskId);
  return task ? explainOne(input, task, byId, decisionWaits(input)) : undefined;
}

function decisionWaits(input: ExplainInput): Map<string, WaitReason> {
  const waits = new Map<string, WaitReason>();
  for (const { candidate, reason } of input.decision?.waiting ?? []) {
    if (
      candidate.runId === input.runId &&
      (reason.kind === 'concurrency' || reason.kind === 'overlap')
    ) {
      waits.set(candidate.taskId, reason);
    }
  }
  return waits;
}

function explainOne(
  input: ExplainInput,
  task: ExplainTaskInput,
  byId: ReadonlyMap<string, ExplainTaskInput>,
  decided: ReadonlyMap<string, WaitReason>,
): TaskExplanation | undefined {
  const pending = task.state === 'pending';
  // Tasks with a PR wait on merges, not on dispatch: only deps and holds apply to them.
  if (!pending && !AWAITING_MERGE_TASK_STATES.has(task.state)) return undefined;

  const unmerged: UnmergedDep[] = [];
  for (const depId of new Set(task.deps)) {
    const dep = byId.get(depId);
    if (dep?.state === 'merged') continue;
    unmerged.push(
      dep?.prNumber === undefined ? { taskId: depId } : { taskId: depId, prNumber: dep.prNumber },
    );
  }
  if (unmerged.length > 0) return { kind: 'deps', unmerged };
  if (input.runHeld || task.held) return { kind: 'held' };
  if (!pending) return undefined;
  if (input.budgetExhausted) return { kind: 'budget' };
  if (task.backoffUntil !== undefined && task.backoffUntil > input.now) {
    return { kind: 'backoff', until: task.backoffUntil };
  }
  return decided.get(task.id);
}

/**
 * One line for the status table and the order check, e.g. `waiting for task_001 (#12), task_003`.
 * Task ids are plan-validated (`^[a-z0-9][a-z0-9_-]{0,39}$`), so nothing here needs escaping
 * for that use; renderers still escape for their own medium.
 */
export function formatWaitReason(reason: TaskExplanation): string {
  switch (reason.kind) {
    case 'deps':
      if (reason.unmerged.length === 0) return 'waiting for dependencies';
      return `waiting for ${reason.unmerged.map(formatDep).join(', ')}`;
    case 'concurrency': {
      if (reason.scope === 'installation')
        return `waiting: the coordinator's capacity is shared with other installations (${formatCount(reason.inflight ?? reason.limit)}/${formatCount(reason.limit)} workers busy for this one)`;
      const where =
        reason.scope === 'repository' ? 'in this repository' : 'across all repositories';
      return `waiting: ${formatCount(reason.inflight ?? reason.limit)}/${formatCount(reason.limit)} workers busy ${where}`;
    }
    case 'overlap': {
      const task = `${reason.taskId}${reason.elsewhere ? ' (another run)' : ''}`;
      if (!reason.approximate) return `waiting: overlaps ${task} on ${reason.path}`;
      // Matching ran out of steps (docs/lifecycle.md, "Overlapping files"): it may not overlap.
      const where = reason.path === '' ? 'anywhere' : `on ${reason.path}`;
      return `waiting: may overlap ${task} ${where} (too many paths to match at once)`;
    }
    case 'held':
      return 'held';
    case 'budget':
      return 'budget reached';
    case 'backoff':
      return Number.isFinite(reason.until)
        ? `retrying after ${new Date(reason.until).toISOString().slice(11, 19)}Z`
        : 'retrying soon';
  }
}

function formatDep(dep: UnmergedDep): string {
  return dep.prNumber === undefined ? dep.taskId : `${dep.taskId} (#${dep.prNumber})`;
}

function formatCount(n: number): string {
  return Number.isFinite(n) ? String(n) : '∞';
}
