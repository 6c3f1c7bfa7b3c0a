import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { createMetrics, RateLimitsSeen } from '../src/metrics.js';
import type { MetricsSnapshot } from '../src/store/metrics-queries.js';
import { Exposition } from './helpers/prometheus.js';

const snapshot = (pending: number): MetricsSnapshot => ({
  tasks: [{ repositoryId: 2 ** 32 + 1, state: 'pending', count: pending, ready: pending }],
  attempts: [],
  deliveries: [],
  oldestUnhandledDeliverySeconds: 0,
});

/** The database side of /metrics: one read per scrape, and a scrape that survives the database. */
describe('database metrics', () => {
  const scrape = async (metrics: ReturnType<typeof createMetrics>) =>
    new Exposition(await metrics.registry.metrics());

  it('reads the database once for every series of a scrape, and reuses the read for a while', async () => {
    let reads = 0;
    const metrics = createMetrics({
      readSnapshot: async () => snapshot(++reads),
      snapshotMaxAgeMs: 60_000,
    });
    expect((await scrape(metrics)).value('agent_coordinator_tasks', { state: 'pending' })).toBe(1);
    expect(reads).toBe(1);
    const again = await scrape(metrics);
    expect(again.value('agent_coordinator_dispatch_queue_depth')).toBe(1);
    expect(reads).toBe(1);
  });

  it('keeps the last values when the database fails or hangs, and never fails a scrape', async () => {
    const debug: string[] = [];
    let next: () => Promise<MetricsSnapshot> = async () => snapshot(3);
    const metrics = createMetrics({
      readSnapshot: () => next(),
      snapshotMaxAgeMs: 0,
      snapshotTimeoutMs: 20,
      log: { debug: (_obj: object, message: string) => debug.push(message) } as never,
    });
    expect((await scrape(metrics)).value('agent_coordinator_tasks', { state: 'pending' })).toBe(3);

    next = () => Promise.reject(new Error('connection refused'));
    const down = await scrape(metrics);
    expect(down.value('agent_coordinator_tasks', { state: 'pending' })).toBe(3);
    expect(debug).toEqual(['metrics: database read failed']);

    let hung = 0;
    next = () => {
      hung++;
      return new Promise<never>(() => {});
    };
    const slow = await scrape(metrics);
    expect(slow.value('agent_coordinator_tasks_running')).toBe(0);
    expect(slow.value('agent_coordinator_tasks', { state: 'pending' })).toBe(3);
    // A read still in flight is waited on again, not started again.
    await scrape(metrics);
    expect(hung).toBe(1);
  });

  it('leaves the database series empty without a database', async () => {
    const m = await scrape(createMetrics());
    expect(m.types.get('agent_coordinator_tasks')).toBe('gauge');
    expect(m.all('agent_coordinator_tasks')).toEqual([]);
  });
});

/** Rate limits on /metrics: per resource, the installation with the least left, never its id. */
describe('rate limits seen', () => {
  const scrape = async (registry: Registry) => new Exposition(await registry.metrics());

  it('serves the installation with the smallest share left, and forgets ended windows', async () => {
    const registry = new Registry();
    let now = 1_000;
    const seen = new RateLimitsSeen([registry], () => now);
    seen.observe('111', 'core', { remaining: 4000, limit: 5000, reset: 2_000 });
    // Fewer requests left, but a larger share of a larger window.
    seen.observe('222', 'core', { remaining: 1000, limit: 15000, reset: 1_500 });
    seen.observe('333', 'core', { remaining: 600, limit: 5000, reset: 3_000 });
    seen.observe('111', 'graphql', { remaining: 4900, limit: 5000, reset: 2_000 });
    let m = await scrape(registry);
    const core = { resource: 'core' };
    expect(m.value('agent_coordinator_github_rate_limit_remaining', core)).toBe(1000);
    expect(m.value('agent_coordinator_github_rate_limit_limit', core)).toBe(15000);
    expect(m.value('agent_coordinator_github_rate_limit_reset_timestamp_seconds', core)).toBe(1500);
    expect(m.value('agent_coordinator_github_rate_limit_remaining', { resource: 'graphql' })).toBe(
      4900,
    );
    expect(m.all('agent_coordinator_github_rate_limit_remaining')).toHaveLength(2);
    for (const sample of m.samples) expect(Object.keys(sample.labels)).toEqual(['resource']);

    // 222's window ended: its limit is full again, and the next lowest is served.
    now = 1_600;
    m = await scrape(registry);
    expect(m.value('agent_coordinator_github_rate_limit_remaining', core)).toBe(600);
    expect(m.value('agent_coordinator_github_rate_limit_reset_timestamp_seconds', core)).toBe(3000);
    // Every window ended: nothing left to report.
    now = 5_000;
    m = await scrape(registry);
    expect(m.all('agent_coordinator_github_rate_limit_remaining')).toEqual([]);
  });
});
