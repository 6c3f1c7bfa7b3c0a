/**
 * Task and run states of docs/lifecycle.md. The arrays are the single source for the DB enums,
 * schemas and renderers, so adding a state here surfaces every switch that must learn it.
 */
export const TASK_STATES = [
  'pending',
  'dispatched',
  'running',
  'in_review',
  'approved',
  'merging',
  'merged',
  'failed',
  'vetoed',
  'rejected',
  'blocked',
  'cancelled',
] as const;
export type TaskState = (typeof TASK_STATES)[number];

export const RUN_STATES = [
  'planning',
  'plan_invalid',
  'awaiting_approval',
  'running',
  'held',
  'done',
  'failed',
  'cancelled',
] as const;
export type RunState = (typeof RUN_STATES)[number];

// Terminal until a person acts (/retry revives failed, vetoed and blocked tasks), so the
// scheduler never looks at them on its own.
export const TERMINAL_TASK_STATES: ReadonlySet<TaskState> = new Set<TaskState>([
  'merged',
  'failed',
  'vetoed',
  'rejected',
  'blocked',
  'cancelled',
]);

// A worker run exists for these: they count against concurrency.maxParallel.
export const INFLIGHT_TASK_STATES: ReadonlySet<TaskState> = new Set<TaskState>([
  'dispatched',
  'running',
]);

// A PR waits on people: its review (a reviewer may still send it back) and its approval.
export const IN_REVIEW_TASK_STATES: ReadonlySet<TaskState> = new Set<TaskState>([
  'in_review',
  'approved',
]);

// A task holds the paths it declared or changed (docs/lifecycle.md, "Overlapping files") from
// its dispatch until it is merged or ends: its PR can conflict with another's until it merges.
// A pending task with a PR (a retry's backoff) holds them too (src/core/scheduler/overlap-input.ts).
export const PATH_HOLDING_TASK_STATES: ReadonlySet<TaskState> = new Set<TaskState>([
  'dispatched',
  'running',
  'in_review',
  'approved',
  'merging',
]);

// A PR waits on review and merge. Other states either have a worker attempt coming (its push
// replaces the head) or have ended (docs/lifecycle.md).
export const AWAITING_MERGE_TASK_STATES: ReadonlySet<TaskState> = new Set<TaskState>([
  'in_review',
  'approved',
  'merging',
]);
