/**
 * When a worker must stop its agent (docs/worker.md, "The time limit"). The coordinator
 * cancels a worker run once its timeout has passed since dispatch (docs/configuration.md);
 * the worker stops the agent a grace margin before that, so it can commit, push and mark the
 * pull request partial while its run still stands.
 */

export const MIN_STOP_GRACE_MS = 2 * 60_000;
export const STOP_GRACE_FRACTION = 0.1;

/**
 * The margin kept before a limit of `limitMs`: two minutes or a tenth of the limit, whichever
 * is more, but never more than half of it, so even a short limit leaves the agent time.
 */
export function stopGraceMs(limitMs: number): number {
  return Math.min(Math.max(MIN_STOP_GRACE_MS, limitMs * STOP_GRACE_FRACTION), limitMs / 2);
}

/** When the coordinator gives up on an attempt dispatched at `dispatchedAt`. */
export function attemptDeadline(dispatchedAt: Date, timeoutMinutes: number): Date {
  return new Date(dispatchedAt.getTime() + timeoutMinutes * 60_000);
}

/**
 * When the worker stops the agent: the grace margin before `deadline`, the limit counted
 * over the whole `timeoutMinutes` (the margin does not shrink as the job runs late).
 */
export function agentStopTime(deadline: number, timeoutMinutes: number): number {
  return deadline - stopGraceMs(timeoutMinutes * 60_000);
}
