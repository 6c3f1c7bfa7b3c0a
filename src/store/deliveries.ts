import { LOCK_KEYS } from './lock-keys.js';
import zlib from 'node:zlib';
import { and, eq, sql } from 'drizzle-orm';
import { webhookDeliveries } from '../../db/schema.js';
import { WriteBatcher } from './write-batcher.js';
import { rowsOf, type AppDatabase, type DatabaseHandle } from './database.js';

export interface IncomingDelivery {
  id: string;
  event: string;
  action?: string;
  installationId?: number;
  repositoryId?: number;
  /** The body as GitHub sent it: a JSON object. */
  body: string;
  /** Nothing acts on it (no handler for its event): stored as done, never claimed. */
  handled?: boolean;
}

/**
 * - `accepted`: new, or a redelivery of one whose handling failed: it will be handled.
 * - `duplicate`: already handled, or being handled right now: nothing more to do.
 */
export type RecordOutcome = 'accepted' | 'duplicate';

export interface ClaimedDelivery {
  id: string;
  event: string;
  /** The stored body, as GitHub sent it. */
  body: string;
  attempts: number;
  receivedAt: Date;
}

// Deliveries stored before db/migrations/0019 have a Brotli-compressed body; newer ones keep it
// as text, which Postgres compresses (lz4 where it can) in its own process: cheaper there than
// Brotli on the coordinator's one thread (the ingest benchmark, bench/README.md).
const decompressBody = (stored: Uint8Array) => zlib.brotliDecompressSync(stored).toString('utf8');

/** Rows per insert: a batch stays well under Postgres' 65,535 parameters. */
const MAX_BATCH = 200;

/** The webhook ledger and inbox, keyed by X-GitHub-Delivery. */
export class DeliveryStore {
  // One insert at a time: the deliveries that arrive meanwhile make the next batch larger, and
  // a row costs Postgres a fifth as much in a batch of 16 as alone (bench/README.md).
  private readonly inserts = new WriteBatcher(
    (d: IncomingDelivery[]) => this.recordMany(d),
    MAX_BATCH,
    1,
  );
  private readonly completions = new WriteBatcher((ids: string[]) => this.completeMany(ids), 1000);

  constructor(
    private readonly db: AppDatabase,
    private readonly query: DatabaseHandle['inboxQuery'],
    private readonly holdSession: DatabaseHandle['holdSession'],
  ) {}

  /**
   * `worker` is up for as long as this process is: its session holds the worker's lock
   * (`inbox_worker_key`, db/migrations/0027), and a claim takes over the deliveries of a worker
   * whose lock nobody holds, at once (see claim). Taken before the worker's first claim; the
   * answer lets it go (once the worker has nothing in hand).
   */
  holdWorker(worker: string): Promise<() => Promise<void>> {
    return this.holdSession(
      { text: 'select pg_advisory_lock(inbox_worker_key($1))', values: [worker] },
      { text: 'select pg_advisory_unlock(inbox_worker_key($1))', values: [worker] },
    );
  }

  /** Deliveries that arrive together are written together (see WriteBatcher). */
  record(delivery: IncomingDelivery): Promise<RecordOutcome> {
    return this.inserts.write(delivery);
  }

  private async recordMany(deliveries: IncomingDelivery[]): Promise<RecordOutcome[]> {
    // Each row gets its own clock_timestamp(), in arrival order: "oldest first" in the claim
    // holds within one batch too (now() would give the whole batch one time).
    const params: unknown[] = [];
    const rows = deliveries.map((d) => {
      const at = params.length;
      params.push(d.id, d.event, d.action ?? null, d.installationId ?? null);
      params.push(d.repositoryId ?? null, d.body, d.handled ? 'done' : 'pending');
      return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6}, $${at + 7}::delivery_status, clock_timestamp())`;
    });
    const inserted = await this.query<{ delivery_id: string }>(
      `insert into webhook_deliveries
         (delivery_id, event, action, installation_id, repository_id, body_text, status, received_at)
       values ${rows.join(', ')}
       on conflict do nothing returning delivery_id`,
      params,
      `agent_coordinator_record_${deliveries.length}`,
    );
    const accepted = new Set(inserted.map((r) => r.delivery_id));
    // A redelivery keeps its id: if our earlier handling failed, handle it again.
    const repeats = deliveries.map((d) => d.id).filter((id) => !accepted.has(id));
    if (repeats.length > 0) {
      const revived = await this.query<{ delivery_id: string }>(
        `update webhook_deliveries
            set status = 'pending', available_at = now(), locked_by = null, locked_at = null
          where delivery_id = any($1::text[]) and status = 'failed'
          returning delivery_id`,
        [[...new Set(repeats)]],
        'agent_coordinator_revive',
      );
      for (const r of revived) accepted.add(r.delivery_id);
    }
    // The same id twice in one batch is accepted once: the one that arrived first.
    return deliveries.map((d) => (accepted.delete(d.id) ? 'accepted' : 'duplicate'));
  }

  /**
   * Claim pending deliveries, oldest first, at most one per repository: a repository with a
   * delivery being handled (by any process) gets none until that one is settled. So deliveries
   * that touch one repository are handled one at a time, in the order they arrived, and no
   * decision depends on which of two concurrent handlers wrote first; different repositories
   * are still handled side by side. Claims take turns across processes (an advisory lock held
   * for the claim's transaction only), so two claims never both see a repository as idle.
   * A delivery whose processor is gone is claimed again: its worker's session lock is free
   * (holdWorker; the process crashed or was killed), or its own lock went stale (the process
   * hangs). So is one `worker` itself still holds but is not handling (`inHand`): a row whose
   * outcome could not be written (the database went away mid-handling). None counts as in flight.
   */
  async claim(
    worker: string,
    limit: number,
    staleAfterMs = 5 * 60_000,
    inHand: readonly string[] = [],
  ): Promise<ClaimedDelivery[]> {
    // Each index is walked only to the oldest `window` rows: a claim stays cheap however long
    // the inbox is. The window is wider than `limit` because several of those rows may belong
    // to one repository; a backlog of one repository deeper than the window holds the others
    // back only until it drains below it.
    const window = Math.max(64, limit * 8);
    const rows = await this.query<{
      delivery_id: string;
      event: string;
      /** A Brotli-compressed body, stored before 0019. */
      body: Uint8Array | null;
      /** Otherwise the body as text: `body_text`, or a jsonb `payload` stored before 0004. */
      stored_payload: string | null;
      attempts: number;
      received_at: Date | string;
    }>(
      // db/migrations/0014 (its body columns as of 0019): one round trip under the claim lock.
      `select * from claim_deliveries($1::bigint, $2::integer, $3::float8, $4::text, $5::text[], $6::integer)`,
      [LOCK_KEYS.inboxClaims.toString(), limit, staleAfterMs, worker, inHand, window],
      'agent_coordinator_claim_deliveries',
    );
    return rows
      .map((r) => ({
        id: r.delivery_id,
        event: r.event,
        body: r.body ? decompressBody(r.body) : (r.stored_payload ?? ''),
        attempts: r.attempts,
        receivedAt: new Date(r.received_at),
      }))
      .sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime());
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

  complete(id: string): Promise<void> {
    return this.completions.write(id);
  }

  private async completeMany(ids: string[]): Promise<void[]> {
    await this.query(
      `update webhook_deliveries
          set status = 'done', locked_by = null, locked_at = null,
              last_error = null
        where delivery_id = any($1::text[])`,
      [ids],
      'agent_coordinator_complete',
    );
    return ids.map(() => undefined);
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

  /**
   * Forget deliveries received before `before` that are settled (done, or failed with no
   * redelivery coming): at most `limit` per call, oldest first, so one sweep stays short.
   * Returns how many went.
   */
  async forget(before: Date, limit = 5_000): Promise<number> {
    const result = await this.db.execute(sql`
      delete from webhook_deliveries where delivery_id in (
        select delivery_id from webhook_deliveries
         where received_at < ${before.toISOString()}::timestamptz and status in ('done', 'failed')
         order by received_at limit ${limit})
      returning delivery_id`);
    return rowsOf(result).length;
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
