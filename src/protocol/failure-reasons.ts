/**
 * Why a worker attempt failed. The worker's last log line is `::error::agent-coordinator:
 * <reason> (<detail>)`, which GitHub turns into an annotation of the job's check run with the
 * message `agent-coordinator: <reason> (<detail>)`: a coordinator reading the annotations gets
 * the same words a person reading the log sees. Shared so both sides spell the reasons alike.
 *
 * The line before it says the same as a notice, `agent-coordinator-failure: <reason>
 * (<detail>)`, for the coordinator: the runner keeps at most 10 annotations of each kind a step
 * (actions/runner `ExecutionContext.AddIssue`, `_maxCountPerIssueType`), and ten lines of the
 * agent's that a problem matcher takes for errors leave no room for the worker's error, while the
 * matchers a job registers make errors and warnings (docs/worker.md, "What the agent spent").
 */
export const WORKER_FAILURE_REASONS = {
  bad_input: 'the worker was given inputs or an assignment it could not use',
  assignment_failed: 'the worker could not get its assignment from the coordinator',
  no_changes: 'the agent left no changes to commit',
  workflow_files_changed:
    "the agent changed files under .github/workflows/, which the worker's token may not push",
  coordinator_config_changed:
    "the agent changed .github/agent-coordinator.yml, the coordinator's configuration, which only people change",
  bad_result:
    "the publish job refused the agent job's result: malformed, or a change it may not push",
  timeout: 'the agent reached its time limit and left nothing to keep',
  timed_out:
    'the agent was stopped at its time limit; its work is pushed and the pull request marked partial',
  agent_failed: 'the agent failed',
  network_unrestricted:
    "the agent's network could not be closed as worker.network.allow asks, so the agent was not started",
  run_cancelled:
    'the run was cancelled while the agent ran: the agent was stopped and what it spent said',
  git_failed: 'a git command failed',
  push_failed: 'the push was refused',
  api_failed: 'a GitHub API call failed',
  plan_invalid: 'the planner did not produce a valid plan',
  worker_error: 'the worker itself failed (a bug: see the run log)',
} as const;

export type WorkerFailureReason = keyof typeof WORKER_FAILURE_REASONS;

const ANNOTATION = /^agent-coordinator: ([a-z_]+)(?: \((.*)\))?$/s;

/** What a worker job's error annotation says: its reason and, when given, the detail. */
export interface WorkerFailureAnnotation {
  reason: WorkerFailureReason;
  detail: string;
}

/** The annotation message the worker's last line becomes (GitHub unescapes the command data). */
export function failureAnnotation(reason: WorkerFailureReason, detail: string): string {
  const text = detail.replace(/\s+/g, ' ').trim();
  return text ? `agent-coordinator: ${reason} (${text})` : `agent-coordinator: ${reason}`;
}

/** The reason and detail in a worker job's error annotation, if it is one. */
export function failureFromAnnotation(message: string): WorkerFailureAnnotation | undefined {
  const match = ANNOTATION.exec(message.trim());
  const reason = match?.[1];
  if (!reason || !Object.hasOwn(WORKER_FAILURE_REASONS, reason)) return undefined;
  return { reason: reason as WorkerFailureReason, detail: (match[2] ?? '').trim() };
}

/**
 * The notice the worker prints with its error. Its prefix is no other line's: the worker's own
 * lines start `agent-coordinator: `, and no line quoting the agent holds `agent-coordinator`
 * (src/worker/outcome.ts `inertToRunner`).
 */
export function failureNotice(reason: WorkerFailureReason, detail: string): string {
  return failureAnnotation(reason, detail).replace(/^agent-coordinator:/, `${NOTICE_PREFIX}:`);
}

const NOTICE_PREFIX = 'agent-coordinator-failure';

/** The reason and detail in a worker job's failure notice, if it is one. */
export function failureFromNotice(message: string): WorkerFailureAnnotation | undefined {
  const text = message.trim();
  if (!text.startsWith(`${NOTICE_PREFIX}: `)) return undefined;
  return failureFromAnnotation(`agent-coordinator:${text.slice(NOTICE_PREFIX.length + 1)}`);
}

/** The reason in a worker job's error annotation, if it is one. */
export function reasonFromAnnotation(message: string): WorkerFailureReason | undefined {
  return failureFromAnnotation(message)?.reason;
}
