import type { Scenario } from '../e2e/harness.js';

/**
 * `settle()`, and also every in-process delivery retry the app scheduled, until GitHub and the
 * app have nothing left to say to each other. Bounded; waits on events, never on sleeps.
 */
export async function drainScenario(s: Scenario): Promise<void> {
  for (let round = 0; round < 100; round++) {
    const before = s.double.deliveries().length + s.double.requests.length;
    await s.settle();
    await s.app.processor.whenDrained();
    // (A database fault test may have this query killed too: then look again.)
    const counts = await s.app.store.deliveries
      .countByStatus()
      .catch((): Record<string, number> => ({ pending: 1 }));
    if ((counts.pending ?? 0) > 0) {
      // A retry whose timer fired a hair before its row came due: hand it over again.
      s.app.processor.kick();
      continue;
    }
    await s.settle();
    if (s.double.deliveries().length + s.double.requests.length === before) return;
  }
  throw new Error('the app and the double never went quiet');
}

/** With RELIABILITY_DEBUG set: the double's request log and the app's warnings, for a failing run. */
export function debugDump(s: Scenario, started: number): void {
  if (!process.env.RELIABILITY_DEBUG) return;
  const lines = s.double.requests.map((r) => `${r.at} ${r.status} ${r.method} ${r.path}`);
  const logs = s.app.logs.lines
    .map(
      (l) =>
        JSON.parse(l) as { level: number; time: number; msg: string; err?: { message?: string } },
    )
    .filter((l) => l.level >= 40)
    .map((l) => `${l.time - started} ${l.msg} ${l.err?.message ?? ''}`.slice(0, 300));
  console.log([...lines, ...logs].join('\n'));
}

/**
 * GitHub's redelivery, simulated: every delivery the app answered non-2xx is sent again with its
 * own delivery id (`resent` remembers which ones went through).
 */
export async function redeliverFailed(s: Scenario, resent: Set<string>): Promise<void> {
  for (const d of s.double.deliveries()) {
    if (d.statusCode !== null && d.statusCode >= 200 && d.statusCode < 300) continue;
    if (resent.has(d.guid)) continue;
    const response = await s.app.send(d.event, d.payload, { id: d.guid });
    if (response.ok) resent.add(d.guid);
  }
}
