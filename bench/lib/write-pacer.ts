// Keeps one installation's writes at a target rate by releasing held worker runs.

export interface PacerOptions {
  /** Writes a second to hold the installation at. */
  targetPerS: number;
  /**
   * Writes a released task still brings: its order check and merge, and the branch and dispatch
   * of the work its merge frees, on average.
   */
  writesPerTask: number;
  /** How far ahead of the target the writes of released tasks may be counted. */
  leadMs: number;
  /** Released runs whose tasks have not merged yet: a cap, so the queue cannot run away. */
  maxOutstanding: number;
}

/**
 * Decides when to let one more held worker run finish. It counts every write of the
 * installation since the start (every run's: the pacer fills what the others leave of the
 * target), and the writes the released tasks not merged yet will still bring; it releases one
 * when that total, with the new task's, stays within the target's writes up to `leadMs` from
 * now. Counting from the start, not over a trailing window, holds the average over the measured
 * span at the target: writes that land late (a released task writes over the seconds after its
 * release) are not counted twice over, nor missed, and an overshoot is paid back.
 */
export class WritePacer {
  private writes = 0;
  private released = 0;
  private merged = 0;

  constructor(
    private readonly options: PacerOptions,
    private startMs: number,
  ) {}

  /** Counts from `nowMs` on, forgetting the writes before (released tasks still count). */
  restart(nowMs: number): void {
    this.startMs = nowMs;
    this.writes = 0;
  }

  wrote(atMs: number): void {
    if (atMs >= this.startMs) this.writes++;
  }

  taskMerged(): void {
    this.merged = Math.min(this.released, this.merged + 1);
  }

  /** Whether to release one run now; counts it as released when it says yes. */
  shouldRelease(nowMs: number): boolean {
    const outstanding = this.released - this.merged;
    if (outstanding >= this.options.maxOutstanding) return false;
    const expected = this.writes + (outstanding + 1) * this.options.writesPerTask;
    const allowed = (this.options.targetPerS * (nowMs - this.startMs + this.options.leadMs)) / 1000;
    if (expected > allowed) return false;
    this.released++;
    return true;
  }
}
