import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.js';
import type { ClaimedDelivery, DeliveryStore } from '../store/deliveries.js';

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
  /** Runs once the inbox is empty, before the processor counts as idle (status comment writes). */
  afterDrain?: () => Promise<void>;
}

const defaultRetryDelay = (attempt: number) => Math.min(1000 * 2 ** attempt, 5 * 60_000);

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

  constructor(private readonly options: ProcessorOptions) {}

  kick(): void {
    if (this.stopped) return;
    if (this.draining) {
      this.again = true;
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

  async stop(): Promise<void> {
    this.stopped = true;
    await this.draining;
  }

  private async drain(): Promise<void> {
    const concurrency = this.options.concurrency ?? 4;
    for (;;) {
      this.again = false;
      const batch = await this.options.deliveries.claim(this.workerId, concurrency);
      if (batch.length === 0) {
        await this.options.afterDrain?.();
        return;
      }
      await Promise.all(batch.map((delivery) => this.handleOne(delivery)));
      if (this.stopped) return;
    }
  }

  private async handleOne(delivery: ClaimedDelivery): Promise<void> {
    const { deliveries, metrics, log } = this.options;
    const maxAttempts = this.options.maxAttempts ?? 5;
    const timer = metrics.webhookHandlingSeconds.startTimer({ event: delivery.event });
    try {
      await this.options.handle(delivery);
      await deliveries.complete(delivery.id);
      log.debug({ delivery: delivery.id, event: delivery.event }, 'delivery handled');
      metrics.webhooksHandled.inc({ event: delivery.event, outcome: 'ok' });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const retry = delivery.attempts < maxAttempts;
      const delay = (this.options.retryDelayMs ?? defaultRetryDelay)(delivery.attempts);
      log.error(
        { err: error, delivery: delivery.id, event: delivery.event, attempt: delivery.attempts },
        retry ? 'handling failed; will retry' : 'handling failed; giving up until redelivered',
      );
      await deliveries.fail(delivery.id, message, retry ? new Date(Date.now() + delay) : undefined);
      if (retry) setTimeout(() => this.kick(), delay).unref();
      metrics.webhooksHandled.inc({ event: delivery.event, outcome: retry ? 'retry' : 'failed' });
    } finally {
      timer();
    }
  }
}
