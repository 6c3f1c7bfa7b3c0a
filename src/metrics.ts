import type { Logger } from 'pino';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { TASK_STATES } from './core/states.js';
import type { MetricsSnapshot } from './store/metrics-queries.js';

export type Metrics = ReturnType<typeof createMetrics>;

export type Decision = 'schedule' | 'merge';

export interface MetricsOptions {
  /** Reads the database's side (tasks, attempts, deliveries); without it those series stay empty. */
  readSnapshot?: () => Promise<MetricsSnapshot>;
  /** How long one read serves later scrapes (default 2 s; tests use 0 to see what they just did). */
  snapshotMaxAgeMs?: number;
  /** A read slower than this leaves the last snapshot in place (default 3 s). */
  snapshotTimeoutMs?: number;
  log?: Pick<Logger, 'debug'>;
}

/** One registry per app instance, so tests can run several apps in one process. */
export function createMetrics(options: MetricsOptions = {}) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'agent_coordinator_' });
  const snapshot = options.readSnapshot
    ? cachedSnapshot(options.readSnapshot, {
        maxAgeMs: options.snapshotMaxAgeMs ?? 2_000,
        timeoutMs: options.snapshotTimeoutMs ?? 3_000,
        log: options.log,
      })
    : async () => undefined;
  const registers = [registry];

  // State read from the database when scraped (see src/store/metrics-queries.ts): each series
  // is refilled from the scrape's snapshot, and keeps its values while there is none.
  const fromSnapshot = <M extends { reset(): void }>(
    fill: (metric: M, s: MetricsSnapshot) => void,
  ) =>
    async function collect(this: M) {
      const s = await snapshot();
      if (!s) return;
      this.reset();
      fill(this, s);
    };
  new Gauge({
    name: 'agent_coordinator_tasks',
    help: 'Tasks of unfinished runs, by state.',
    labelNames: ['state'] as const,
    registers,
    collect: fromSnapshot((g, s) => {
      for (const state of TASK_STATES)
        g.set({ state }, sum(s.tasks.filter((t) => t.state === state).map((t) => t.count)));
    }),
  });
  new Gauge({
    name: 'agent_coordinator_tasks_running',
    help: 'Tasks with a worker run in flight (dispatched or running), across every repository.',
    registers,
    collect: fromSnapshot<Gauge>((g, s) =>
      g.set(
        sum(
          s.tasks
            .filter((t) => t.state === 'dispatched' || t.state === 'running')
            .map((t) => t.count),
        ),
      ),
    ),
  });
  new Gauge({
    name: 'agent_coordinator_dispatch_queue_depth',
    help: 'Tasks ready to dispatch but not dispatched yet (deps merged, run running, no backoff), across every repository.',
    registers,
    collect: fromSnapshot<Gauge>((g, s) => g.set(sum(s.tasks.map((t) => t.ready)))),
  });
  new Gauge({
    name: 'agent_coordinator_dispatch_queue_depth_max',
    help: 'The deepest dispatch queue of any one repository (which one is on the dashboard).',
    registers,
    collect: fromSnapshot<Gauge>((g, s) => {
      const byRepository = new Map<number, number>();
      for (const t of s.tasks)
        byRepository.set(t.repositoryId, (byRepository.get(t.repositoryId) ?? 0) + t.ready);
      g.set(Math.max(0, ...byRepository.values()));
    }),
  });
  // Counters although read from the database: the totals only grow, and rate() needs counters.
  new Counter({
    name: 'agent_coordinator_attempts_completed_total',
    help: 'Worker attempts completed, by conclusion (all time, every replica).',
    labelNames: ['conclusion'] as const,
    registers,
    collect: fromSnapshot((c, s) => {
      for (const a of s.attempts) c.inc({ conclusion: a.conclusion }, a.count);
    }),
  });
  new Counter({
    name: 'agent_coordinator_spend_usd_total',
    help: 'Cost in US dollars the workers reported for their attempts (all time, every replica).',
    registers,
    collect: fromSnapshot<Counter>((c, s) => c.inc(sum(s.attempts.map((a) => a.costUsd)))),
  });
  new Gauge({
    name: 'agent_coordinator_webhook_lag_seconds',
    help: 'Age of the oldest webhook delivery stored but not handled yet; 0 when the inbox is empty.',
    registers,
    collect: fromSnapshot<Gauge>((g, s) => g.set(s.oldestUnhandledDeliverySeconds)),
  });
  new Gauge({
    name: 'agent_coordinator_webhook_deliveries',
    help: 'Webhook deliveries waiting (pending), being handled (processing), or whose handling failed for good (failed).',
    labelNames: ['status'] as const,
    registers,
    collect: fromSnapshot((g, s) => {
      for (const status of ['pending', 'processing', 'failed'] as const)
        g.set({ status }, sum(s.deliveries.filter((d) => d.status === status).map((d) => d.count)));
    }),
  });

  const githubRateLimits = new RateLimitsSeen(registers);

  return {
    registry,
    webhooksReceived: new Counter({
      name: 'agent_coordinator_webhooks_received_total',
      help: 'Webhook deliveries received, by event and ingest outcome (accepted, duplicate, rejected).',
      labelNames: ['event', 'outcome'] as const,
      registers,
    }),
    webhooksHandled: new Counter({
      name: 'agent_coordinator_webhooks_handled_total',
      help: 'Webhook deliveries handled, by event and outcome (ok, retry, failed).',
      labelNames: ['event', 'outcome'] as const,
      registers,
    }),
    webhookIngestSeconds: new Histogram({
      name: 'agent_coordinator_webhook_ingest_seconds',
      help: 'Time from request to acknowledgement of a webhook delivery.',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    webhookHandlingSeconds: new Histogram({
      name: 'agent_coordinator_webhook_handling_seconds',
      help: 'Time spent handling a webhook delivery after it was acknowledged.',
      labelNames: ['event'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    // Counted by src/store/statement-count.ts around the handler: the inbox's own claim and
    // completion statements are shared by a batch of deliveries and not included.
    statementsPerDelivery: new Histogram({
      name: 'agent_coordinator_statements_per_delivery',
      help: 'SQL statements sent while handling one webhook delivery (transaction control included; the inbox claim and completion not), by event.',
      labelNames: ['event'] as const,
      buckets: [
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20, 25, 30, 40, 50, 75, 100, 150, 200, 500,
      ],
      registers,
    }),
    decisionSeconds: new Histogram({
      name: 'agent_coordinator_decision_seconds',
      help: 'Time of one decision pass and the actions it takes: schedule (dispatch what is ready in a repository) or merge (advance the merges of a run, waiting for its lock included).',
      labelNames: ['decision'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    sweepSeconds: new Histogram({
      name: 'agent_coordinator_sweep_seconds',
      help: 'Time of one sweep pass (redelivery, repairs, merges, scheduling, status comments).',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers,
    }),
    workerAssignments: new Counter({
      name: 'agent_coordinator_worker_assignments_total',
      help: 'Worker assignment requests (POST /api/worker/assignment), by outcome (granted, refused, unavailable, failed) and the claim that failed (empty when granted).',
      labelNames: ['outcome', 'claim'] as const,
      registers,
    }),
    // Of every installation's latest x-ratelimit-* headers, the one with the least left.
    githubRateLimits,
    // The shared write budget (src/github/write-budget.ts), this replica's side of it.
    githubWritesQueued: new Gauge({
      name: 'agent_coordinator_github_writes_queued',
      help: 'Writes to GitHub waiting in this replica for their installation write budget (80 a minute, 500 content creations an hour), all installations together.',
      registers,
    }),
    githubWriteWaitSeconds: new Histogram({
      name: 'agent_coordinator_github_write_wait_seconds',
      help: 'Time a write to GitHub waited for its installation write budget.',
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900],
      registers,
    }),
  };
}

/**
 * The series of one scrape share one read (they are collected together, while it is in flight),
 * and scrapes within `maxAgeMs` of it reuse it. A read that fails or is slower than `timeoutMs`
 * leaves the last snapshot in place: a scrape never fails or hangs because the database does
 * (the health check reports that).
 */
function cachedSnapshot(
  read: () => Promise<MetricsSnapshot>,
  options: { maxAgeMs: number; timeoutMs: number; log: MetricsOptions['log'] },
): () => Promise<MetricsSnapshot | undefined> {
  const { maxAgeMs, timeoutMs, log } = options;
  let last: MetricsSnapshot | undefined;
  let readAt = -Infinity;
  let reading: Promise<void> | undefined;
  return async () => {
    if (Date.now() - readAt < maxAgeMs) return last;
    reading ??= read()
      .then(
        (snapshot) => {
          last = snapshot;
        },
        (error: unknown) => log?.debug({ err: error }, 'metrics: database read failed'),
      )
      .finally(() => {
        readAt = Date.now();
        reading = undefined;
      });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs).unref();
    });
    await Promise.race([reading, timeout]).finally(() => clearTimeout(timer));
    return last;
  };
}

/** One installation's latest x-ratelimit-* headers for one resource. */
export interface RateLimitSeen {
  remaining: number;
  limit?: number;
  /** When the window ends (Unix seconds). */
  reset?: number;
}

/**
 * GitHub's rate limits as the installations' responses last reported them, served without
 * saying whose: per resource (core, graphql, …) the remaining, limit and reset of the
 * installation with the smallest share left whose window has not ended (an ended window is full
 * again, so an idle installation does not keep a low figure). Which installation that is stays
 * off /metrics, which is unauthenticated, and out of its label cardinality.
 */
export class RateLimitsSeen {
  /** resource → installation → its latest headers. */
  private readonly seen = new Map<string, Map<string, RateLimitSeen>>();

  constructor(
    registers: Registry[],
    private readonly nowSeconds: () => number = () => Date.now() / 1000,
  ) {
    const lowest = () => this.lowest();
    const family = (name: string, help: string, value: (r: RateLimitSeen) => number | undefined) =>
      new Gauge({
        name,
        help,
        labelNames: ['resource'] as const,
        registers,
        collect(this: Gauge<'resource'>) {
          this.reset();
          for (const [resource, seen] of lowest()) {
            const v = value(seen);
            if (v !== undefined) this.set({ resource }, v);
          }
        },
      });
    family(
      'agent_coordinator_github_rate_limit_remaining',
      'Requests left in the current rate limit window, of the installation with the smallest share left, by resource (core, graphql, …).',
      (r) => r.remaining,
    );
    family(
      'agent_coordinator_github_rate_limit_limit',
      'Requests allowed per rate limit window, of the installation with the smallest share left, by resource.',
      (r) => r.limit,
    );
    family(
      'agent_coordinator_github_rate_limit_reset_timestamp_seconds',
      'When the rate limit window of the installation with the smallest share left ends (Unix time), by resource.',
      (r) => r.reset,
    );
  }

  observe(installation: string, resource: string, headers: RateLimitSeen): void {
    let byInstallation = this.seen.get(resource);
    if (!byInstallation) this.seen.set(resource, (byInstallation = new Map()));
    byInstallation.set(installation, headers);
  }

  /** Per resource, the installation with the smallest share left in a window not yet ended. */
  private lowest(): Map<string, RateLimitSeen> {
    const now = this.nowSeconds();
    const out = new Map<string, RateLimitSeen>();
    for (const [resource, byInstallation] of this.seen) {
      let worst: RateLimitSeen | undefined;
      for (const [installation, seen] of byInstallation) {
        if (seen.reset !== undefined && seen.reset <= now) {
          byInstallation.delete(installation);
          continue;
        }
        if (!worst || share(seen) < share(worst)) worst = seen;
      }
      if (worst) out.set(resource, worst);
      else this.seen.delete(resource);
    }
    return out;
  }
}

/** The share of the window left; a response without a limit is taken as all or nothing left. */
function share(r: RateLimitSeen): number {
  if (r.limit) return r.remaining / r.limit;
  return r.remaining > 0 ? 1 : 0;
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
