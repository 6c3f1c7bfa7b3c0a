import type { ProbotOctokit } from 'probot';
import { isAppCall } from './rate-limit-metrics.js';
import type { WriteBudget, WritePriority, WriteRequest } from './write-budget.js';

/** Request options a port method sets to say how urgent its write is. */
export interface WritePriorityOption {
  writePriority?: WritePriority;
}

interface RequestOptions {
  method?: string;
  url?: string;
  query?: unknown;
  request?: WritePriorityOption;
}

type Request = (options: RequestOptions) => Promise<unknown>;

interface HookedOctokit {
  hook: {
    wrap(
      name: 'request',
      fn: (request: Request, options: RequestOptions) => Promise<unknown>,
    ): void;
  };
}

// POSTs that plainly create content: comments (and review comment replies), issues, pull
// requests, reviews, labels. Reactions, check runs, refs and dispatches are left to the minute.
const CREATES_CONTENT = /\/(?:issues|comments|replies|pulls|reviews|labels)$/;

/** What the budget must know of a request; null when the request is not a write. */
export function classifyWrite(options: RequestOptions): WriteRequest | null {
  const method = (options.method ?? 'GET').toUpperCase();
  const url = String(options.url ?? '');
  if (method === 'GET' || method === 'HEAD') return null;
  // The installation token comes from /app/… with the App's JWT: not the installation's write.
  if (isAppCall(url)) return null;
  if (/^(?:\/api)?\/graphql$/.test(new URL(url, 'https://api.github.com').pathname)) {
    // Only mutations write; a query is a read sent with POST.
    if (!isMutation(options.query)) return null;
    return { priority: options.request?.writePriority ?? 'report', createsContent: false };
  }
  const path = new URL(url, 'https://api.github.com').pathname;
  return {
    priority: options.request?.writePriority ?? 'report',
    createsContent: method === 'POST' && CREATES_CONTENT.test(path),
  };
}

function isMutation(query: unknown): boolean {
  if (typeof query !== 'string') return false;
  return /^mutation\b/.test(query.replace(/#[^\n]*/g, '').trimStart());
}

type Job = (...args: unknown[]) => Promise<unknown>;

/**
 * A stand-in for one of the throttling plugin's Bottleneck groups (its public `throttle.write`
 * and `throttle.notifications` options; the plugin calls `group.key(id).schedule(options, job)`)
 * that starts every job at once. The plugin's own write limiters start an installation's writes
 * one a second (three for routes that notify people), first in, first out, per process: a
 * dispatch queued behind status comment edits that the budget had already let go, and two
 * replicas each kept their own second. The budget is the one write limiter per installation,
 * shared by the replicas and ordered by priority. The plugin's handling of secondary and primary
 * rate limit answers (`retry-after`, its retry limiter) is untouched.
 */
export const UNSPACED_GROUP = {
  key: () => ({
    schedule: (...args: unknown[]): Promise<unknown> => {
      const at = args.findIndex((a) => typeof a === 'function');
      return (args[at] as Job)(...args.slice(at + 1));
    },
  }),
};

/**
 * `Octokit` whose installation clients wait for the shared write budget before each write, and
 * whose throttling plugin no longer spaces writes itself (UNSPACED_GROUP). Its hook is the
 * outermost (plugins wrap in the order they are added), so a request retried by the retry or
 * throttling plugin counts once. The App's own JWT client has no installation and is not
 * budgeted.
 */
export function withWriteBudget(
  Octokit: typeof ProbotOctokit,
  budget: WriteBudget,
): typeof ProbotOctokit {
  const plugin = (octokit: HookedOctokit, options: { auth?: unknown }) => {
    const installationId = Number(
      (options.auth as { installationId?: unknown } | undefined)?.installationId,
    );
    if (!Number.isSafeInteger(installationId) || installationId <= 0) return;
    octokit.hook.wrap('request', async (request, requestOptions) => {
      const write = classifyWrite(requestOptions);
      if (!write) return request(requestOptions);
      const ticket = await budget.acquire(installationId, write);
      try {
        return await request(requestOptions);
      } finally {
        void ticket.sent();
      }
    });
  };
  return Octokit.plugin(plugin as never).defaults((options: Record<string, unknown>) => ({
    ...options,
    throttle: {
      ...(options.throttle as object),
      write: UNSPACED_GROUP,
      notifications: UNSPACED_GROUP,
    },
  })) as typeof ProbotOctokit;
}
