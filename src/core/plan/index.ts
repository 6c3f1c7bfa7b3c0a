export type { Plan, PlanError, PlanResult, TaskSpec } from './types.js';
export { PLAN_TASK_KEY } from './types.js';
export { extractTasksBlock } from './extract.js';
export { parsePlanYaml } from './parse.js';
export { parsePlanMarkdown } from './markdown.js';
export { formatPlanErrors } from './format.js';
export { findCycle, topologicalOrder } from './cycle.js';
export { boundPlannerPlan } from './planner-plan.js';
