import type { RepoConfig } from '../../config/schema.js';
import type { GitHubPort } from '../../github/port.js';
import { decideDequeued, readsTaskOnDequeue, type DequeuedEvent } from '../../core/merge/index.js';
import { loadRunScope, type Engine, type RunScope } from '../context.js';
import { advanceRun } from './index.js';
import { sendBack } from './outcomes.js';

export interface DequeuedDelivery extends DequeuedEvent {
  repositoryId: number;
  number: number;
  headSha: string;
}

/**
 * Left the merge queue: read the PR's task, let core decide (`decideDequeued`: the task waits
 * again, or goes back to its worker), apply.
 */
export async function onDequeued(
  engine: Engine,
  port: GitHubPort,
  event: DequeuedDelivery,
): Promise<void> {
  const found = readsTaskOnDequeue(event)
    ? await engine.store.pulls.withTask(event.repositoryId, event.number)
    : undefined;
  const effects = decideDequeued(
    {
      task: found?.task ?? null,
      requireApproval: found ? (found.run.config as RepoConfig).merge.requireApproval : true,
    },
    event,
  );
  const log = engine.log.child({ pr: event.number, reason: event.reason });
  let scope: RunScope | undefined;
  for (const effect of effects) {
    if (effect.kind === 'none') {
      log.debug({ why: effect.reason }, 'PR left the merge queue: nothing to do');
      continue;
    }
    // decideDequeued acts only on a task it was shown.
    if (!found) throw new Error(`no task for PR #${event.number}`);
    scope ??= await loadRunScope(engine, found.run, port);
    switch (effect.kind) {
      case 'sendBack':
        log.info('PR left the merge queue');
        await sendBack(
          engine,
          scope,
          { row: found.pull, task: found.task, pull: { headSha: event.headSha } },
          effect.feedback,
        );
        break;
      case 'releaseMerge':
        log.info('PR left the merge queue');
        await engine.store.pulls.update(found.pull.id, { enqueuedAt: null });
        await engine.store.runs.transitionTask(found.task.id, effect.move);
        break;
      case 'advance':
        await advanceRun(engine, scope);
        break;
    }
  }
}
