import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.js';
import type { Reservation, WriteKind, WriteLimits } from '../store/write-reservations.js';
import { grantedBefore, type WritePriority } from '../core/write-priority.js';

export type { WritePriority } from '../core/write-priority.js';

/**
 * GitHub's secondary rate limits for content creation: "no more than 80 content-generating
 * requests per minute and no more than 500 content-generating requests per hour" (docs.github.com,
 * "Rate limits for the REST API", about secondary rate limits). GitHub does not say which endpoints
 * generate content, so every write counts in the minute; the hour counts those that plainly do.
 * The pace spreads the minute's 80 (one each 0.75 s on average, at most 16 at once, the last 8 of
 * them for the critical path): GitHub's best practices ask for a pause between mutative requests
 * rather than bursts, and a minute spent in a burst holds every later write for the rest of it.
 */
export const GITHUB_WRITE_LIMITS: WriteLimits = {
  perWindow: 80,
  windowMs: 60_000,
  burst: 16,
  criticalBurst: 8,
  creatingPerLongWindow: 500,
  longWindowMs: 3_600_000,
  inFlightLeaseMs: 10 * 60_000,
};

/** The budget's time: tests step it by hand. */
export interface BudgetClock {
  now(): Date;
  /** Resolves after `ms` of this clock's time, or at once when `signal` aborts (its timer gone). */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const REAL_CLOCK: BudgetClock = {
  now: () => new Date(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', cancel);
        resolve();
      }, ms);
      const cancel = () => {
        clearTimeout(timer);
        resolve();
      };
      signal.addEventListener('abort', cancel, { once: true });
    }),
};

export interface WriteReservations {
  reserve(
    installationId: number,
    write: WriteKind,
    now: Date,
    limits: WriteLimits,
  ): Promise<Reservation>;
  markSent(id: number, at: Date): Promise<void>;
  nextFreeAt?(installationId: number, now: Date, limits: WriteLimits): Promise<Date | undefined>;
}

export interface WriteRequest {
  priority: WritePriority;
  createsContent: boolean;
}

/** A granted write: call `sent()` once GitHub answered (or the request failed). */
export interface WriteTicket {
  sent(): Promise<void>;
  /** How long the write waited for the budget. */
  waitedMs: number;
}

interface Waiter extends WriteRequest {
  seq: number;
  since: number;
  /**
   * The acquiring caller's async context: its reservation's statements count for its delivery
   * (src/store/statement-count.ts), not for whichever delivery started the queue's pump.
   */
  inContext: <T>(fn: () => T) => T;
  resolve(ticket: WriteTicket): void;
  reject(error: unknown): void;
}

type BudgetMetrics = Pick<Metrics, 'githubWritesQueued' | 'githubWriteWaitSeconds'>;

export interface WriteBudgetOptions {
  reservations: WriteReservations;
  limits?: WriteLimits;
  clock?: BudgetClock;
  metrics?: BudgetMetrics;
  log?: Pick<Logger, 'warn'>;
}

/**
 * Every replica's writes to one installation share one budget, counted in Postgres (see
 * WriteReservationStore). Within a process, writes past the budget wait in one queue per
 * installation, by priority and then in arrival order; only its head asks the database, so one
 * process makes one reservation at a time per installation. Across replicas the limit is shared
 * and the order is not: each replica's head takes the next free slot.
 */
export class WriteBudget {
  private readonly limits: WriteLimits;
  private readonly clock: BudgetClock;
  private readonly queues = new Map<number, Waiter[]>();
  /** Installation → when its queue's head may write next, while it waits. */
  private readonly nextAt = new Map<number, number>();
  /**
   * Installation → ends its queue's wait early, its timer cleared (a more urgent write came to
   * its head, or the budget closed).
   */
  private readonly wakers = new Map<number, () => void>();
  private seq = 0;
  private closed = false;

  constructor(private readonly options: WriteBudgetOptions) {
    this.limits = options.limits ?? GITHUB_WRITE_LIMITS;
    this.clock = options.clock ?? REAL_CLOCK;
  }

  /** Resolves when the write may be sent. */
  acquire(installationId: number, request: WriteRequest): Promise<WriteTicket> {
    // Shutting down: a write that would wait for the window fails now; one that may go, goes, so
    // the deliveries in flight can finish.
    if (this.closed && this.nextAt.has(installationId))
      return Promise.reject(new Error('the write budget is closed'));
    return new Promise<WriteTicket>((resolve, reject) => {
      let queue = this.queues.get(installationId);
      const pumping = queue !== undefined;
      if (!queue) this.queues.set(installationId, (queue = []));
      const waiter: Waiter = {
        ...request,
        seq: this.seq++,
        since: this.clock.now().getTime(),
        inContext: AsyncLocalStorage.snapshot(),
        resolve,
        reject,
      };
      // Sorted insert: by priority, then in arrival order (core/write-priority.ts).
      const at = queue.findIndex((w) => grantedBefore(waiter, w));
      queue.splice(at === -1 ? queue.length : at, 0, waiter);
      // A more urgent write than the one waiting: it may fit where that one did not.
      if (at === 0) this.wakers.get(installationId)?.();
      this.reportQueued();
      if (!pumping) void this.pump(installationId, queue);
    });
  }

  /**
   * Seconds until the installation's next write may go: this replica's queue when it waits,
   * else the shared window (another replica's writes may have filled it); undefined when a
   * write would go now.
   */
  async nextWriteInSeconds(installationId: number): Promise<number | undefined> {
    const now = this.clock.now().getTime();
    const at =
      this.nextAt.get(installationId) ??
      (
        await this.options.reservations
          .nextFreeAt?.(installationId, this.clock.now(), this.limits)
          .catch(() => undefined)
      )?.getTime();
    if (at === undefined || at <= now) return undefined;
    return Math.ceil((at - now) / 1000);
  }

  /** Writes waiting for the budget (all installations). */
  get queued(): number {
    let n = 0;
    for (const queue of this.queues.values()) n += queue.length;
    return n;
  }

  /**
   * Writes waiting for the window fail (the handlers' usual retries take them up again after the
   * restart); writes the window still has room for go on, so a shutdown finishes what is in
   * flight without waiting up to a window.
   */
  close(): void {
    this.closed = true;
    for (const [installationId, queue] of this.queues) {
      if (!this.nextAt.has(installationId)) continue;
      for (const waiter of queue.splice(0)) waiter.reject(new Error('the write budget is closed'));
      this.reportQueued();
      // Its pump stops waiting (and its timer goes), finds its queue empty and ends.
      this.wakers.get(installationId)?.();
    }
  }

  private async pump(installationId: number, queue: Waiter[]): Promise<void> {
    try {
      while (queue.length > 0) {
        const head = queue[0]!;
        let result: Reservation;
        try {
          // The critical path may fill the window and the pace's burst; other writes keep clear
          // of its reserve in both (core/write-grant.ts).
          result = await head.inContext(() =>
            this.options.reservations.reserve(
              installationId,
              { priority: head.priority, createsContent: head.createsContent },
              this.clock.now(),
              this.limits,
            ),
          );
        } catch (error) {
          // The database is down: this write fails like any request would, the rest try again.
          remove(queue, head);
          head.reject(error);
          continue;
        }
        if (result.granted) {
          // By identity: a more urgent write may have queued in front of it meanwhile.
          if (remove(queue, head)) this.grant(installationId, head, result.id);
          // The budget closed meanwhile and failed it: never sent, its row stops counting as in
          // flight and counts its window like an answered one.
          else await this.stampSent(result.id);
          continue;
        }
        // Only the hourly content limit is full: writes that create nothing may still go.
        if (result.window === 'long') {
          const other = queue.findIndex((w) => !w.createsContent);
          if (other > 0) {
            queue.unshift(...queue.splice(other, 1));
            continue;
          }
        }
        if (this.closed) {
          for (const waiter of queue.splice(0))
            waiter.reject(new Error('the write budget is closed'));
          break;
        }
        const waitMs = Math.max(1, result.retryAt.getTime() - this.clock.now().getTime());
        this.nextAt.set(installationId, result.retryAt.getTime());
        const wake = new AbortController();
        this.wakers.set(installationId, () => wake.abort());
        await this.clock.sleep(waitMs, wake.signal);
        this.wakers.delete(installationId);
        // Awake: it asks again, and waits (for close() to fail) only once told to wait again.
        this.nextAt.delete(installationId);
      }
    } finally {
      this.wakers.delete(installationId);
      this.nextAt.delete(installationId);
      this.queues.delete(installationId);
      this.reportQueued();
    }
  }

  private grant(installationId: number, waiter: Waiter, id: number): void {
    const waitedMs = this.clock.now().getTime() - waiter.since;
    this.reportQueued();
    this.options.metrics?.githubWriteWaitSeconds.observe(waitedMs / 1000);
    let sent = false;
    waiter.resolve({
      waitedMs,
      sent: async () => {
        if (sent) return;
        sent = true;
        await this.stampSent(id);
      },
    });
  }

  private async stampSent(id: number): Promise<void> {
    await this.options.reservations.markSent(id, this.clock.now()).catch((error: unknown) =>
      // The row keeps counting as in flight until its lease ends: a stricter count, not a
      // looser one.
      this.options.log?.warn({ err: error }, 'write budget: could not stamp a sent write'),
    );
  }

  /** All installations together: the gauge names none (README.md, "Monitoring"). */
  private reportQueued(): void {
    this.options.metrics?.githubWritesQueued.set(this.queued);
  }
}

/** Whether it was still in the queue. */
function remove(queue: Waiter[], waiter: Waiter): boolean {
  const at = queue.indexOf(waiter);
  if (at !== -1) queue.splice(at, 1);
  return at !== -1;
}
