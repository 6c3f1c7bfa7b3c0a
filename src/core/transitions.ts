import type { RunState, TaskState } from './states.js';

/**
 * The task and run state machines of docs/lifecycle.md "States", as data. Each event names
 * what causes a change and the states it may start from and end in (any `from` to any `to` of
 * its row). The store builds the guard of every state write from these rows
 * (`where state in (...)`), so a transition missing here cannot happen, and a call site never
 * lists states of its own.
 */
interface Row<S extends string> {
  readonly from: readonly S[];
  readonly to: readonly S[];
  /** Run rows only: the write also finishes the run (`finished_at` set) or reopens it. */
  readonly finishes?: true;
  readonly reopens?: true;
}

/** Not ended: a worker, a person or the merge may still move these. */
const LIVE = ['pending', 'dispatched', 'running', 'in_review', 'approved', 'merging'] as const;
/** A PR exists and waits for review or merge. */
const IN_REVIEW = ['in_review', 'approved'] as const;

export const TASK_TRANSITIONS = {
  /** The scheduler claims a ready task and records the attempt's intent. */
  dispatched: { from: ['pending'], to: ['dispatched'] },
  /** GitHub shows the attempt's workflow run in progress. */
  'worker started': { from: ['dispatched'], to: ['running'] },
  /** The worker's run succeeded with a PR: approved at once when the approval is for its head. */
  'attempt succeeded': { from: ['dispatched', 'running'], to: ['in_review', 'approved'] },
  /** `/approve` or an approving review of the PR's head. */
  approved: { from: IN_REVIEW, to: ['approved'] },
  /** An approval of an older commit: recorded, but the head still waits for one. */
  'older head approved': { from: IN_REVIEW, to: ['in_review'] },
  /**
   * The approval no longer counts: a plain `/approve` was written before new work reached the
   * PR (it covers none of it), its author no longer has write access when the PR would merge, or
   * the approving review that gave it was dismissed.
   */
  'approval withdrawn': { from: IN_REVIEW, to: ['in_review'] },
  /** The merge (or the queue) is asked for; one claim at a time. */
  'merge claimed': { from: IN_REVIEW, to: ['merging'] },
  /** GitHub refused, did not answer, or the queue let go: the task waits again. */
  'merge released': { from: ['merging'], to: IN_REVIEW },
  /** The PR was merged, by us, the queue or a person. */
  merged: { from: [...LIVE, 'blocked'], to: ['merged'] },
  /** Conflicts, failing checks or a review asking for changes go back to the worker in `mode=fix`. */
  'sent back': { from: ['in_review', 'approved', 'merging'], to: ['pending'] },
  /** A failed attempt with retries left is tried again after the backoff. */
  'attempt failed': {
    from: ['dispatched', 'running', 'in_review', 'approved', 'merging'],
    to: ['pending'],
  },
  /** No retries left. */
  failed: { from: LIVE, to: ['failed'] },
  /** A dependency failed, was vetoed, rejected or cancelled. */
  blocked: { from: ['pending'], to: ['blocked'] },
  /**
   * `dispatch.stack`: the dependency the task was stacked on will not merge; its worker run is
   * cancelled and it waits, blocked, to be dispatched again from the base (docs/stacking.md).
   */
  'stack cancelled': {
    from: ['pending', 'dispatched', 'running', 'in_review', 'approved'],
    to: ['blocked'],
  },
  /** The dependency that blocked it was retried, and no other is dead. */
  unblocked: { from: ['blocked'], to: ['pending'] },
  /** A person closed the PR unmerged. */
  rejected: { from: LIVE, to: ['rejected'] },
  /** `/veto`. */
  vetoed: { from: LIVE, to: ['vetoed'] },
  /** `/cancel` of the task, or its run cancelled or ended with its repository unreachable. */
  cancelled: { from: LIVE, to: ['cancelled'] },
  /** `/retry`: a new attempt, with the PR's commits (`fix`) when there is a PR. */
  retried: {
    from: [
      'failed',
      'vetoed',
      'rejected',
      'blocked',
      'cancelled',
      'in_review',
      'approved',
      'pending',
    ],
    to: ['pending'],
  },
} as const satisfies Record<string, Row<TaskState>>;

/** Active and not yet closing out: a plan may still be stored, approved or refused. */
const ACTIVE = ['planning', 'plan_invalid', 'awaiting_approval', 'running', 'held'] as const;
/** Active with a plan's tasks: where a run's tasks can all end. */
const PLANNED = ['plan_invalid', 'awaiting_approval', 'running', 'held'] as const;

export const RUN_TRANSITIONS = {
  /** A valid plan (issue, planner or `/plan`) is stored, before the first merge. */
  'plan stored': { from: ACTIVE, to: ['awaiting_approval', 'held', 'running'] },
  /** The plan does not validate, or the planner could not be dispatched. */
  'plan invalid': { from: ACTIVE, to: ['plan_invalid'] },
  /** `/approve` of the plan (`plan.requireApproval`). */
  'plan approved': { from: ['awaiting_approval'], to: ['running', 'held'] },
  /** `/hold` of the run. */
  held: { from: ['running', 'held'], to: ['held'] },
  /** The run's spend reached `budget.maxCostUsdPerRun`. */
  'budget reached': { from: ['running'], to: ['held'] },
  /** `/unhold`. */
  unheld: { from: ['held'], to: ['running'] },
  /** Every task merged: the label and the close follow, then the run is closed out. */
  'all merged': { from: PLANNED, to: ['done'] },
  /** Labelled (and closed when configured) on GitHub. */
  'closed out': { from: ['done'], to: ['done'], finishes: true },
  /** Every task ended, not all merged. */
  failed: { from: PLANNED, to: ['failed'], finishes: true },
  /** `/cancel`, the label removed or the issue closed. */
  cancelled: { from: ACTIVE, to: ['cancelled'], finishes: true },
  /**
   * GitHub no longer lets the App reach the repository: removed from the installation, the App
   * uninstalled, or the installation suspended (src/core/lifecycle/reachability.ts).
   */
  'repository unreachable': { from: ACTIVE, to: ['cancelled'], finishes: true },
  /** `/retry` of a task of a finished run. */
  reopened: { from: ['failed', 'cancelled'], to: ['running'], reopens: true },
} as const satisfies Record<string, Row<RunState>>;

export const INITIAL_TASK_STATE: TaskState = 'pending';
export const INITIAL_RUN_STATE: RunState = 'planning';

type TaskTable = typeof TASK_TRANSITIONS;
type RunTable = typeof RUN_TRANSITIONS;
export type TaskEvent = keyof TaskTable;
export type RunEvent = keyof RunTable;

/** An event with one target is named alone; one with several names the target as well. */
type MoveOf<T extends Record<string, { to: readonly string[] }>> = {
  [E in keyof T & string]: T[E]['to'] extends readonly [string]
    ? E
    : { event: E; to: T[E]['to'][number] };
}[keyof T & string];

export type TaskMove = MoveOf<TaskTable>;
type FinishingEvent = {
  [E in RunEvent]: RunTable[E] extends { finishes: true } ? E : never;
}[RunEvent];
type ReopeningEvent = {
  [E in RunEvent]: RunTable[E] extends { reopens: true } ? E : never;
}[RunEvent];
/** Events that finish a run (`finished_at` set): `RunStore.finishRun`. */
export type RunFinishEvent = FinishingEvent;
/** A run move that leaves it active; finishing and reopening have store methods of their own. */
export type RunMove = MoveOf<Pick<RunTable, Exclude<RunEvent, FinishingEvent | ReopeningEvent>>>;
export type AnyRunMove = MoveOf<RunTable>;

export interface Transition<S extends string, E extends string> {
  event: E;
  from: readonly S[];
  to: S;
}

function resolve<S extends string, E extends string>(
  table: Record<E, Row<S>>,
  move: E | { event: E; to: S },
): Transition<S, E> {
  const event = typeof move === 'string' ? move : move.event;
  const row = table[event];
  const to = typeof move === 'string' ? row.to[0] : move.to;
  if (to === undefined || !row.to.includes(to))
    throw new Error(`the event "${event}" does not lead to "${String(to)}"`);
  return { event, from: row.from, to };
}

function eventsBetween<S extends string, E extends string>(
  table: Record<E, Row<S>>,
  from: S,
  to: S,
): E[] {
  return (Object.keys(table) as E[]).filter(
    (event) => table[event].from.includes(from) && table[event].to.includes(to),
  );
}

/** The move's target and the states it may start from: the store's SQL guard. */
export function taskTransition(move: TaskMove): Transition<TaskState, TaskEvent> {
  return resolve<TaskState, TaskEvent>(TASK_TRANSITIONS, move);
}

export function runTransition(move: AnyRunMove): Transition<RunState, RunEvent> {
  return resolve<RunState, RunEvent>(RUN_TRANSITIONS, move);
}

export function canMoveTask(from: TaskState, move: TaskMove): boolean {
  return taskTransition(move).from.includes(from);
}

export function canMoveRun(from: RunState, move: AnyRunMove): boolean {
  return runTransition(move).from.includes(from);
}

/** The events that move a task from `from` to `to`: none when the pair is refused. */
export function taskEventsBetween(from: TaskState, to: TaskState): TaskEvent[] {
  return eventsBetween<TaskState, TaskEvent>(TASK_TRANSITIONS, from, to);
}

export function runEventsBetween(from: RunState, to: RunState): RunEvent[] {
  return eventsBetween<RunState, RunEvent>(RUN_TRANSITIONS, from, to);
}
