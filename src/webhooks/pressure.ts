/**
 * Whether webhook acknowledgements are under pressure: many requests in flight, or answers
 * slowing down. Under pressure the inbox processor handles one delivery at a time, so the
 * CPU and connections go to storing and acknowledging first: GitHub gives up on a delivery not
 * answered within 10 seconds, while a stored one can wait to be handled. Once answers are
 * quick again the processor runs at full width.
 */
export class IngestPressure {
  private inFlight = 0;
  /** Exponentially weighted mean of recent acknowledgement times. */
  private recentMs = 0;
  private readonly calmWaiters: Array<() => void> = [];
  private calm: Promise<void> | undefined;

  constructor(
    private readonly burstAt = 16,
    private readonly slowMs = 5,
  ) {}

  enter(): void {
    this.inFlight += 1;
  }

  leave(elapsedMs: number): void {
    this.inFlight -= 1;
    this.recentMs += (elapsedMs - this.recentMs) * 0.2;
    if (!this.high && this.calm) {
      this.calm = undefined;
      for (const resolve of this.calmWaiters.splice(0)) resolve();
    }
  }

  get high(): boolean {
    return this.inFlight >= this.burstAt || (this.inFlight > 0 && this.recentMs >= this.slowMs);
  }

  /** Resolves once the pressure is off (one promise per spell of pressure, however many wait). */
  whenCalm(): Promise<void> {
    if (!this.high) return Promise.resolve();
    this.calm ??= new Promise<void>((resolve) => this.calmWaiters.push(resolve));
    return this.calm;
  }
}
