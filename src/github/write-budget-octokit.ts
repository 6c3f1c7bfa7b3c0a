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

/**
 * `Octokit` whose installation clients wait for the shared write budget before each write. Its
 * hook is the outermost (plugins wrap in the order they are added), so a request retried by the
 * retry or throttling plugin counts once. The App's own JWT client has no installation and is
 * not budgeted.
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
  return Octokit.plugin(plugin as never) as typeof ProbotOctokit;
}
