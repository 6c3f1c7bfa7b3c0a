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
