import { describe, expect, it } from 'vitest';
import { createMetrics } from '../src/metrics.js';
import type { MetricsSnapshot } from '../src/store/metrics-queries.js';
import { Exposition } from './helpers/prometheus.js';

const snapshot = (pending: number): MetricsSnapshot => ({
  tasks: [{ repository: 'acme/widgets', state: 'pending', count: pending, ready: pending }],
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
    expect(
      again.value('agent_coordinator_dispatch_queue_depth', { repository: 'acme/widgets' }),
    ).toBe(1);
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
    expect(slow.value('agent_coordinator_tasks_running', { repository: 'acme/widgets' })).toBe(0);
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
