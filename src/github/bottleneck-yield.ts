import Bottleneck from 'bottleneck/light.js';

type Datastore = { yieldLoop(this: { Promise: PromiseConstructor }): Promise<void> };

/**
 * Octokit's retry and throttling plugins schedule every request through Bottleneck, whose local
 * datastore "yields" before each of its steps with `setTimeout(0)` (clamped to 1 ms in Node):
 * about ten timers per request, 10 ms added to every GitHub call and 1 ms of CPU spent on them
 * (bench/README.md, "Octokit's own cost"; an open Bottleneck issue, SGrondin/bottleneck#144).
 * The yield exists to make a local store behave as asynchronously as a Redis one; `setImmediate`
 * keeps that (the step still runs after pending I/O) without a timer. Limits and `minTime` are
 * timers of their own and stay as they are. Returns false when Bottleneck's shape has changed
 * and nothing was patched (the test of this module then fails).
 */
export function yieldWithoutTimers(): boolean {
  const store = (new Bottleneck() as unknown as { _store?: object })._store;
  const datastore = store && (Object.getPrototypeOf(store) as Partial<Datastore>);
  if (!datastore || typeof datastore.yieldLoop !== 'function') return false;
  datastore.yieldLoop = function yieldLoop() {
    return new this.Promise<void>((resolve) => setImmediate(resolve));
  };
  return true;
}

export const BOTTLENECK_YIELDS_WITHOUT_TIMERS = yieldWithoutTimers();
