import { DEFAULT_PRIORITY, type Plan } from './types.js';

/**
 * A plan the planner job posted is an agent's, steered by the issue's text, which anyone may
 * have written (docs/lifecycle.md step 2): it may not take what only the maintainers decide.
 * - Time: no task gets more than the maintainers' `worker.timeoutMinutes`, or one issue could
 *   hold the runners and the agent's API for up to six hours a task. A longer one is cut to it.
 * - Rank: dispatch goes by priority across every run of the repository (SPEC §2 step 5), so a
 *   priority above the default would put one issue's tasks ahead of every run the maintainers
 *   started. A higher one is lowered to the default; lower ones keep their order within the run.
 * A tasks block that a person with write access started or gave (the labelled issue's, `/plan`)
 * keeps its own.
 */
export function boundPlannerPlan(plan: Plan, workerTimeoutMinutes: number): Plan {
  return {
    ...plan,
    tasks: plan.tasks.map((task) => ({
      ...task,
      priority: Math.min(task.priority, DEFAULT_PRIORITY),
      ...(task.timeoutMinutes !== undefined && task.timeoutMinutes > workerTimeoutMinutes
        ? { timeoutMinutes: workerTimeoutMinutes }
        : {}),
    })),
  };
}
