import type { AppServices } from './app-services.js';
import type { HandlerRegistry } from './repository-first.js';
import { onWorkflowRun } from '../engine/track.js';

/** Worker runs report back only through GitHub: workflow_run events move their attempts. */
export function registerWorkflowHandlers(app: HandlerRegistry, services: AppServices): void {
  app.on(
    ['workflow_run.requested', 'workflow_run.in_progress', 'workflow_run.completed'],
    async (context) => {
      const { repository } = context.payload;
      // Older payload types lack display_title; GitHub sends it on every workflow_run.
      const wr = context.payload.workflow_run as typeof context.payload.workflow_run & {
        display_title?: string;
      };
      if (wr.event !== 'workflow_dispatch') return;
      await onWorkflowRun(services.engine, repository.id, {
        id: wr.id,
        status: wr.status ?? 'queued',
        conclusion: wr.conclusion,
        htmlUrl: wr.html_url,
        headBranch: wr.head_branch,
        displayTitle: wr.display_title ?? wr.name ?? '',
        createdAt: wr.created_at,
        runAttempt: wr.run_attempt,
      });
    },
  );
}
