import type { Probot } from 'probot';
import type { AppServices } from '../app.js';
import { linkPullRequest, onPullRequestClosed } from '../engine/track.js';

/** Agent PRs are linked to their task as soon as they appear or move. */
export function registerPullRequestHandlers(app: Probot, services: AppServices): void {
  app.on(
    [
      'pull_request.opened',
      'pull_request.reopened',
      'pull_request.synchronize',
      'pull_request.edited',
    ],
    async (context) => {
      const { pull_request: pr, repository } = context.payload;
      if (!services.engine) return;
      await linkPullRequest(services.engine, repository.id, {
        number: pr.number,
        nodeId: pr.node_id,
        headRef: pr.head.ref,
        headSha: pr.head.sha,
        headRepoId: pr.head.repo?.id ?? null,
        baseRef: pr.base.ref,
        state: pr.state,
        merged: pr.merged ?? false,
      });
    },
  );

  app.on('pull_request.closed', async (context) => {
    const { pull_request: pr, repository, sender } = context.payload;
    if (!services.engine) return;
    await onPullRequestClosed(
      services.engine,
      repository.id,
      {
        number: pr.number,
        nodeId: pr.node_id,
        headRef: pr.head.ref,
        headSha: pr.head.sha,
        headRepoId: pr.head.repo?.id ?? null,
        baseRef: pr.base.ref,
        state: pr.state,
        merged: pr.merged ?? false,
      },
      { login: sender.login, isBot: sender.type === 'Bot' },
    );
  });
}
