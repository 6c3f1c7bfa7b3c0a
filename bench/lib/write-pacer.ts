// Keeps one installation's writes near a target rate by releasing held worker runs.

export interface PacerOptions {
  /** Writes a second to hold the installation at. */
  targetPerS: number;
  /** Trailing window the rate is measured over. */
  windowMs: number;
  /** Released runs whose tasks have not merged yet: a cap, so the queue cannot run away. */
  maxOutstanding: number;
}

/**
 * Decides when to let one more held worker run finish: when the installation's writes over the
 * trailing window (or since the start, early on) fall below the target and fewer than
 * `maxOutstanding` released tasks are still on their way. Writes come from every run of the
 * installation, so the pacer fills what the others leave of the target.
 */
export class WritePacer {
  private readonly writes: number[] = [];
  private released = 0;
  private merged = 0;

  constructor(
    private readonly options: PacerOptions,
    private startMs: number,
  ) {}

  /** Measures from `nowMs` on, forgetting the writes before. */
  restart(nowMs: number): void {
    this.startMs = nowMs;
    this.writes.length = 0;
  }

  wrote(atMs: number): void {
    this.writes.push(atMs);
  }

  taskMerged(): void {
    this.merged++;
  }

  /** Whether to release one run now; counts it as released when it says yes. */
  shouldRelease(nowMs: number): boolean {
    const from = Math.max(this.startMs, nowMs - this.options.windowMs);
    while (this.writes.length > 0 && this.writes[0]! < from) this.writes.shift();
    const spanS = Math.max(1, (nowMs - from) / 1000);
    const rate = this.writes.length / spanS;
    if (rate >= this.options.targetPerS) return false;
    if (this.released - this.merged >= this.options.maxOutstanding) return false;
    this.released++;
    return true;
  }
}
