import { ISSUE_NUMBER_SOURCE, TASK_KEY_SOURCE } from './identifiers.js';

/**
 * A task's branch, `agent/<issue>/<task_id>` (docs/lifecycle.md, docs/worker.md): the coordinator
 * creates it and dispatches the worker on it, the worker pushes only to it, and a PR belongs to a
 * task only when its head ref is exactly this name in the base repository.
 */
export function taskBranch(issueNumber: number, taskKey: string): string {
  return `agent/${issueNumber}/${taskKey}`;
}

const TASK_BRANCH = new RegExp(`^agent/(${ISSUE_NUMBER_SOURCE})/(${TASK_KEY_SOURCE})$`);

/** `agent/<issue>/<task_id>` → its parts; anything else (look-alikes included) → null. */
export function parseTaskBranch(ref: string): { issueNumber: number; taskKey: string } | null {
  const match = TASK_BRANCH.exec(ref);
  if (!match) return null;
  return { issueNumber: Number(match[1]), taskKey: match[2]! };
}
