import { ProbotOctokit } from 'probot';

/** Rate-limited requests are retried this many times (after GitHub's retry-after each time). */
export const RATE_LIMIT_RETRIES = 2;

interface ThrottledRequest {
  method: string;
  url: string;
}

type Log = { warn(details: object, message: string): void };

interface HookedOctokit {
  hook: {
    before(name: 'request', fn: (options: { request?: Record<string, unknown> }) => void): void;
  };
}

/**
 * @octokit/plugin-retry counts retries on `options.request`, which is the instance's shared
 * defaults object unless a call passes its own: after one retry, every later request of the same
 * Octokit starts counting at 1 and waits 4 s (then 9 s) instead of 1 s. A per-request copy,
 * made before the retry plugin sees the request, keeps each count to its own request.
 */
function ownRetryCount(octokit: HookedOctokit): void {
  octokit.hook.before('request', (options) => {
    options.request = { ...options.request };
  });
}

/**
 * The throttling plugin's key (its documented `throttle.id`): the installation's id, whichever
 * way the client was made. Probot sets it for `probot.auth(id)`, but the client it hands each
 * webhook handler (`context.octokit`, made by octokit-auth-probot's event auth) keeps the
 * plugin's default `no-id`, so every installation's webhook-path writes shared one
 * one-a-second limiter in the process, apart from the same installation's engine client
 * (measured: bench/README.md, benchmark 6).
 */
export function throttleIdOf(options: Record<string, unknown>): string | undefined {
  const installationId = (options.auth as { installationId?: unknown } | undefined)?.installationId;
  if (typeof installationId === 'number' || typeof installationId === 'string')
    return String(installationId);
  return (options.throttle as { id?: string } | undefined)?.id;
}

/**
 * Probot's Octokit (retry and throttling plugins on) with three changes. Its throttling is keyed
 * by installation for every client (`throttleIdOf`). Probot 14 only logs a
 * secondary rate limit (403 or 429 "You have exceeded a secondary rate limit") and gives up, so
 * the handler failed and its delivery came back after our own backoff, which knows nothing of
 * GitHub's `retry-after`: here the throttling plugin waits `retry-after` seconds (its fallback is
 * 60) and sends the request again, a bounded number of times. Retries count per request.
 */
export const CoordinatorOctokit = ProbotOctokit.plugin(ownRetryCount).defaults(
  (options: Record<string, unknown>) => ({
    ...options,
    throttle: {
      ...(options.throttle as object),
      ...(throttleIdOf(options) === undefined ? {} : { id: throttleIdOf(options) }),
      onSecondaryRateLimit: (
        retryAfter: number,
        request: ThrottledRequest,
        octokit: { log: Log },
        retryCount: number,
      ) => {
        const retry = retryCount < RATE_LIMIT_RETRIES;
        octokit.log.warn(
          { method: request.method, url: request.url, retryAfter, retryCount },
          retry
            ? `secondary rate limit: retrying in ${retryAfter} s`
            : 'secondary rate limit: giving up on this request',
        );
        return retry;
      },
    },
  }),
) as typeof ProbotOctokit;
