import {
  changesRequestedFeedback,
  decideReview,
  isAgentPull,
  reviewReads,
} from '../core/lifecycle/index.js';
import type { ReviewEvent, ReviewSnapshot } from '../core/lifecycle/index.js';
import { WRITE_ROLES } from '../core/roles.js';
import type { GitHubPort, RepoCoords } from '../github/port.js';
import type { PullRow } from '../store/pulls.js';
import type { RunRow, TaskRow } from '../store/runs.js';
import { recordApproval } from './approval.js';
import { loadRunScope, type Engine, type RunScope } from './context.js';
import { reviewFeedbackOf } from './feedback.js';
import { advanceRun, sendBack } from './merge/index.js';
import { freshRoleOf } from './roles.js';
import { recordedAgentPull, type PullEventInfo } from './track.js';

export interface SubmittedReviewEvent extends ReviewEvent {
  body: string;
  url: string;
}

/** What was read for the review: core's snapshot and the rows its effects are applied to. */
interface ReadReview {
  snapshot: ReviewSnapshot;
  run: RunRow;
  task: TaskRow;
  pull: PullRow;
}

/**
 * A review submitted on a PR: read what core's `reviewReads` says the review needs (the agent
 * PR's task, GitHub's head now, the reviewer's role), let `decideReview` decide (approve, send
 * back, or nothing and why), apply. The review may come (or be handled) before the worker's run
 * has completed, or before the PR's own opened delivery: the PR is linked to its task then.
 */
export async function onReviewSubmitted(
  engine: Engine,
  port: GitHubPort,
  repo: RepoCoords,
  repositoryId: number,
  pull: PullEventInfo,
  review: SubmittedReviewEvent,
): Promise<void> {
  const read = await readReview(engine, port, repo, repositoryId, pull, review);
  const log = engine.log.child({ pr: pull.number, review: review.id });
  let scope: RunScope | undefined;
  const scopeOf = async (run: RunRow) => (scope ??= await loadRunScope(engine, run, port));
  for (const effect of decideReview(read?.snapshot ?? null, review)) {
    if (effect.kind === 'none') {
      // A plain comment review is everyday talk; a review of an agent PR that does nothing is news.
      if (read) log.info({ run: read.run.id, why: effect.reason }, 'review changes nothing');
      else log.debug({ why: effect.reason }, 'review changes nothing');
      continue;
    }
    // decideReview acts only on a task it was shown.
    if (!read) throw new Error(`no task for PR #${pull.number}`);
    switch (effect.kind) {
      case 'approve':
        if (!(await recordApproval(engine, read.task, effect.approval))) return;
        break;
      case 'sendBack':
        if (
          !(await sendBackForReview(engine, await scopeOf(read.run), read, review, {
            inMergeQueue: effect.inMergeQueue,
          }))
        )
          return;
        break;
      case 'advance':
        await advanceRun(engine, await scopeOf(read.run));
        break;
    }
  }
}

async function readReview(
  engine: Engine,
  port: GitHubPort,
  repo: RepoCoords,
  repositoryId: number,
  pull: PullEventInfo,
  review: SubmittedReviewEvent,
): Promise<ReadReview | null> {
  const reads = reviewReads(review);
  // A payload that names no repository (a malformed delivery) is nothing to ask GitHub about.
  if (reads === 'nothing' || !repo.owner || !repo.repo || !isAgentPull(pull, repositoryId))
    return null;
  // Asked of GitHub each time, as a command's sender is: an approval grants a merge and a request
  // for changes sends its body to the agent, and someone removed a moment ago may do neither.
  const role = review.authorIsBot
    ? undefined
    : await freshRoleOf(engine, port, repo, review.author);
  const authorCanWrite = role !== undefined && WRITE_ROLES.has(role);
  // An approval is for a head: the PR may be newer than anything handled so far. And either
  // review may have been dismissed since it was delivered. A review by someone who cannot write
  // does nothing whatever GitHub shows (decideReview): nothing more is read for it.
  const [current, reviewState] = authorCanWrite
    ? await Promise.all([
        reads === 'approval' ? port.pull(repo, pull.number) : null,
        port.reviewState(repo, pull.number, review.id),
      ])
    : [null, null];
  const found = await recordedAgentPull(engine, repositoryId, {
    ...pull,
    currentHeadSha: current?.headSha,
  });
  if (!found) return null;
  const task = (await engine.store.runs.taskById(found.task.id)) ?? found.task;
  return {
    run: found.run,
    task,
    pull: found.pull,
    snapshot: {
      runFinished: found.run.finishedAt !== null,
      task,
      authorCanWrite,
      currentHead: current?.headSha ?? pull.headSha,
      reviewState,
      reviewAlreadySentBack: found.pull.sentBackForReviews.includes(review.id),
      enqueued: found.pull.enqueuedAt !== null,
    },
  };
}

/**
 * The review and every unresolved thread on the PR go back to the worker, once per review; false
 * when this review was claimed before (a redelivery).
 */
async function sendBackForReview(
  engine: Engine,
  scope: RunScope,
  read: ReadReview,
  review: SubmittedReviewEvent,
  queue: { inMergeQueue: boolean },
): Promise<boolean> {
  const { review: feedback } = await reviewFeedbackOf(engine, scope, read.pull.number, {
    reviewer: review.author,
    body: review.body,
    url: review.url,
  });
  // Claimed last, right before the send-back: a redelivery finds it claimed.
  if (!(await engine.store.pulls.claimReview(read.pull.id, review.id))) return false;
  await sendBack(
    engine,
    scope,
    { row: read.pull, task: read.task, pull: { headSha: read.pull.headSha } },
    changesRequestedFeedback(review.author, feedback.threads.length + feedback.omittedThreads),
    { review: feedback, requestReviewFrom: review.author },
    queue,
  );
  return true;
}
