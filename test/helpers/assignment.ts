import type { Store } from '../../src/store/index.js';
import { assignmentTextOf, modeOf, type AssignmentTarget } from '../../src/worker-api/target.js';

/**
 * What the worker of a dispatched run is told beyond its identifiers: the assignment the
 * coordinator composes for that exact attempt (the endpoint answers it only while the run is
 * in progress, so a test that looks afterwards reads it here).
 */
export async function assignmentOf(
  store: Store,
  repositoryId: number,
  inputs: Readonly<Record<string, string | undefined>>,
) {
  const run = await store.runs.latestRun(repositoryId, Number(inputs['issue']));
  if (!run) throw new Error(`no run for issue ${inputs['issue']}`);
  const attemptNumber = Number(inputs['attempt']);
  const task = await store.runs.task(run.id, inputs['task_id'] ?? '');
  const attempt = task && (await store.attempts.byTaskAttempt(task.id, attemptNumber));
  if (!task || !attempt) throw new Error(`no attempt ${attemptNumber} of ${inputs['task_id']}`);
  const target: AssignmentTarget = { run, task, attempt };
  const repository = await store.repositories.getRepository(repositoryId);
  return {
    mode: modeOf(target),
    ...assignmentTextOf(target, repository?.defaultBranch ?? null),
  };
}
