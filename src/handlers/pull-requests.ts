import type { Probot } from 'probot';
import type { AppServices } from './app-services.js';
import { onDequeued } from '../engine/merge/dequeued.js';
import {
  isAgentPull,
  onPullRequestChanged,
  onPullRequestClosed,
  type PullEventInfo,
} from '../engine/track.js';
import { onApprovingReview } from '../engine/approving-review.js';
import { onChangesRequested } from '../engine/changes-requested.js';

interface PullPayload {
  number: number;
  node_id: string;
  state: string;
  merged?: boolean | null;
  head: { ref: string; sha: string; repo: { id: number } | null };
  base: { ref: string };
  body?: string | null;
  updated_at?: string;
}

function pullInfo(pr: PullPayload, before?: string): PullEventInfo {
  const pushedAt = before === undefined || !pr.updated_at ? undefined : new Date(pr.updated_at);
  return {
    number: pr.number,
    nodeId: pr.node_id,
    headRef: pr.head.ref,
    headSha: pr.head.sha,
    headRepoId: pr.head.repo?.id ?? null,
    baseRef: pr.base.ref,
    state: pr.state,
    merged: pr.merged ?? false,
    before,
    body: pr.body ?? '',
    ...(pushedAt && !Number.isNaN(pushedAt.getTime()) ? { pushedAt } : {}),
  };
}

/** Agent PRs are linked to their task as soon as they appear or move, then merges are re-decided. */
export function registerPullRequestHandlers(app: Probot, services: AppServices): void {
  app.on(
    [
      'pull_request.opened',
      'pull_request.reopened',
      'pull_request.synchronize',
      'pull_request.edited',
      'pull_request.ready_for_review',
    ],
    async (context) => {
      const { engine } = services;
      const { pull_request: pr, repository } = context.payload;
      const before = context.payload.action === 'synchronize' ? context.payload.before : undefined;
      // A PR's first event: the engine takes the PR as delivered (onPullRequestChanged).
      const info = { ...pullInfo(pr, before), asDelivered: context.payload.action === 'opened' };
      await onPullRequestChanged(
        engine,
        services.port(context.octokit),
        context.repo(),
        repository.id,
        info,
      );
    },
  );

  app.on('pull_request.closed', async (context) => {
    const { pull_request: pr, repository, sender } = context.payload;
    await onPullRequestClosed(services.engine, repository.id, pullInfo(pr), {
      login: sender.login,
      isBot: sender.type === 'Bot',
    });
  });

  app.on('pull_request.dequeued', async (context) => {
    const { pull_request: pr, repository } = context.payload;
    await onDequeued(services.engine, services.port(context.octokit), {
      repositoryId: repository.id,
      number: pr.number,
      baseRef: pr.base.ref,
      headSha: pr.head.sha,
      reason: (context.payload as { reason?: string }).reason ?? '',
    });
  });

  // An approving review from a write+ user approves the task for the reviewed commit, in
  // whatever phase its attempt is: the review may come (or be handled) before the worker's run
  // has completed, or before the PR's own opened delivery.
  app.on('pull_request_review.submitted', async (context) => {
    const { engine } = services;
    const { review, pull_request: pr, repository } = context.payload;
    const port = services.port(context.octokit);
    const repo = context.repo();
    // A review asking for changes is feedback for the worker; other reviews that are no
    // approval, like plain comments, never start work (docs/lifecycle.md, "Reviews").
    if (review.state.toLowerCase() === 'changes_requested') {
      if (!isAgentPull(pullInfo(pr), repository.id)) return;
      await onChangesRequested(engine, port, repo, repository.id, pullInfo(pr), {
        id: review.id,
        author: review.user?.login ?? 'ghost',
        authorIsBot: review.user?.type === 'Bot',
        body: review.body ?? '',
        url: review.html_url,
      });
      return;
    }
    if (review.state.toLowerCase() !== 'approved') return;
    await onApprovingReview(engine, port, repo, repository.id, pullInfo(pr), {
      commitId: review.commit_id,
      author: review.user?.login ?? '',
      authorIsBot: review.user?.type === 'Bot',
    });
  });
}
