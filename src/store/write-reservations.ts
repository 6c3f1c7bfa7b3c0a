import { LOCK_KEYS } from './lock-keys.js';
import { sql } from 'drizzle-orm';
import { rowsOf, type AppDatabase } from './database.js';
import { decideWriteGrant, type WriteHistory, type WriteLimits } from '../core/write-grant.js';
import type { WritePriority } from '../core/write-priority.js';

export type { WriteLimits } from '../core/write-grant.js';

/** The write asking for a reservation. */
export interface WriteKind {
  priority: WritePriority;
  createsContent: boolean;
}

export type Reservation =
  { granted: true; id: number } | { granted: false; retryAt: Date; window: 'short' | 'long' };

/**
 * The reservations table behind the write budget. A reservation reads the installation's recent
 * writes, lets core decide (`decideWriteGrant`: the window and the pace) and inserts its row, in
 * one transaction under the installation's advisory lock: a conditional INSERT alone is not
 * enough, since under READ COMMITTED two replicas could each count 79 and both insert.
 *
 * A row counts in a window from its reservation until `windowMs` after GitHub answered it (an
 * unanswered row counts as answered now): GitHub received the request somewhere in between, so
 * the count is never below GitHub's, however long the request waited in Octokit's queues.
 */
export class WriteReservationStore {
  constructor(private readonly db: AppDatabase) {}

  async reserve(
    installationId: number,
    write: WriteKind,
    now: Date,
    limits: WriteLimits,
  ): Promise<Reservation> {
    const { createsContent } = write;
    const at = now.getTime();
    const shortSince = new Date(at - limits.windowMs).toISOString();
    const longSince = new Date(at - limits.longWindowMs).toISOString();
    const leaseSince = new Date(at - limits.inFlightLeaseMs).toISOString();
    const nowIso = now.toISOString();
    return this.db.transaction(async (tx) => {
      const key = LOCK_KEYS.installationWrites(installationId).toString();
      await tx.execute(sql`select pg_advisory_xact_lock(${key}::bigint)`);
      const short = decideWriteGrant(
        write.priority,
        historyOf(await tx.execute(recentWrites(installationId, now, limits))),
        at,
        limits,
      );
      if (!short.go) return { granted: false, retryAt: new Date(short.retryAt), window: 'short' };
      // The n-th most recent content creation of the hour: when it exists the hour is full, and
      // the next may go when that one leaves it.
      const nth = async (since: string, limit: number) => {
        const rows = rowsOf<{ t: string | Date }>(
          await tx.execute(sql`
            select coalesce(sent_at, ${nowIso}::timestamptz) as t
            from github_write_reservations
            where installation_id = ${installationId}
              and creates_content
              and (sent_at > ${since}::timestamptz
                or (sent_at is null and reserved_at > ${leaseSince}::timestamptz))
            order by t desc
            offset ${limit - 1} limit 1`),
        );
        return rows[0] ? new Date(rows[0].t).getTime() : undefined;
      };
      if (createsContent) {
        const long = await nth(longSince, limits.creatingPerLongWindow);
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
   * When the installation's next critical write may go, every replica's writes counted (the
   * window and the pace); undefined when it would go now. A read without the lock: an estimate
   * for people, not a grant.
   */
  async nextFreeAt(
    installationId: number,
    now: Date,
    limits: WriteLimits,
  ): Promise<Date | undefined> {
    const grant = decideWriteGrant(
      'advance',
      historyOf(await this.db.execute(recentWrites(installationId, now, limits))),
      now.getTime(),
      limits,
    );
    return grant.go ? undefined : new Date(grant.retryAt);
  }

  /** GitHub answered (or the request failed): the row counts until a window after this. */
  async markSent(id: number, at: Date): Promise<void> {
    await this.db.execute(
      sql`update github_write_reservations set sent_at = ${at.toISOString()}::timestamptz where id = ${id}`,
    );
  }
}

/**
 * Every write the short window counts (a window's worth, and those in flight): their answers
 * for the window, their reservations for the pace.
 */
function recentWrites(installationId: number, now: Date, limits: WriteLimits) {
  const at = now.getTime();
  return sql`
    select coalesce(sent_at, ${now.toISOString()}::timestamptz) as t, reserved_at as r
    from github_write_reservations
    where installation_id = ${installationId}
      and (sent_at > ${new Date(at - limits.windowMs).toISOString()}::timestamptz
        or (sent_at is null
          and reserved_at > ${new Date(at - limits.inFlightLeaseMs).toISOString()}::timestamptz))`;
}

function historyOf(result: unknown): WriteHistory {
  const rows = rowsOf<{ t: string | Date; r: string | Date }>(result);
  return {
    answeredAt: rows.map((row) => new Date(row.t).getTime()),
    grantedAt: rows.map((row) => new Date(row.r).getTime()),
  };
}
