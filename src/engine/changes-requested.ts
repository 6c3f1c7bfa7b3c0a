import { decideChangesRequested } from '../core/lifecycle/index.js';
import { WRITE_ROLES } from '../core/roles.js';
import type { GitHubPort, RepoCoords } from '../github/port.js';
import { loadRunScope, type Engine } from './context.js';
import { reviewFeedbackOf } from './feedback.js';
import { roleOf } from './roles.js';
import { sendBack } from './merge/index.js';
import { recordedAgentPull, type PullEventInfo } from './track.js';

export interface ChangesRequestedReview {
  id: number;
  author: string;
  authorIsBot: boolean;
  body: string;
  url: string;
}

/**
 * A "changes requested" review of an agent PR sends its task back to the worker in `mode=fix`
 * with the review and every unresolved thread on the PR (docs/lifecycle.md, "Reviews"): once
 * per review, within `retries.max`. Core's `decideChangesRequested` says which reviews do.
 */
export async function onChangesRequested(
  engine: Engine,
  port: GitHubPort,
  repo: RepoCoords,
  repositoryId: number,
  pull: PullEventInfo,
  review: ChangesRequestedReview,
): Promise<void> {
  const { pulls, runs } = engine.store;
  const found = await recordedAgentPull(engine, repositoryId, pull);
  if (!found) return;
  const task = (await runs.taskById(found.task.id)) ?? found.task;
  const canWrite =
    !review.authorIsBot && WRITE_ROLES.has(await roleOf(engine, port, repo, review.author));
  const verdict = decideChangesRequested(
    { state: 'changes_requested', authorIsBot: review.authorIsBot, authorCanWrite: canWrite },
    {
      state: task.state,
      runFinished: found.run.finishedAt !== null,
      reviewAlreadySentBack: found.pull.sentBackForReviews.includes(review.id),
    },
  );
  const log = engine.log.child({
    run: found.run.id,
    task: task.taskKey,
    pr: pull.number,
    review: review.id,
  });
  if (verdict.kind === 'ignore') {
    log.info({ why: verdict.why }, 'review requesting changes not sent back');
    return;
  }
  const scope = await loadRunScope(engine, found.run, port);
  const feedback = await reviewFeedbackOf(engine, scope, pull.number, {
    reviewer: review.author,
    body: review.body,
    url: review.url,
  });
  // Claimed last, right before the send-back: a redelivery finds it claimed.
  if (!(await pulls.claimReview(found.pull.id, review.id))) return;
  const threads = feedback.threads.length + feedback.omittedThreads;
  await sendBack(
    engine,
    scope,
    { row: found.pull, task, pull: { headSha: pull.currentHeadSha ?? found.pull.headSha } },
    `${review.author} requested changes in a review (${threads} unresolved thread${threads === 1 ? '' : 's'}): address the review and each thread.`,
    { review: feedback, requestReviewFrom: review.author },
  );
}
