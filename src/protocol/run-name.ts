import { ATTEMPT_SOURCE, ISSUE_NUMBER_SOURCE, TASK_KEY_SOURCE } from './identifiers.js';

/**
 * The worker workflow's `run-name` (docs/worker.md, "Dispatch inputs"), as written in
 * templates/agent-worker.yml: GitHub renders it from the dispatch inputs into the run's
 * `display_title`, which is how the coordinator finds a run the dispatch answer did not name.
 */
export const WORKFLOW_RUN_NAME =
  'agent-coordinator #${{ inputs.issue }} ${{ inputs.task_id }} attempt ${{ inputs.attempt }}';

/** What GitHub renders WORKFLOW_RUN_NAME to for these inputs. */
export function runName(issueNumber: number, taskKey: string, attempt: number): string {
  return `agent-coordinator #${issueNumber} ${taskKey} attempt ${attempt}`;
}

const RUN_NAME = new RegExp(
  `^agent-coordinator #(${ISSUE_NUMBER_SOURCE}) (${TASK_KEY_SOURCE}) attempt (${ATTEMPT_SOURCE})$`,
);

/** A run's display title → the inputs it was rendered from; anything else → null. */
export function parseRunName(
  title: string,
): { issueNumber: number; taskKey: string; attempt: number } | null {
  const match = RUN_NAME.exec(title);
  if (!match) return null;
  return { issueNumber: Number(match[1]), taskKey: match[2]!, attempt: Number(match[3]) };
}
