/** What a failed `workflow_dispatch` (or the branch creation before it) does to its attempt. */
export type DispatchFailure =
  /** The planner cannot be dispatched: the run says why and waits for a tasks block. */
  | { kind: 'planner_refused' }
  /** GitHub refused the request itself: the same request cannot succeed, the task fails now. */
  | { kind: 'fail_task'; reason: string }
  /** Anything else may be transient: the intent stays and the sweep tries it again. */
  | { kind: 'retry_later' };

/**
 * docs/lifecycle.md step 4: 404 (no workflow file, no branch) and 422 (an undeclared input, a
 * missing base branch) are GitHub refusing the request; 5xx, timeouts and rate limits are not.
 */
export function decideDispatchFailure(
  status: number | undefined,
  message: string,
  planner: boolean,
): DispatchFailure {
  if (status !== 404 && status !== 422) return { kind: 'retry_later' };
  if (planner) return { kind: 'planner_refused' };
  return { kind: 'fail_task', reason: `GitHub refused the dispatch (${status}): ${message}` };
}
