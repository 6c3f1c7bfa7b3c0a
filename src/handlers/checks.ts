import type { AppServices } from './app-services.js';
import type { HandlerRegistry } from './repository-first.js';
import { checkResultFactsOf, decideCheckResult } from '../core/merge/index.js';
import { onChecksCompleted } from '../engine/checks-completed.js';
import { judgeMergeGroup } from '../engine/merge/merge-group.js';

/**
 * Check results on an agent PR head re-decide its merge, and reveal a head whose push was not
 * delivered; merge groups get the order verdict.
 */
export function registerCheckHandlers(app: HandlerRegistry, services: AppServices): void {
  app.on(['check_run.completed', 'check_suite.completed'], async (context) => {
    const facts = checkResultFactsOf(
      context.name,
      context.payload as unknown as Record<string, unknown>,
    );
    // Ingest stores the ones core leaves out as handled; a delivery stored before it did ends here.
    const [decision] = decideCheckResult(facts, services.appId);
    if (decision.kind === 'none') {
      services.engine.log.debug({ why: decision.reason }, 'check result: nothing to do');
      return;
    }
    await onChecksCompleted(services.engine, services.port(context.octokit), {
      repositoryId: context.payload.repository.id,
      repo: context.repo(),
      sha: decision.sha,
      pulls: decision.pulls,
      actionsCheckSuite: decision.actionsCheckSuite,
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
      baseRef: group.base_ref,
    });
  });
}
