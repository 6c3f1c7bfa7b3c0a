export type { Plan, PlanError, PlanErrorCode, PlanLimits, PlanResult, TaskSpec } from './types.js';
export { ID_PATTERN, MAX_ERRORS, PLAN_TASK_KEY } from './types.js';
export { extractTasksBlock } from './extract.js';
export type { ExtractResult } from './extract.js';
export { parsePlanYaml } from './parse.js';
export { parsePlanMarkdown } from './markdown.js';
export { formatPlanErrors } from './format.js';
export { findCycle, topologicalOrder } from './cycle.js';
export type { GraphTask } from './cycle.js';
