import type { WorkflowRunInfo } from '../github/port.js';
import { taskBranch } from '../protocol/branch.js';
import { runName } from '../protocol/run-name.js';
import type { RunScope } from './context.js';

/** Our clock and GitHub's may differ; the creation-time window allows this much. */
export const DISPATCH_CLOCK_SKEW_MS = 2 * 60_000;

export interface DispatchedAttempt {
  issueNumber: number;
  /** The task id, or `plan`. */
  taskKey: string;
  attempt: number;
  /** When the intent was recorded: the dispatch happened after it. */
  intentAt: Date;
}

/**
 * The run a dispatch started, where the dispatch answer did not name it (GitHub answers 204
 * without `return_run_details`, as GitHub Enterprise Server up to 3.19 does): the worker
 * workflow's `workflow_dispatch` runs on the attempt's branch created since the intent, whose
 * `display_title` is the run-name the workflow sets from the inputs we sent.
 */
export async function findDispatchedRun(
  scope: Pick<RunScope, 'port' | 'repo' | 'config'>,
  dispatched: DispatchedAttempt,
): Promise<WorkflowRunInfo | undefined> {
  const name = runName(dispatched.issueNumber, dispatched.taskKey, dispatched.attempt);
  const runs = await scope.port.workflowRunsOnBranch(
    scope.repo,
    scope.config.worker.workflow,
    taskBranch(dispatched.issueNumber, dispatched.taskKey),
    { createdSince: new Date(dispatched.intentAt.getTime() - DISPATCH_CLOCK_SKEW_MS) },
  );
  return runs.find((run) => run.displayTitle === name);
}
