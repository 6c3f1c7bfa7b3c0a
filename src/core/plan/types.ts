import { TASK_KEY } from '../../protocol/identifiers.js';

export interface TaskSpec {
  id: string;
  title: string;
  /** Free word that selects the model via `worker.models`; 'default' when omitted. */
  type: string;
  deps: string[];
  prompt?: string;
  /** 1 (lowest) .. 5 (highest); 3 when omitted. */
  priority: number;
  /** Positive integer, at most MAX_TIMEOUT_MINUTES; the worker default applies when omitted. */
  timeoutMinutes?: number;
  /**
   * The paths the task expects to touch (globs, src/core/glob.ts), when the plan declares them:
   * tasks whose paths overlap are never in flight together (docs/lifecycle.md, "Overlapping
   * files").
   */
  files?: string[];
}

export interface Plan {
  /** Base branch for the task PRs, when the plan overrides the repository default. */
  base?: string;
  tasks: TaskSpec[];
  /** A topological order (deps first); ties keep plan order. */
  order: string[];
}

export type PlanErrorCode =
  | 'no_tasks_block'
  | 'multiple_tasks_blocks'
  | 'yaml'
  | 'not_a_list'
  | 'unknown_field'
  | 'missing_field'
  | 'invalid_value'
  | 'invalid_id'
  | 'duplicate_id'
  | 'unknown_dep'
  | 'self_dep'
  | 'cycle'
  | 'too_many_tasks'
  | 'empty_plan'
  /** Valid, but longer than one GitHub comment holds (the planner job's check). */
  | 'too_long'
  /** The labelled issue's tasks block is not one GitHub shows as written (parsePlanMarkdown). */
  | 'hidden_tasks_block';

export interface PlanError {
  code: PlanErrorCode;
  /** One human sentence; untrusted parts are quoted in backticks (see formatPlanErrors). */
  message: string;
  taskId?: string;
  /** e.g. 'tasks[2].deps[0]' (mapping form) or '[2].priority' (list form). */
  path?: string;
  /** 1-based, relative to the text that was parsed (the markdown for parsePlanMarkdown). */
  line?: number;
  column?: number;
  /** For code 'cycle': the cycle, first id repeated at the end. */
  cycle?: string[];
}

export type PlanResult = { ok: true; plan: Plan } | { ok: false; errors: PlanError[] };

export interface PlanLimits {
  maxTasks: number;
  /**
   * The plan is the planner agent's (its comment), not a person's tasks block: it may not name a
   * `base` (`refusePlannerBase` in src/core/plan/parse.ts).
   */
  planner?: boolean;
  /**
   * The text is the labelled issue's, which anyone may have written: its tasks block counts only
   * as GitHub shows it (src/core/visible-text.ts), the way the person who labelled it read it.
   */
  issue?: boolean;
}

/** A task id becomes the task's key in its branch, run-name and markers. */
export const ID_PATTERN = TASK_KEY;
/**
 * The planner's own task (docs/tasks-block.md: `plan` is reserved): a run planned by the
 * planner job keeps its attempts as the attempts of this task, on the branch `agent/<issue>/plan`.
 */
export const PLAN_TASK_KEY = 'plan';
export const TASK_KEYS: readonly string[] = [
  'id',
  'title',
  'type',
  'deps',
  'prompt',
  'priority',
  'timeoutMinutes',
  'files',
];
export const PLAN_KEYS: readonly string[] = ['base', 'tasks'];
export const DEFAULT_TYPE = 'default';
export const DEFAULT_PRIORITY = 3;
export const MAX_TITLE_CHARS = 256;
export const MAX_PROMPT_CHARS = 60_000;
/**
 * A task's longest time, the same as `worker.timeoutMinutes` may be: GitHub ends any job at 6
 * hours, and the worker workflow's setup needs some of them.
 */
export const MAX_TIMEOUT_MINUTES = 340;
/** A status comment with hundreds of errors helps nobody and risks GitHub's body size limit. */
export const MAX_ERRORS = 50;
