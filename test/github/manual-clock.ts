import { EventEmitter } from 'node:events';
import type { BudgetClock } from '../../src/github/write-budget.js';

/** Time that moves only when a test says so; several clocks can share it. */
export class ManualTime {
  private ms = Date.parse('2026-01-01T00:00:00Z');
  private readonly sleepers: Array<{ until: number; wake(): void; clock: ManualClock }> = [];
  readonly events = new EventEmitter();

  now(): Date {
    return new Date(this.ms);
  }

  clock(): ManualClock {
    return new ManualClock(this);
  }

  /** The earliest time a sleeper waits for, if any sleeps. */
  nextWake(): number | undefined {
    return this.sleepers.reduce<number | undefined>(
      (min, s) => (min === undefined || s.until < min ? s.until : min),
      undefined,
    );
  }

  advanceTo(ms: number): void {
    this.ms = Math.max(this.ms, ms);
    const due = this.sleepers.filter((s) => s.until <= this.ms);
    for (const s of due) {
      this.sleepers.splice(this.sleepers.indexOf(s), 1);
      s.wake();
    }
  }

  advance(ms: number): void {
    this.advanceTo(this.ms + ms);
  }

  sleepersOf(clock: ManualClock): number {
    return this.sleepers.filter((s) => s.clock === clock).length;
  }

  /** @internal */
  sleep(clock: ManualClock, ms: number, signal?: AbortSignal): Promise<void> {
    clock.sleeps++;
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const sleeper = { until: this.ms + ms, wake: resolve, clock };
      this.sleepers.push(sleeper);
      // Woken early: its wake-up is gone, as a cleared timer is.
      signal?.addEventListener(
        'abort',
        () => {
          const at = this.sleepers.indexOf(sleeper);
          if (at !== -1) this.sleepers.splice(at, 1);
          resolve();
          this.events.emit('change');
        },
        { once: true },
      );
      this.events.emit('change');
    });
  }

  /** Resolves once `condition` holds, checked whenever a sleeper starts or `changed()` is called. */
  until(condition: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!condition()) return;
        this.events.off('change', check);
        resolve();
      };
      this.events.on('change', check);
      check();
    });
  }

  changed(): void {
    this.events.emit('change');
  }
}

export class ManualClock implements BudgetClock {
  /** How many times it was asked to sleep. */
  sleeps = 0;

  constructor(private readonly time: ManualTime) {}

  now(): Date {
    return this.time.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return this.time.sleep(this, ms, signal);
  }

  get sleeping(): boolean {
    return this.time.sleepersOf(this) > 0;
  }
}
