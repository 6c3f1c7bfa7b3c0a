import type { Coordinator } from '../../src/coordinator.js';

export type HandlingByEvent = Record<string, { count: number; meanMs: number }>;

/** Mean handling time per event, from the app's own `webhook_handling_seconds` histogram. */
export async function handlingByEvent(coordinator: Coordinator): Promise<HandlingByEvent> {
  const { values } = await coordinator.metrics.webhookHandlingSeconds.get();
  const out: HandlingByEvent = {};
  const sums = new Map<string, number>();
  for (const v of values) {
    const event = String(v.labels.event);
    if (v.metricName?.endsWith('_sum')) sums.set(event, v.value);
    if (v.metricName?.endsWith('_count')) out[event] = { count: v.value, meanMs: 0 };
  }
  for (const [event, sum] of sums) {
    const entry = out[event];
    if (entry) entry.meanMs = (1000 * sum) / entry.count;
  }
  return out;
}

export function describeHandling(handling: HandlingByEvent): string {
  return Object.entries(handling)
    .sort((a, b) => b[1].count * b[1].meanMs - a[1].count * a[1].meanMs)
    .map(([e, h]) => `${e} ${h.meanMs.toFixed(1)} ms ×${h.count}`)
    .join(', ');
}

/**
 * A histogram's cumulative bucket counts, all label sets summed (upper bound → observations at
 * or below it, the +Inf bucket left out so it survives JSON), and the number of observations.
 */
export interface Buckets {
  bounds: Array<[number, number]>;
  total: number;
  /** Mean statements per delivery, by event. */
  meanByEvent: Record<string, number>;
}

/** The app's statements-per-delivery histogram (src/metrics.ts), every event together. */
export async function statementBuckets(coordinator: Coordinator): Promise<Buckets> {
  const { values } = await coordinator.metrics.statementsPerDelivery.get();
  const byBound = new Map<number, number>();
  const sums = new Map<string, number>();
  const counts = new Map<string, number>();
  let total = 0;
  for (const v of values) {
    const event = String(v.labels.event);
    if (v.metricName?.endsWith('_sum')) sums.set(event, v.value);
    if (v.metricName?.endsWith('_count')) {
      total += v.value;
      counts.set(event, v.value);
    }
    if (!v.metricName?.endsWith('_bucket')) continue;
    const le = (v.labels as Record<string, string | number>).le;
    if (le === '+Inf') continue;
    byBound.set(Number(le), (byBound.get(Number(le)) ?? 0) + v.value);
  }
  const meanByEvent: Record<string, number> = {};
  for (const [event, count] of counts)
    if (count > 0) meanByEvent[event] = (sums.get(event) ?? 0) / count;
  return { bounds: [...byBound].sort((a, b) => a[0] - b[0]), total, meanByEvent };
}

/**
 * The nearest-rank percentile of a histogram's observations, as the upper bound of the bucket
 * it falls in (the buckets are every integer up to 10, so small counts are exact); Infinity
 * past the last bound.
 */
export function bucketPercentile(buckets: Buckets, p: number): number {
  if (buckets.total === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * buckets.total));
  return buckets.bounds.find(([, count]) => count >= rank)?.[0] ?? Number.POSITIVE_INFINITY;
}
