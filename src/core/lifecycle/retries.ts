import { parseDuration } from '../duration.js';

/** `retries` of docs/configuration.md. */
export interface RetryPolicy {
  max: number;
  /** One delay per retry; retries past the list wait its last entry. */
  backoff: readonly string[];
}

export type FailedAttemptVerdict = { kind: 'retry'; at: Date; delayMs: number } | { kind: 'fail' };

export type SendBackVerdict = { kind: 'send_back' } | { kind: 'fail'; reason: string };

/**
 * The one retry limit (docs/lifecycle.md "Failures and retries"): the first attempt is not a
 * retry, so a task may have `retries.max + 1` attempts in all.
 */
function hasRetryLeft(attemptCount: number, retries: RetryPolicy): boolean {
  return attemptCount - 1 < retries.max;
}

/** A failed attempt is retried on the same branch and PR after its backoff, or fails for good. */
export function afterFailedAttempt(
  attemptCount: number,
  retries: RetryPolicy,
  now: Date,
): FailedAttemptVerdict {
  if (!hasRetryLeft(attemptCount, retries)) return { kind: 'fail' };
  const retriesUsed = attemptCount - 1;
  const backoff = retries.backoff[Math.min(retriesUsed, retries.backoff.length - 1)] ?? '0s';
  const delayMs = parseDuration(backoff) ?? 0;
  return { kind: 'retry', at: new Date(now.getTime() + delayMs), delayMs };
}

/**
 * Conflicts or failing checks send the PR back to its worker in `mode=fix`: that is another
 * attempt, so it needs a retry left like any other.
 */
export function afterSendBack(
  attemptCount: number,
  retries: RetryPolicy,
  feedback: string,
): SendBackVerdict {
  if (hasRetryLeft(attemptCount, retries)) return { kind: 'send_back' };
  return { kind: 'fail', reason: `no retries left to fix it: ${feedback}` };
}

/**
 * The mode of the attempt after a failed one. An attempt stopped at its time limit pushed what
 * it had (docs/worker.md, "The time limit"): with a PR to build on, the retry goes on from
 * those commits in `fix` mode, since `work` would start the branch over from the base. Any
 * other failure keeps the mode the task had.
 */
export function modeAfterFailedAttempt(attempt: {
  /** `<reason>` or `<reason>: <detail>`, as the attempt stored it. */
  failureReason: string | null;
  mode: 'work' | 'fix';
  hasPull: boolean;
}): 'work' | 'fix' {
  const reason = attempt.failureReason?.split(':', 1)[0]?.trim();
  if (reason === 'timed_out' && attempt.hasPull) return 'fix';
  return attempt.mode;
}
