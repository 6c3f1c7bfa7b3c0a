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
