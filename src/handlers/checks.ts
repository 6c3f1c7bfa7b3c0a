import type { Probot } from 'probot';
import type { AppServices } from './app-services.js';
import { ORDER_CHECK_NAME } from '../core/merge/index.js';
import { onChecksCompleted } from '../engine/merge/index.js';
import { judgeMergeGroup } from '../engine/merge/merge-group.js';
import { isOwnCheckResult } from '../webhooks/handled-events.js';

/** Check results on an agent PR head re-decide its merge; merge groups get the order verdict. */
export function registerCheckHandlers(app: Probot, services: AppServices): void {
  app.on(['check_run.completed', 'check_suite.completed'], async (context) => {
    const payload = context.payload as {
      check_run?: { head_sha: string; name: string };
      check_suite?: { head_sha: string };
    };
    // Ingest stores these as handled already; a delivery stored before it did still ends here.
    if (payload.check_run?.name === ORDER_CHECK_NAME) return;
    const { name, payload: body } = context;
    if (isOwnCheckResult(name, 'completed', body as Record<string, unknown>, services.appId))
      return;
    const sha = payload.check_run?.head_sha ?? payload.check_suite?.head_sha;
    if (!sha) return;
    await onChecksCompleted(services.engine, services.port(context.octokit), {
      repositoryId: context.payload.repository.id,
      sha,
    });
  });

  app.on('merge_group.checks_requested', async (context) => {
    const { engine } = services;
    const { merge_group: group, repository } = context.payload;
    if (!repository) return;
    await judgeMergeGroup(engine, services.port(context.octokit), {
      repositoryId: repository.id,
      repo: context.repo(),
      headRef: group.head_ref,
      headSha: group.head_sha,
    });
  });
}
