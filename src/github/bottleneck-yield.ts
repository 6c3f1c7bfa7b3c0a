import Bottleneck from 'bottleneck/light.js';

type Datastore = { yieldLoop(this: { Promise: PromiseConstructor }): Promise<void> };

/** What `_run` reads of a job (Bottleneck 2.19.5, pinned exactly in package.json). */
interface PendingJob {
  options: { id: string; expiration?: number | null };
  doRun(): void;
  doExecute(chained: unknown, clear: () => boolean, run: unknown, free: unknown): Promise<unknown>;
  doExpire(clear: () => boolean, run: unknown, free: unknown): Promise<unknown>;
  doDrop(options?: object): boolean;
}

interface LimiterInternals {
  _limiter: unknown;
  _scheduled: Record<number, { timeout: unknown; expiration: unknown; job: PendingJob }>;
  _clearGlobalState(index: number): boolean;
  _free(index: number, job: PendingJob, ...rest: unknown[]): Promise<unknown>;
  _run(index: number, job: PendingJob, wait: number): unknown;
}

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

/**
 * A job that may start now (`wait` 0: no `minTime` or limit holds it) is started by Bottleneck
 * on `setTimeout(…, 0)` too, 1 ms in Node: a GET of the production Octokit passes three
 * limiters (the retry plugin's, and the throttling plugin's retry and global ones), so three
 * more timers. Those starts go on `setImmediate` here; a start that must wait (`minTime`, the
 * write limiter's second between writes) keeps its timer. The rest is Bottleneck's own `_run`,
 * restated, with one guard: a job dropped (`stop()`) before its start came is not started, as
 * `clearTimeout` does for the timer. Benchmark 5's production GET: p50 5.1 → 0.6–0.8 ms, CPU
 * per call 2.4 → 1.2 ms with its stub (bench/README.md, "2026-12-02, 12:50–15:50 UTC").
 */
export function startWithoutTimers(): boolean {
  const proto = Bottleneck.prototype as unknown as Partial<LimiterInternals>;
  const limiter = new Bottleneck() as unknown as Partial<LimiterInternals>;
  if (
    typeof proto._run !== 'function' ||
    typeof proto._clearGlobalState !== 'function' ||
    typeof proto._free !== 'function' ||
    typeof limiter._scheduled !== 'object'
  )
    return false;
  proto._run = function run(this: LimiterInternals, index, job, wait) {
    job.doRun();
    const clearGlobalState = this._clearGlobalState.bind(this, index);
    const again = this._run.bind(this, index, job);
    const free = this._free.bind(this, index, job);
    const start = () => job.doExecute(this._limiter, clearGlobalState, again, free);
    let timeout: unknown;
    if (wait > 0) timeout = setTimeout(start, wait);
    else {
      // `stop()` drops a job that has not started by `clearTimeout`, which does not reach an
      // immediate: the job remembers that it was dropped instead (ids are not unique to a job).
      let dropped = false;
      const drop = job.doDrop;
      job.doDrop = (options) => (dropped = drop.call(job, options));
      timeout = setImmediate(() => (dropped ? undefined : start()));
    }
    return (this._scheduled[index] = {
      timeout,
      expiration:
        job.options.expiration != null
          ? setTimeout(
              () => job.doExpire(clearGlobalState, again, free),
              wait + job.options.expiration,
            )
          : undefined,
      job,
    });
  };
  return true;
}

export const BOTTLENECK_YIELDS_WITHOUT_TIMERS = yieldWithoutTimers();
export const BOTTLENECK_STARTS_WITHOUT_TIMERS = startWithoutTimers();
