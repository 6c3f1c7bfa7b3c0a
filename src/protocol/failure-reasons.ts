/**
 * Why a worker attempt failed. The worker's last log line is `::error::agent-coordinator:
 * <reason>`, which GitHub turns into an annotation of the job's check run with the message
 * `agent-coordinator: <reason>`: a coordinator reading the annotations gets the same word a
 * person reading the log sees. Shared so both sides spell the reasons alike.
 */
export const WORKER_FAILURE_REASONS = {
  bad_input: 'the worker was given inputs or an assignment it could not use',
  assignment_failed: 'the worker could not get its assignment from the coordinator',
  no_changes: 'the agent left no changes to commit',
  workflow_files_changed:
    "the agent changed files under .github/workflows/, which the worker's token may not push",
  timeout: 'the agent ran past its timeout',
  agent_failed: 'the agent failed',
  git_failed: 'a git command failed',
  push_failed: 'the push was refused',
  api_failed: 'a GitHub API call failed',
  plan_invalid: 'the planner did not produce a valid plan',
  worker_error: 'the worker itself failed (a bug: see the run log)',
} as const;

export type WorkerFailureReason = keyof typeof WORKER_FAILURE_REASONS;

const ANNOTATION = /^agent-coordinator: ([a-z_]+)$/;

/** The reason in a worker job's error annotation, if it is one. */
export function reasonFromAnnotation(message: string): WorkerFailureReason | undefined {
  const reason = ANNOTATION.exec(message.trim())?.[1];
  return reason && Object.hasOwn(WORKER_FAILURE_REASONS, reason)
    ? (reason as WorkerFailureReason)
    : undefined;
}
