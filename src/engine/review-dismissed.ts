import { decideReviewDismissed, isAgentPull } from '../core/lifecycle/index.js';
import type { DismissedReview } from '../core/lifecycle/index.js';
import type { GitHubPort } from '../github/port.js';
import { clearApproval } from './approval.js';
import { loadRunScope, type Engine } from './context.js';
import { advanceRun } from './merge/index.js';
import { recordedAgentPull, type PullEventInfo } from './track.js';

export interface DismissedReviewEvent extends DismissedReview {
  /** Who dismissed it (the delivery's sender). */
  dismissedBy: string;
}

/**
 * A review dismissed on a PR: core's `decideReviewDismissed` says whether the task's approval was
 * the review's; if so it is withdrawn, only while the task still holds it (an approval given
 * since stands), the run's status shows the task back in review, and its merges are decided
 * again (the order check closes on the head; a queued PR leaves the queue). Nothing is replied:
 * the dismissal, with its reason, is on the PR already.
 */
export async function onReviewDismissed(
  engine: Engine,
  port: GitHubPort,
  repositoryId: number,
  pull: PullEventInfo,
  review: DismissedReviewEvent,
): Promise<void> {
  const found = isAgentPull(pull, repositoryId)
    ? await recordedAgentPull(engine, repositoryId, pull)
    : undefined;
  const log = engine.log.child({ pr: pull.number, review: review.id });
  const effects = decideReviewDismissed(found ? { task: found.task } : null, review);
  for (const effect of effects) {
    if (effect.kind === 'none') {
      log.info(
        { why: effect.reason, dismissedBy: review.dismissedBy },
        'review dismissed: nothing withdrawn',
      );
      continue;
    }
    // decideReviewDismissed acts only on a task it was shown.
    if (!found) throw new Error(`no task for PR #${pull.number}`);
    switch (effect.kind) {
      case 'withdrawApproval': {
        const withdrawn = await clearApproval(engine, found.task, effect.move, effect.approval);
        log.info(
          {
            run: found.run.id,
            task: found.task.taskKey,
            sha: effect.approval.sha,
            approver: effect.approval.by,
            dismissedBy: review.dismissedBy,
            withdrawn: withdrawn !== undefined,
          },
          'review dismissed: its approval withdrawn if still held',
        );
        if (!withdrawn) return;
        break;
      }
      case 'requestStatus':
        engine.requestStatus(found.run.id);
        break;
      case 'advance':
        await advanceRun(engine, await loadRunScope(engine, found.run, port));
        break;
    }
  }
}
