import { LOCK_KEYS } from './lock-keys.js';
import { sql } from 'drizzle-orm';
import { rowsOf, type AppDatabase } from './database.js';

/** How many writes each window allows, and how long the windows are. */
export interface WriteLimits {
  /** Every write (any non-GET request, GraphQL mutations). */
  perWindow: number;
  windowMs: number;
  /** Writes that create content (comments, issues, pull requests, reviews, labels). */
  creatingPerLongWindow: number;
  longWindowMs: number;
  /**
   * A reservation not answered within this long is taken for a process that died mid-request
   * and stops counting (a live request is answered, or given up, long before).
   */
  inFlightLeaseMs: number;
}

export type Reservation =
  { granted: true; id: number } | { granted: false; retryAt: Date; window: 'short' | 'long' };

/**
 * The reservations table behind the write budget. A reservation checks the windows and inserts
 * its row in one transaction under the installation's advisory lock: a conditional INSERT alone
 * is not enough, since under READ COMMITTED two replicas could each count 79 and both insert.
 *
 * A row counts in a window from its reservation until `windowMs` after GitHub answered it (an
 * unanswered row counts as answered now): GitHub received the request somewhere in between, so
 * the count is never below GitHub's, however long the request waited in Octokit's queues.
 */
export class WriteReservationStore {
  constructor(private readonly db: AppDatabase) {}

  async reserve(
    installationId: number,
    createsContent: boolean,
    now: Date,
    limits: WriteLimits,
  ): Promise<Reservation> {
    const at = now.getTime();
    const shortSince = new Date(at - limits.windowMs).toISOString();
    const longSince = new Date(at - limits.longWindowMs).toISOString();
    const leaseSince = new Date(at - limits.inFlightLeaseMs).toISOString();
    const nowIso = now.toISOString();
    return this.db.transaction(async (tx) => {
      const key = LOCK_KEYS.installationWrites(installationId).toString();
      await tx.execute(sql`select pg_advisory_xact_lock(${key}::bigint)`);
      // The n-th most recent counted write, n being the limit: when it exists the window is
      // full, and the next write may go when that one leaves the window.
      const nth = async (since: string, limit: number, creatingOnly: boolean) => {
        const rows = rowsOf<{ t: string | Date }>(
          await tx.execute(sql`
            select coalesce(sent_at, ${nowIso}::timestamptz) as t
            from github_write_reservations
            where installation_id = ${installationId}
              and (${!creatingOnly} or creates_content)
              and (sent_at > ${since}::timestamptz
                or (sent_at is null and reserved_at > ${leaseSince}::timestamptz))
            order by t desc
            offset ${limit - 1} limit 1`),
        );
        return rows[0] ? new Date(rows[0].t).getTime() : undefined;
      };
      const short = await nth(shortSince, limits.perWindow, false);
      if (short !== undefined)
        return { granted: false, retryAt: new Date(short + limits.windowMs), window: 'short' };
      if (createsContent) {
        const long = await nth(longSince, limits.creatingPerLongWindow, true);
        if (long !== undefined)
          return { granted: false, retryAt: new Date(long + limits.longWindowMs), window: 'long' };
      }
      // Rows no window counts any more: the installation's own, a handful each time.
      await tx.execute(sql`
        delete from github_write_reservations
        where installation_id = ${installationId}
          and ((sent_at is null and reserved_at <= ${leaseSince}::timestamptz)
            or sent_at <= case when creates_content then ${longSince}::timestamptz
                               else ${shortSince}::timestamptz end)`);
      const inserted = rowsOf<{ id: string | number }>(
        await tx.execute(sql`
          insert into github_write_reservations (installation_id, reserved_at, creates_content)
          values (${installationId}, ${nowIso}::timestamptz, ${createsContent})
          returning id`),
      );
      return { granted: true, id: Number(inserted[0]!.id) };
    });
  }

  /**
   * When the installation's next write may go, every replica's writes counted; undefined while
   * the short window has room. A read without the lock: an estimate for people, not a grant.
   */
  async nextFreeAt(
    installationId: number,
    now: Date,
    limits: WriteLimits,
  ): Promise<Date | undefined> {
    const nowIso = now.toISOString();
    const rows = rowsOf<{ t: string | Date }>(
      await this.db.execute(sql`
        select coalesce(sent_at, ${nowIso}::timestamptz) as t
        from github_write_reservations
        where installation_id = ${installationId}
          and (sent_at > ${new Date(now.getTime() - limits.windowMs).toISOString()}::timestamptz
            or (sent_at is null
              and reserved_at > ${new Date(now.getTime() - limits.inFlightLeaseMs).toISOString()}::timestamptz))
        order by t desc
        offset ${limits.perWindow - 1} limit 1`),
    );
    return rows[0] ? new Date(new Date(rows[0].t).getTime() + limits.windowMs) : undefined;
  }

  /** GitHub answered (or the request failed): the row counts until a window after this. */
  async markSent(id: number, at: Date): Promise<void> {
    await this.db.execute(
      sql`update github_write_reservations set sent_at = ${at.toISOString()}::timestamptz where id = ${id}`,
    );
  }
}
