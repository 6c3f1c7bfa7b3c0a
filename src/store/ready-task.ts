import { and, eq, sql, type SQL } from 'drizzle-orm';
import { runs, tasks } from '../../db/schema.js';
import { graphTask } from './runs.js';

/**
 * A task the claim may dispatch now (db/functions/claim_dispatches.sql): pending, core's
 * isDispatchReady as the claim and tasks_ready_idx apply it, a task of the graph, past its
 * backoff, its run running (the run by its key, per task reached, as the claim does:
 * db/migrations/0017). What the claim reads and what the installations' loads count.
 */
export function readyTask(now: Date): SQL {
  return and(
    eq(tasks.state, 'pending'),
    sql`(${tasks.unmetDeps} = 0 or (${tasks.unmetDeps} = 1 and ${tasks.stackParent} is not null))`,
    graphTask,
    sql`(${tasks.nextAttemptAt} is null or ${tasks.nextAttemptAt} <= ${now.toISOString()}::timestamptz)`,
    sql`(select r.state = 'running' and r.finished_at is null
           from ${runs} r where r.id = ${tasks.runId})`,
  )!;
}
