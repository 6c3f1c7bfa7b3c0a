import type { ProbotOctokit } from 'probot';
import type { Metrics } from '../metrics.js';

type Headers = Record<string, string | number | undefined>;
type RequestOptions = { url?: unknown };

interface HookedOctokit {
  hook: {
    after(
      name: 'request',
      fn: (response: { headers?: Headers }, options: RequestOptions) => void,
    ): void;
    error(
      name: 'request',
      fn: (error: { response?: { headers?: Headers } }, options: RequestOptions) => never,
    ): void;
  };
}

/**
 * `Octokit` whose installation clients report GitHub's `x-ratelimit-*` response headers to the
 * rate limit gauges, errors included (a 403 for an exhausted limit carries them too). Probot puts
 * the installation id in a client's auth options, both for `probot.auth(id)` and for a webhook's
 * context; the App's own (JWT) client has none and reports nothing. The gauges keep each
 * installation's figures but serve only the lowest (RateLimitsSeen): no installation id on
 * /metrics.
 */
export function withRateLimitMetrics(
  Octokit: typeof ProbotOctokit,
  metrics: Pick<Metrics, 'githubRateLimits'>,
): typeof ProbotOctokit {
  const reportRateLimit = (octokit: HookedOctokit, options: { auth?: unknown }) => {
    const installationId = (options.auth as { installationId?: unknown } | undefined)
      ?.installationId;
    if (typeof installationId !== 'number' && typeof installationId !== 'string') return;
    const installation = String(installationId);
    const record = (headers: Headers | undefined, options: RequestOptions) => {
      if (isAppCall(options.url)) return;
      const remaining = Number(headers?.['x-ratelimit-remaining']);
      if (!headers || !Number.isFinite(remaining)) return;
      const limit = Number(headers['x-ratelimit-limit']);
      const reset = Number(headers['x-ratelimit-reset']);
      metrics.githubRateLimits.observe(
        installation,
        String(headers['x-ratelimit-resource'] ?? 'core'),
        {
          remaining,
          limit: Number.isFinite(limit) ? limit : undefined,
          reset: Number.isFinite(reset) ? reset : undefined,
        },
      );
    };
    octokit.hook.after('request', (response, options) => record(response.headers, options));
    octokit.hook.error('request', (error, options) => {
      record(error.response?.headers, options);
      throw error;
    });
  };
  return Octokit.plugin(reportRateLimit as never) as typeof ProbotOctokit;
}

/**
 * An installation client asks GitHub's `/app/…` endpoints for its token, with the App's JWT:
 * that answer carries the App's rate limit, not the installation's.
 */
export function isAppCall(url: unknown): boolean {
  const path = new URL(String(url), 'https://api.github.com').pathname;
  return /^(?:\/api\/v3)?\/app\//.test(path);
}
