import type { Probot } from 'probot';
import type { AppServices } from '../app.js';
import { loadRunScope } from '../engine/context.js';
import { advanceRun, sendBack } from '../engine/merge/index.js';
import {
  isAgentPull,
  linkPullRequest,
  onPullRequestClosed,
  type PullEventInfo,
} from '../engine/track.js';
import { WRITE_ROLES } from '../github/port.js';
import { recordApproval } from '../engine/approval.js';
import { onChangesRequested } from '../engine/changes-requested.js';

interface PullPayload {
  number: number;
  node_id: string;
  state: string;
  merged?: boolean | null;
  head: { ref: string; sha: string; repo: { id: number } | null };
  base: { ref: string };
}

function pullInfo(pr: PullPayload, before?: string): PullEventInfo {
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
      const info = pullInfo(pr, before);
      if (!isAgentPull(info, repository.id)) return;
      // Two pushes' deliveries can arrive in either order: the head recorded is GitHub's now,
      // never an older one a late delivery carries.
      const repo = context.repo();
      const current =
        repo.owner && repo.repo ? await services.port(context.octokit).pull(repo, pr.number) : null;
      const linked = await linkPullRequest(engine, repository.id, {
        ...info,
        ...(current ? { state: current.state, merged: current.merged } : {}),
        currentHeadSha: current?.headSha,
      });
      if (!linked || linked.run.finishedAt) return;
      await advanceRun(
        engine,
        await loadRunScope(engine, linked.run, services.port(context.octokit)),
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

  // Left the merge queue without merging: the task waits again, or goes back to its worker.
  app.on('pull_request.dequeued', async (context) => {
    const { engine } = services;
    const { pull_request: pr, repository } = context.payload;
    const reason = (context.payload as { reason?: string }).reason ?? '';
    if (reason === 'MERGE') return;
    const found = await engine.store.pulls.withTask(repository.id, pr.number);
    if (!found || found.task.state !== 'merging') return;
    const failed = reason === 'CI_FAILURE' || reason === 'MERGE_CONFLICT';
    engine.log.info({ pr: pr.number, reason }, 'PR left the merge queue');
    const scope = await loadRunScope(engine, found.run, services.port(context.octokit));
    if (failed) {
      const feedback =
        reason === 'CI_FAILURE'
          ? 'The merge queue removed the PR: checks failed on the merge group. Make them pass.'
          : `The merge queue removed the PR: it conflicts with ${pr.base.ref}. Merge ${pr.base.ref} in and resolve the conflicts.`;
      await sendBack(
        engine,
        scope,
        { row: found.pull, task: found.task, pull: { headSha: pr.head.sha } },
        feedback,
      );
      return;
    }
    await engine.store.pulls.update(found.pull.id, { enqueuedAt: null });
    await engine.store.runs.transitionTask(found.task.id, {
      event: 'merge released',
      to: 'approved',
    });
    await advanceRun(engine, scope);
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
    if (review.state.toLowerCase() !== 'approved' || review.user?.type === 'Bot') return;
    const current = repo.owner && repo.repo ? await port.pull(repo, pr.number) : null;
    const linked =
      (await engine.store.pulls.withTask(repository.id, pr.number)) ??
      (await linkPullRequest(engine, repository.id, {
        ...pullInfo(pr),
        currentHeadSha: current?.headSha,
      }));
    if (!linked || linked.run.finishedAt) return;
    const role = await port.roleOf(context.repo(), review.user?.login ?? '');
    if (!WRITE_ROLES.has(role)) return;
    const task = (await engine.store.runs.taskById(linked.task.id)) ?? linked.task;
    const approved = await recordApproval(engine, task, {
      sha: review.commit_id,
      currentHead: current?.headSha ?? pr.head.sha,
    });
    if (approved) await advanceRun(engine, await loadRunScope(engine, linked.run, port));
  });
}
