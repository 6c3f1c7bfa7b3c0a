import type { WorkerClock } from './clock.js';

/*
 * How the Actions runner stops a step whose run is cancelled (GitHub's "Workflow cancellation
 * reference"; actions/runner `src/Runner.Sdk/ProcessInvoker.cs`, `CancelAndKillProcessTree`): it
 * sends the step's process, `node` itself for a JavaScript action, SIGINT; if that has not exited
 * 7.5 seconds later, SIGTERM; 2.5 seconds after that it kills the process, and only it. The
 * worker keeps well inside the first 7.5 seconds.
 */

/** After the runner's first signal: the agent's processes get SIGTERM, and SIGKILL this much later. */
export const CANCEL_KILL_AFTER_MS = 1_000;

/**
 * After the runner's first signal: what the agent spent is said by then, well before the runner's
 * SIGTERM. Answers the key proxy still reads are cut then, measured as far as they came.
 */
export const CANCEL_SAY_BY_MS = 5_000;

type RunnerSignal = 'SIGINT' | 'SIGTERM';

/** Where the runner's signals arrive: the worker's process, or a test's emitter. */
export interface SignalSource {
  on(signal: RunnerSignal, listener: () => void): unknown;
  removeListener(signal: RunnerSignal, listener: () => void): unknown;
}

/**
 * The run cancelled while the agent runs (docs/worker.md, "A cancelled run"), from the runner's
 * first signal on. While it is open the signals do not end the process: the worker stops the
 * agent and says what it spent first.
 */
export interface Cancellation {
  readonly cancelled: boolean;
  /** Resolves at the runner's first signal. */
  readonly requested: Promise<void>;
  /** Resolves CANCEL_SAY_BY_MS after the first signal: what is still being read is cut then. */
  readonly cutoff: Promise<void>;
  /**
   * `fn` runs at any signal after the first (the runner's SIGTERM, 2.5 seconds before it kills
   * the process), when what was spent has still not been said.
   */
  onLastSignal(fn: () => void): void;
  /** The signals have their default effect again (the process ends on them). */
  close(): void;
}

export function listenForCancellation(source: SignalSource, clock: WorkerClock): Cancellation {
  let cancelled = false;
  let last: (() => void) | undefined;
  let cancelCutoff = () => {};
  let request!: () => void;
  let cut!: () => void;
  const requested = new Promise<void>((resolve) => (request = resolve));
  const cutoff = new Promise<void>((resolve) => (cut = resolve));
  const onSignal = () => {
    if (cancelled) return last?.();
    cancelled = true;
    cancelCutoff = clock.after(CANCEL_SAY_BY_MS, cut);
    request();
  };
  source.on('SIGINT', onSignal);
  source.on('SIGTERM', onSignal);
  return {
    get cancelled() {
      return cancelled;
    },
    requested,
    cutoff,
    onLastSignal(fn) {
      last = fn;
    },
    close() {
      source.removeListener('SIGINT', onSignal);
      source.removeListener('SIGTERM', onSignal);
      cancelCutoff();
    },
  };
}
