import { taskBranch } from '../../protocol/branch.js';
import { WORKER_FAILURE_REASONS } from '../../protocol/failure-reasons.js';
import { parseAgentConfigMarker, parseUsageMarker, type Usage } from '../../protocol/markers.js';
import { parseRunName } from '../../protocol/run-name.js';
import { nothing, type NoEffect } from '../no-effect.js';
import { attemptSucceeded, isOpenPull } from './facts.js';

/**
 * The attempt a workflow run names, when GitHub answered the dispatch with 204 and no run id:
 * its run-name (which the coordinator chose) and its branch must agree. Null for any other run.
 */
export function namedWorkerRun(run: {
  displayTitle: string;
  headBranch: string | null;
}): { issueNumber: number; taskKey: string; attempt: number } | null {
  const named = parseRunName(run.displayTitle);
  if (!named || run.headBranch !== taskBranch(named.issueNumber, named.taskKey)) return null;
  return named;
}

/**
 * Whether a workflow run found by its name is the attempt's: `adopt` when the attempt knows no run
 * yet (its id is recorded then), `tracked` when it is the run the attempt knows.
 */
export function decideRunAdoption(
  attempt: { workflowRunId: number | null },
  runId: number,
): { kind: 'adopt' } | { kind: 'tracked' } | NoEffect {
  if (attempt.workflowRunId === null) return { kind: 'adopt' };
  if (attempt.workflowRunId === runId) return { kind: 'tracked' };
  return { kind: 'none', reason: 'the attempt tracks another workflow run' };
}

/**
 * A PR that can be a task's open agent PR: open, from this same repository (a fork's PR on a
 * branch of the same name never is).
 */
export function isOpenPullOfRepository(
  pull: { state: string; merged?: boolean; headRepoId: number | null },
  repositoryId: number,
): boolean {
  return isOpenPull(pull) && pull.headRepoId === repositoryId;
}

/** What the issue is told about a failed attempt, from its stored reason or conclusion. */
export function describeAttemptFailure(attempt: {
  failureReason: string | null;
  conclusion: string | null;
}): string {
  const reason = attempt.failureReason;
  if (reason === 'no_changes') return 'the worker finished without a pull request (no_changes)';
  const word = reason === null ? undefined : /^([a-z_]+)(?::|$)/.exec(reason)?.[1];
  if (word && Object.hasOwn(WORKER_FAILURE_REASONS, word)) return `the worker failed: ${reason}`;
  return `the worker run ended with ${reason ?? attempt.conclusion ?? 'failure'}`;
}

/**
 * How an attempt's work ends: its worker's run concluded (decideWorkerRun's `complete_succeeded`
 * or `complete_failed`, with the reason the worker's job annotated, if any), or the sweep finds
 * the task still behind an attempt completed before the process died (`resumed`).
 */
export type AttemptCompletedEvent =
  | {
      kind: 'succeeded';
      /** What the worker's agent job says the attempt spent (src/protocol/usage-annotation.ts). */
      usage?: Usage;
    }
  | {
      kind: 'failed';
      conclusion: string;
      workerReason?: string;
      /** What the worker's agent job says the attempt spent. */
      usage?: Usage;
    }
  | {
      kind: 'resumed';
      attempt: { conclusion: string | null; failureReason: string | null; costUsd: number | null };
    };

export interface AttemptCompletedSnapshot {
  /**
   * The task's open agent PR as GitHub shows it, when `readsAgentPull` says it is read (null
   * then when it has none, and when it is not read).
   */
  pull: { body: string } | null;
}

/**
 * What a succeeded attempt is charged (docs/worker.md, "What the agent spent"): what its agent
 * job said it spent (`own`), or, where the job said nothing (a worker from before the agent job
 * said its usage on every attempt, or its annotations could not be read), its share of the task's
 * running total in the PR's usage marker (`markerTotal`: the total less what the task's earlier
 * succeeded attempts were charged). The marker is the PR body's, which anyone with write access,
 * and a workflow token that may write pull requests, can edit, and a new PR for the task starts
 * again from nothing: it is the fallback, never preferred.
 */
export type AttemptSpend = { kind: 'own'; usage: Usage } | { kind: 'markerTotal'; total: Usage };

function succeededSpend(
  said: Usage | undefined,
  pull: { body: string } | null,
): AttemptSpend | undefined {
  if (said) return { kind: 'own', usage: said };
  const total = pull ? parseUsageMarker(pull.body) : undefined;
  return total && { kind: 'markerTotal', total };
}

/**
 * Carried out in order. The completions and `enterReview` are guarded writes: when one does not
 * take (a redelivery found the attempt completed, or the task moved on meanwhile), the effects
 * after it are not carried out.
 */
export type AttemptCompletedEffect =
  | NoEffect
  /** The worker succeeded without opening a PR: its attempt completes as `no_changes`. */
  | { kind: 'completeWithoutPull'; failureReason: 'no_changes'; spend: AttemptSpend | undefined }
  /**
   * The attempt completes with what it is charged, the PR is recorded and the task goes into
   * review: one write, which takes when the task moved.
   */
  | { kind: 'completeIntoReview'; spend: AttemptSpend | undefined; agentConfigChanged: string[] }
  /** With what the attempt spent that no PR's usage marker records, when the worker said. */
  | { kind: 'completeFailed'; conclusion: string; failureReason: string; usage?: Usage }
  /** The PR is recorded and the task goes into review, from an attempt completed before. */
  | { kind: 'enterReview'; agentConfigChanged: string[] }
  /** The failed attempt is retried after its backoff, or the task fails for good. */
  | { kind: 'retryOrFail'; reason: string }
  /** The reviewer of the feedback the attempt answered is asked to review again. */
  | { kind: 'requestReviewAgain' }
  /** The run is held if its spend reached the budget. */
  | { kind: 'enforceBudget' }
  | { kind: 'requestStatus' }
  /** Decide the run's merges again. */
  | { kind: 'advance' };

/** Whether deciding needs the task's open agent PR read from GitHub: only a success has one. */
export function readsAgentPull(event: AttemptCompletedEvent): boolean {
  switch (event.kind) {
    case 'succeeded':
      return true;
    case 'failed':
      return false;
    case 'resumed':
      return attemptSucceeded(event.attempt);
  }
}

const IN_REVIEW: AttemptCompletedEffect[] = [
  { kind: 'requestReviewAgain' },
  { kind: 'enforceBudget' },
  { kind: 'requestStatus' },
  { kind: 'advance' },
];

/**
 * docs/lifecycle.md steps 6–7 and "Failures": a succeeded attempt's PR goes into review (the
 * reviewer asked again, the budget checked, merges decided); a success without a PR is
 * `no_changes`, which fails the attempt; a failed attempt is retried or fails its task, after
 * the budget is checked when it spent something. A task
 * the sweep finds behind its completed attempt moves on the same way; its PR gone since (closed
 * by a person) is left to the closed PR's own event.
 */
export function decideAttemptCompleted(
  snapshot: AttemptCompletedSnapshot,
  event: AttemptCompletedEvent,
): AttemptCompletedEffect[] {
  const { pull } = snapshot;
  switch (event.kind) {
    case 'succeeded': {
      const spend = succeededSpend(event.usage, pull);
      if (!pull) {
        const failureReason = 'no_changes';
        return [
          { kind: 'completeWithoutPull', failureReason, spend },
          {
            kind: 'retryOrFail',
            reason: describeAttemptFailure({ failureReason, conclusion: 'success' }),
          },
        ];
      }
      return [
        {
          kind: 'completeIntoReview',
          spend,
          agentConfigChanged: parseAgentConfigMarker(pull.body),
        },
        ...IN_REVIEW,
      ];
    }
    case 'failed': {
      const { conclusion, usage } = event;
      const failureReason = event.workerReason ?? conclusion;
      const retry = describeAttemptFailure({ failureReason, conclusion });
      if (!usage)
        return [
          { kind: 'completeFailed', conclusion, failureReason },
          { kind: 'retryOrFail', reason: retry },
        ];
      // Its spend counts before the retry: a run it took past the budget is held, and the
      // retry waits for an `/unhold` like every other dispatch.
      return [
        { kind: 'completeFailed', conclusion, failureReason, usage },
        { kind: 'enforceBudget' },
        { kind: 'retryOrFail', reason: retry },
      ];
    }
    case 'resumed': {
      const { attempt } = event;
      if (!attemptSucceeded(attempt)) {
        const retry: AttemptCompletedEffect = {
          kind: 'retryOrFail',
          reason: describeAttemptFailure(attempt),
        };
        // The process may have died between a failure's spend and the budget's check of it.
        return attempt.costUsd === null ? [retry] : [{ kind: 'enforceBudget' }, retry];
      }
      if (!pull) return nothing('the PR is gone since (closed): its closed event decides');
      return [
        { kind: 'enterReview', agentConfigChanged: parseAgentConfigMarker(pull.body) },
        ...IN_REVIEW,
      ];
    }
  }
}
