import type { GitHubPort } from '../../github/port.js';
import { isMergeClaimed, mergeReleased } from '../../core/lifecycle/index.js';
import { loadRunScope, type Engine } from '../context.js';
import { advanceRun } from './index.js';
import { sendBack } from './outcomes.js';

export interface DequeuedEvent {
  repositoryId: number;
  number: number;
  baseRef: string;
  headSha: string;
  /** GitHub's `pull_request.dequeued` reason: MERGE, CI_FAILURE, MERGE_CONFLICT, MANUAL, ... */
  reason: string;
}

/** Left the merge queue without merging: the task waits again, or goes back to its worker. */
export async function onDequeued(
  engine: Engine,
  port: GitHubPort,
  event: DequeuedEvent,
): Promise<void> {
  if (event.reason === 'MERGE') return;
  const found = await engine.store.pulls.withTask(event.repositoryId, event.number);
  if (!found || !isMergeClaimed(found.task.state)) return;
  engine.log.info({ pr: event.number, reason: event.reason }, 'PR left the merge queue');
  const scope = await loadRunScope(engine, found.run, port);
  if (event.reason === 'CI_FAILURE' || event.reason === 'MERGE_CONFLICT') {
    const feedback =
      event.reason === 'CI_FAILURE'
        ? 'The merge queue removed the PR: checks failed on the merge group. Make them pass.'
        : `The merge queue removed the PR: it conflicts with ${event.baseRef}. Merge ${event.baseRef} in and resolve the conflicts.`;
    await sendBack(
      engine,
      scope,
      { row: found.pull, task: found.task, pull: { headSha: event.headSha } },
      feedback,
    );
    return;
  }
  await engine.store.pulls.update(found.pull.id, { enqueuedAt: null });
  await engine.store.runs.transitionTask(found.task.id, mergeReleased(found.task.state));
  await advanceRun(engine, scope);
}
