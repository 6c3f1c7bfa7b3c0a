import { and, eq, inArray, lt, lte, or, sql } from 'drizzle-orm';
import { webhookDeliveries } from '../../db/schema.js';
import type { AppDatabase } from './database.js';

export interface IncomingDelivery {
  id: string;
  event: string;
  action?: string;
  installationId?: number;
  repositoryId?: number;
  payload: unknown;
}

/**
 * - `accepted`: new, or a redelivery of one whose handling failed: it will be handled.
 * - `duplicate`: already handled, or being handled right now: nothing more to do.
 */
export type RecordOutcome = 'accepted' | 'duplicate';

export interface ClaimedDelivery {
  id: string;
  event: string;
  payload: unknown;
  attempts: number;
}

/** The webhook ledger and inbox, keyed by X-GitHub-Delivery. */
export class DeliveryStore {
  constructor(private readonly db: AppDatabase) {}

  async record(delivery: IncomingDelivery): Promise<RecordOutcome> {
    const inserted = await this.db
      .insert(webhookDeliveries)
      .values({
        deliveryId: delivery.id,
        event: delivery.event,
        action: delivery.action ?? null,
        installationId: delivery.installationId ?? null,
        repositoryId: delivery.repositoryId ?? null,
        payload: delivery.payload,
      })
      .onConflictDoNothing()
      .returning({ id: webhookDeliveries.deliveryId });
    if (inserted.length > 0) return 'accepted';
    // A redelivery keeps its id: if our earlier handling failed, handle it again.
    const revived = await this.db
      .update(webhookDeliveries)
      .set({ status: 'pending', availableAt: sql`now()`, lockedBy: null, lockedAt: null })
      .where(
        and(eq(webhookDeliveries.deliveryId, delivery.id), eq(webhookDeliveries.status, 'failed')),
      )
      .returning({ id: webhookDeliveries.deliveryId });
    return revived.length > 0 ? 'accepted' : 'duplicate';
  }

  /**
   * Claim pending deliveries, oldest first. SKIP LOCKED lets several processes share the
   * inbox; a delivery whose processor died (stale lock) is claimed again. So is one `worker`
   * itself still holds: a worker claims only when none of its deliveries is in hand, so such a
   * row is one whose outcome could not be written (the database went away mid-handling).
   */
  async claim(
    worker: string,
    limit: number,
    staleAfterMs = 5 * 60_000,
  ): Promise<ClaimedDelivery[]> {
    const candidates = this.db
      .select({ id: webhookDeliveries.deliveryId })
      .from(webhookDeliveries)
      .where(
        or(
          // Database time on both sides: the rows' timestamps come from now() too.
          and(
            eq(webhookDeliveries.status, 'pending'),
            lte(webhookDeliveries.availableAt, sql`now()`),
          ),
          and(
            eq(webhookDeliveries.status, 'processing'),
            lt(webhookDeliveries.lockedAt, sql`now() - ${staleAfterMs} * interval '1 millisecond'`),
          ),
          and(eq(webhookDeliveries.status, 'processing'), eq(webhookDeliveries.lockedBy, worker)),
        ),
      )
      .orderBy(webhookDeliveries.receivedAt)
      .limit(limit)
      .for('update', { skipLocked: true });
    const rows = await this.db
      .update(webhookDeliveries)
      .set({
        status: 'processing',
        lockedBy: worker,
        lockedAt: sql`now()`,
        attempts: sql`${webhookDeliveries.attempts} + 1`,
      })
      .where(inArray(webhookDeliveries.deliveryId, candidates))
      .returning({
        id: webhookDeliveries.deliveryId,
        event: webhookDeliveries.event,
        payload: webhookDeliveries.payload,
        attempts: webhookDeliveries.attempts,
        receivedAt: webhookDeliveries.receivedAt,
      });
    rows.sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime());
    return rows.map(({ receivedAt: _r, ...rest }) => rest);
  }

  /** Still being handled by `worker`: keeps the claim from going stale. */
  async renewLock(id: string, worker: string): Promise<void> {
    await this.db
      .update(webhookDeliveries)
      .set({ lockedAt: sql`now()` })
      .where(
        and(
          eq(webhookDeliveries.deliveryId, id),
          eq(webhookDeliveries.lockedBy, worker),
          eq(webhookDeliveries.status, 'processing'),
        ),
      );
  }

  async complete(id: string): Promise<void> {
    await this.db
      .update(webhookDeliveries)
      .set({
        status: 'done',
        handledAt: new Date(),
        lockedBy: null,
        lockedAt: null,
        lastError: null,
      })
      .where(eq(webhookDeliveries.deliveryId, id));
  }

  /** With `retryAt` the delivery goes back to the inbox; without, it waits for a redelivery. */
  async fail(id: string, error: string, retryAt?: Date): Promise<void> {
    await this.db
      .update(webhookDeliveries)
      .set({
        status: retryAt ? 'pending' : 'failed',
        availableAt: retryAt ?? sql`now()`,
        lastError: error.slice(0, 2000),
        lockedBy: null,
        lockedAt: null,
      })
      .where(eq(webhookDeliveries.deliveryId, id));
  }

  async get(id: string) {
    const [row] = await this.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.deliveryId, id));
    return row;
  }

  async countByStatus(): Promise<Record<string, number>> {
    const rows = await this.db
      .select({ status: webhookDeliveries.status, n: sql<number>`count(*)::int` })
      .from(webhookDeliveries)
      .groupBy(webhookDeliveries.status);
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }
}
