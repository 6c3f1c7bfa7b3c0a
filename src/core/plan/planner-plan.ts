import type { Plan } from './types.js';

/**
 * A plan the planner job posted is an agent's, steered by the issue's text, which anyone may
 * have written (docs/lifecycle.md step 2): it may not give its tasks more time than the
 * maintainers' `worker.timeoutMinutes`, or one issue could hold the runners and the agent's API
 * for up to six hours a task. A longer `timeoutMinutes` is cut to it. A tasks block that a person
 * with write access started or gave (the labelled issue's, `/plan`) keeps its own.
 */
export function boundPlannerPlan(plan: Plan, workerTimeoutMinutes: number): Plan {
  return {
    ...plan,
    tasks: plan.tasks.map((task) =>
      task.timeoutMinutes !== undefined && task.timeoutMinutes > workerTimeoutMinutes
        ? { ...task, timeoutMinutes: workerTimeoutMinutes }
        : task,
    ),
  };
}
