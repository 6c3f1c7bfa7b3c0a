import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.js';
import type { ClaimedDelivery, DeliveryStore } from '../store/deliveries.js';
import { crashPoint } from '../crash-points.js';
import { countStatementsSettled } from '../store/statement-count.js';
import type { IngestPressure } from './pressure.js';

export type DeliveryHandler = (delivery: ClaimedDelivery) => Promise<void>;

export interface ProcessorOptions {
  deliveries: DeliveryStore;
  handle: DeliveryHandler;
  log: Logger;
  metrics: Metrics;
  concurrency?: number;
  /** Handling attempts before a delivery waits for a redelivery instead of a retry. */
  maxAttempts?: number;
  /** Backoff before retry n (1-based). */
  retryDelayMs?: (attempt: number) => number;
  /** While it is high, one delivery at a time (see IngestPressure). */
  pressure?: IngestPressure;
  /** How long the inbox must stay empty before `afterDrain` (default 20 ms). */
  settleMs?: number;
  /** Runs once the inbox is empty, before the processor counts as idle (status comment writes). */
  afterDrain?: () => Promise<void>;
}

const MAX_WAIT_MS = 60 * 60_000;
/** How long the inbox must stay empty before the after-drain work runs. */
const SETTLE_MS = 20;
/** Deliveries handled at once by one process; the pool has 10 connections for them. */
export const DEFAULT_CONCURRENCY = 8;
/**
 * A delivery being handled has its lock renewed this often; one whose lock is older than
 * STALE_AFTER_MS is claimed again: its process hangs. A process that is gone (a crash) lets its
 * deliveries go at once, with its session (DeliveryStore.holdWorker).
 */
const HEARTBEAT_MS = 10_000;
const STALE_AFTER_MS = 45_000;
const defaultRetryDelay = (attempt: number) => Math.min(1000 * 2 ** attempt, 5 * 60_000);

/**
 * How long GitHub asked us to wait, from a failed request's `retry-after` or rate-limit reset
 * (Probot hands handler errors over inside an AggregateError).
 */
export function retryAfterMs(error: unknown, now = Date.now()): number {
  const nested = (error as { errors?: unknown } | null)?.errors;
  const errors = [error, ...(Array.isArray(nested) ? (nested as unknown[]) : [])];
  let wait = 0;
  for (const e of errors) {
    const headers = (e as { response?: { headers?: Record<string, unknown> } } | null)?.response
      ?.headers;
    if (!headers) continue;
    const retryAfter = Number(headers['retry-after']);
    const reset = Number(headers['x-ratelimit-reset']);
    if (Number.isFinite(retryAfter) && retryAfter > 0) wait = Math.max(wait, retryAfter * 1000);
    else if (headers['x-ratelimit-remaining'] === '0' && Number.isFinite(reset))
      wait = Math.max(wait, reset * 1000 - now);
  }
  return Math.min(wait, MAX_WAIT_MS);
}

/**
 * Drains the delivery inbox. `kick()` after each accepted delivery; the sweep kicks it too,
 * which picks up retries that came due and deliveries a crashed process left behind.
 */
export class DeliveryProcessor {
  readonly workerId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  private draining: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly idleWaiters: Array<() => void> = [];
  private readonly newsWaiters: Array<() => void> = [];
  private nextNews: Promise<void> | undefined;
  /** Retry timers not fired yet, and who waits for the next one (tests drive retries to the end). */
  private retriesDue = 0;
  private readonly retryWaiters: Array<() => void> = [];
  /** This worker's session lock, taken before its first claim (DeliveryStore.holdWorker). */
  private holding: Promise<() => Promise<void>> | undefined;

  constructor(private readonly options: ProcessorOptions) {}

  kick(): void {
    if (this.stopped) return;
    if (this.draining) {
      this.again = true;
      this.announceNews();
      return;
    }
    this.draining = this.drain()
      .catch((error: unknown) =>
        this.options.log.error({ err: error }, 'delivery inbox drain failed'),
      )
      .finally(() => {
        this.draining = undefined;
        if (this.again && !this.stopped) {
          this.again = false;
          this.kick();
        } else {
          for (const resolve of this.idleWaiters.splice(0)) resolve();
        }
      });
  }

  /** Resolves once nothing is being handled by this process (tests and shutdown wait on it). */
  whenIdle(): Promise<void> {
    if (!this.draining) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Like `whenIdle`, but also waits out the in-process retries this processor has scheduled
   * (tests shorten `retryDelayMs` and wait here until every retry has run or given up).
   */
  async whenDrained(): Promise<void> {
    for (;;) {
      await this.whenIdle();
      if (this.retriesDue === 0 || this.stopped) return;
      await new Promise<void>((resolve) => this.retryWaiters.push(resolve));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.announceNews();
    await this.draining;
    // Nothing in hand any more: the worker's lock can go.
    const release = await this.holding?.catch(() => undefined);
    this.holding = undefined;
    await release?.();
  }

  /**
   * Keeps up to `concurrency` deliveries in hand, claiming more as soon as one finishes, so one
   * slow handler (a GitHub call, a lock) never holds the rest of a batch back.
   */
  private async drain(): Promise<void> {
    // Without the lock, other processes would take this worker's claims for a crashed one's.
    this.holding ??= this.options.deliveries.holdWorker(this.workerId).catch((error: unknown) => {
      this.holding = undefined;
      throw error;
    });
    await this.holding;
    const concurrency = this.options.concurrency ?? DEFAULT_CONCURRENCY;
    const inHand = new Map<string, Promise<void>>();
    // A claim skips repositories with a delivery in hand; one that finished while the claim
    // ran may have left its repository's next delivery behind, unseen by that claim.
    let finishedSinceClaim = false;
    for (;;) {
      this.again = false;
      const width = this.options.pressure?.high ? 1 : concurrency;
      const room = width - inHand.size;
      // Claim in handfuls, not one per freed slot: a claim costs Postgres about as much for
      // one delivery as for several.
      const worthClaiming = inHand.size === 0 || room >= Math.ceil(width / 2);
      let claimed: ClaimedDelivery[] = [];
      const claiming = worthClaiming && !this.stopped;
      if (claiming) {
        finishedSinceClaim = false;
        try {
          claimed = await this.options.deliveries.claim(this.workerId, room, STALE_AFTER_MS, [
            ...inHand.keys(),
          ]);
        } catch (error) {
          // Never end the drain with deliveries in hand: whenIdle and stop() would not wait for
          // them, and the next drain's claim would take them back (ours, and not in its hand)
          // and handle them a second time alongside.
          await Promise.allSettled(inHand.values());
          throw error;
        }
      }
      for (const delivery of claimed) {
        const handled = this.handleOne(delivery).finally(() => {
          inHand.delete(delivery.id);
          finishedSinceClaim = true;
        });
        inHand.set(delivery.id, handled);
      }
      if (inHand.size === 0) {
        if ((this.again || finishedSinceClaim) && !this.stopped) continue;
        // A quiet moment before the after-drain work (status comment edits): deliveries caused
        // by the writes just made often follow within milliseconds, and one edit can cover them.
        if (!this.stopped && (await this.newsWithin(this.options.settleMs ?? SETTLE_MS))) continue;
        await this.options.afterDrain?.();
        return;
      }
      if (claiming && finishedSinceClaim) continue;
      // Every slot is taken or the inbox is empty for now: wait for a free slot, or for news;
      // in a burst, also for its end.
      const calm = width < concurrency ? [this.options.pressure!.whenCalm()] : [];
      await Promise.race([...inHand.values(), this.news(), ...calm]);
    }
  }

  private announceNews(): void {
    this.nextNews = undefined;
    for (const resolve of this.newsWaiters.splice(0)) resolve();
  }

  /** True if a `kick()` comes within `ms`. */
  private async newsWithin(ms: number): Promise<boolean> {
    if (ms <= 0) return this.again;
    let timer: NodeJS.Timeout | undefined;
    const quiet = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const news = this.news().then(() => true as const);
    try {
      return await Promise.race([news, quiet]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Resolves on the next `kick()`: a delivery arrived while the inbox looked empty. One promise
   * serves every wait until then, so a long drain without kicks piles up no waiters.
   */
  private news(): Promise<void> {
    if (this.again) return Promise.resolve();
    this.nextNews ??= new Promise<void>((resolve) => this.newsWaiters.push(resolve));
    return this.nextNews;
  }

  private scheduleRetry(delay: number): void {
    this.retriesDue += 1;
    setTimeout(() => {
      this.retriesDue -= 1;
      this.kick();
      for (const resolve of this.retryWaiters.splice(0)) resolve();
    }, delay).unref();
  }

  private async handleOne(delivery: ClaimedDelivery): Promise<void> {
    const { deliveries, metrics, log } = this.options;
    const maxAttempts = this.options.maxAttempts ?? 5;
    const timer = metrics.webhookHandlingSeconds.startTimer({ event: delivery.event });
    const heartbeat = setInterval(
      () => void deliveries.renewLock(delivery.id, this.workerId).catch(() => {}),
      HEARTBEAT_MS,
    ).unref();
    try {
      crashPoint('processor.claimed');
      await countStatementsSettled(
        () => this.options.handle(delivery),
        (statements) =>
          metrics.statementsPerDelivery.observe({ event: delivery.event }, statements),
      );
      crashPoint('processor.handled');
      await deliveries.complete(delivery.id);
      log.debug({ delivery: delivery.id, event: delivery.event }, 'delivery handled');
      metrics.webhooksHandled.inc({ event: delivery.event, outcome: 'ok' });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const retry = delivery.attempts < maxAttempts;
      // GitHub's retry-after (a rate limit the Octokit plugins did not wait out) comes first.
      const delay = Math.max(
        (this.options.retryDelayMs ?? defaultRetryDelay)(delivery.attempts),
        retryAfterMs(error),
      );
      log.error(
        {
          err: error,
          delivery: delivery.id,
          event: delivery.event,
          attempt: delivery.attempts,
          ...(retry ? { retryInMs: delay } : {}),
        },
        retry ? 'handling failed; will retry' : 'handling failed; giving up until redelivered',
      );
      try {
        await deliveries.fail(
          delivery.id,
          message,
          retry ? new Date(Date.now() + delay) : undefined,
        );
      } catch (failError) {
        // The database is gone too: the row stays claimed by this worker, and its next claim
        // takes it back. Never throw here, or the rest of the batch would still be running when
        // the next claim comes.
        log.error(
          { err: failError, delivery: delivery.id },
          'could not record the failed handling; the delivery will be claimed again',
        );
      }
      if (retry) this.scheduleRetry(delay);
      metrics.webhooksHandled.inc({ event: delivery.event, outcome: retry ? 'retry' : 'failed' });
    } finally {
      clearInterval(heartbeat);
      timer();
    }
  }
}
