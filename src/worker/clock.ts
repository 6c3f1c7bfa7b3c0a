/** The worker's time, injectable so tests can move it (and fire a deadline) without waiting. */
export interface WorkerClock {
  now(): number;
  /** Calls `fn` once after `ms`; the returned function cancels it. */
  after(ms: number, fn: () => void): () => void;
}

// setTimeout fires at once past 2^31 - 1 ms (about 24.8 days); no job lives that long.
const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: WorkerClock = {
  now: () => Date.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, Math.min(ms, MAX_TIMER_MS));
    return () => clearTimeout(timer);
  },
};
