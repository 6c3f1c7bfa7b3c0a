import type { AppServices } from './app-services.js';
import type { HandlerRegistry } from './repository-first.js';
import { onDequeued } from '../engine/merge/dequeued.js';
import { onPullRequestChanged, onPullRequestClosed, type PullEventInfo } from '../engine/track.js';
import { onReviewSubmitted } from '../engine/review.js';
import { onReviewDismissed } from '../engine/review-dismissed.js';
import { postAnswer } from './post-answer.js';
import { refuse } from './refuse.js';
import { labelRefusalKey } from './refusal-budget.js';
import type { PullRefusal } from '../engine/look-alike.js';
import type { GitHubPort, RepoCoords } from '../github/port.js';

interface PullPayload {
  number: number;
  node_id: string;
  state: string;
  merged?: boolean | null;
  head: { ref: string; sha: string; repo: { id: number } | null };
  base: { ref: string };
  body?: string | null;
  updated_at?: string;
  user: { login: string } | null;
}

/**
 * The PR as a delivery carries it. `dated`: an `opened` or `synchronize` delivery, whose
 * `updated_at` is when its head reached the PR (GitHub sets it to the time of the event).
 */
function pullInfo(pr: PullPayload, before?: string, dated = false): PullEventInfo {
  const updatedAt = pr.updated_at ? new Date(pr.updated_at) : undefined;
  const at = updatedAt && !Number.isNaN(updatedAt.getTime()) ? updatedAt : undefined;
  return {
    number: pr.number,
    nodeId: pr.node_id,
    userLogin: pr.user?.login ?? 'ghost',
    headRef: pr.head.ref,
    headSha: pr.head.sha,
    headRepoId: pr.head.repo?.id ?? null,
    baseRef: pr.base.ref,
    state: pr.state,
    merged: pr.merged ?? false,
    before,
    body: pr.body ?? '',
    ...(at && before !== undefined ? { pushedAt: at } : {}),
    ...(at && dated ? { headArrivedAt: at } : {}),
  };
}

/** Agent PRs are linked to their task as soon as they appear or move, then merges are re-decided. */
export function registerPullRequestHandlers(app: HandlerRegistry, services: AppServices): void {
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
      const { action } = context.payload;
      const before = action === 'synchronize' ? context.payload.before : undefined;
      // A PR's first event: the engine takes the PR as delivered (onPullRequestChanged).
      const info = {
        ...pullInfo(pr, before, action === 'opened' || action === 'synchronize'),
        asDelivered: action === 'opened',
      };
      const port = services.port(context.octokit);
      const repo = context.repo();
      // A PR someone without write access opened from a task branch is closed, and its author
      // told why (core's decideLookAlikePull).
      const refused = await onPullRequestChanged(engine, port, repo, repository.id, info);
      if (refused)
        await answerRefusal(services, port, repo, context.id, {
          repositoryId: repository.id,
          number: pr.number,
          actor: info.userLogin,
          refused,
        });
    },
  );

  // A close by someone who may not reject the task (core's decidePullClosed) is answered as a
  // refused command is: recorded (by the engine, before the PR is opened again), and replied to
  // within the refusal budget.
  app.on('pull_request.closed', async (context) => {
    const { pull_request: pr, repository, sender } = context.payload;
    const port = services.port(context.octokit);
    const repo = context.repo();
    const refusalKey = labelRefusalKey(context.id);
    const refused = await onPullRequestClosed(
      services.engine,
      { port, repo },
      repository.id,
      pullInfo(pr),
      { login: sender.login, isBot: sender.type === 'Bot', deliveryId: context.id, refusalKey },
    );
    if (!refused?.answered || !repo.owner || !repo.repo) return;
    await postAnswer(port, repo, pr.number, {
      key: refusalKey,
      text: `@${sender.login} ${refused.reason}.`,
      handledBefore: refused.recordedBefore,
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

  // A review is decided in one place (engine/review.ts, core's decideReview): an approval from a
  // write+ person approves the reviewed commit, a request for changes sends the task back, other
  // reviews change nothing (docs/lifecycle.md, "Reviews").
  app.on('pull_request_review.submitted', async (context) => {
    const { review, pull_request: pr, repository } = context.payload;
    await onReviewSubmitted(
      services.engine,
      services.port(context.octokit),
      context.repo(),
      repository.id,
      pullInfo(pr),
      {
        state: review.state,
        id: review.id,
        author: review.user?.login ?? 'ghost',
        authorIsBot: review.user?.type === 'Bot',
        commitId: review.commit_id,
        body: review.body ?? '',
        url: review.html_url,
      },
    );
  });

  // A dismissed review no longer approves: core's decideReviewDismissed withdraws the task's
  // approval when it was the review's (docs/lifecycle.md, "Reviews"). The payload's review is
  // the review as given (its author and commit), with `state: dismissed`; the sender dismissed it.
  app.on('pull_request_review.dismissed', async (context) => {
    const { review, pull_request: pr, repository, sender } = context.payload;
    await onReviewDismissed(
      services.engine,
      services.port(context.octokit),
      repository.id,
      pullInfo(pr),
      {
        id: review.id,
        author: review.user?.login ?? 'ghost',
        commitId: review.commit_id,
        dismissedBy: sender.login,
      },
    );
  });
}

/** A PR event core refused, recorded and answered on the PR as a refused command is. */
function answerRefusal(
  services: AppServices,
  port: GitHubPort,
  repo: RepoCoords,
  deliveryId: string,
  on: { repositoryId: number; number: number; actor: string; refused: PullRefusal },
): Promise<void> {
  const { refused } = on;
  return refuse(services, port, repo, {
    repositoryId: on.repositoryId,
    issueNumber: on.number,
    actor: on.actor,
    role: refused.role,
    deliveryId,
    name: refused.name,
    args: {},
    reason: refused.reason,
    reply: `${refused.reason}.`,
    runId: refused.runId,
  });
}
