import { sql } from 'drizzle-orm';
import type { RepositoryLoad } from '../core/scheduler/index.js';
import { tasks } from '../../db/schema.js';
import { rowsOf } from './database.js';
import { readyTask } from './ready-task.js';
import type { Db } from './transaction.js';

/**
 * Every repository with tasks in flight or ready, with its installation, its in-flight count (the
 * trigger's, db/migrations/0015) and its ready tasks: what core shares the global cap by
 * (src/core/scheduler/fair-share.ts). Ready is the claim's predicate (`readyTask`), counted along
 * tasks_ready_idx, and what its row records of the installation events (core leaves out a
 * repository the App can no longer reach). One statement,
 * read only when COORDINATOR_MAX_PARALLEL is set; it reads no lock, so it is a snapshot the
 * claim's guard (`p_installation_limit`) keeps honest.
 */
export async function repositoryLoads(db: Db, now: Date): Promise<RepositoryLoad[]> {
  const rows = rowsOf<{
    repository_id: string | number;
    installation_id: string | number;
    inflight: number;
    ready: number;
    max_parallel: number | null;
    removed_at: string | Date | null;
    suspended_at: string | Date | null;
  }>(
    await db.execute(sql`
      with ready as (
        select ${tasks.repositoryId} as repository_id, count(*)::int as ready from ${tasks}
         where ${readyTask(now)}
         group by ${tasks.repositoryId}
      ), loaded as (
        select repository_id from ready
        union
        select repository_id from repository_inflight where in_flight > 0
      )
      select rp.id as repository_id, rp.installation_id, rp.max_parallel, rp.removed_at,
             rp.suspended_at,
             coalesce(i.in_flight, 0)::int as inflight, coalesce(ready.ready, 0)::int as ready
        from loaded l
        join repositories rp on rp.id = l.repository_id
        left join repository_inflight i on i.repository_id = l.repository_id
        left join ready on ready.repository_id = l.repository_id`),
  );
  return rows.map((r) => ({
    repositoryId: Number(r.repository_id),
    installationId: Number(r.installation_id),
    inflight: Number(r.inflight),
    ready: Number(r.ready),
    repoLimit: r.max_parallel === null ? null : Number(r.max_parallel),
    access: { removedAt: dateOrNull(r.removed_at), suspendedAt: dateOrNull(r.suspended_at) },
  }));
}

function dateOrNull(value: string | Date | null): Date | null {
  return value === null ? null : new Date(value);
}
