import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import { attempts, runs, tasks, webhookDeliveries } from '../../db/schema.js';
import type { TaskState } from '../core/states.js';
import type { AppDatabase } from './database.js';
import { graphTask } from './runs.js';

// What the Prometheus gauges show, read from the database at scrape time: every replica reports
// the same numbers, and nothing in memory has to be kept in step with the writes. One grouped
// query per family, each cheap at 30,000 tasks. Nothing here names a repository: /metrics is
// unauthenticated, and its figures are aggregates (README.md, "Monitoring").

export interface MetricsSnapshot {
  /**
   * Tasks of unfinished runs by repository and state; `ready` of them could be dispatched now.
   * The repository id only groups them (a gauge reports the deepest queue of any one
   * repository); no series carries it.
   */
  tasks: Array<{ repositoryId: number; state: TaskState; count: number; ready: number }>;
  /** Every completed attempt ever, by conclusion, and what they cost. */
  attempts: Array<{ conclusion: string; count: number; costUsd: number }>;
  /** Deliveries waiting to be handled, being handled, or given up on. */
  deliveries: Array<{ status: 'pending' | 'processing' | 'failed'; count: number }>;
  /** Age of the oldest delivery not yet handled; 0 when none waits. */
  oldestUnhandledDeliverySeconds: number;
}

/**
 * How many of the grouped tasks could be dispatched now, by the scheduler's own test
 * (AttemptStore.claimDispatches): pending, dependencies merged, run running, no backoff. For a
 * query over `tasks` joined to their `runs`; the dashboard counts the same.
 */
export const countReady = sql<number>`(count(*) filter (where ${tasks.state} = 'pending'
  and ${tasks.unmetDeps} = 0 and ${runs.state} = 'running'
  and (${tasks.nextAttemptAt} is null or ${tasks.nextAttemptAt} <= now())))::int`;

export async function readMetricsSnapshot(db: AppDatabase): Promise<MetricsSnapshot> {
  const deliveriesIn = (status: 'pending' | 'processing' | 'failed') =>
    db
      .select({
        status: webhookDeliveries.status,
        count: sql<number>`count(*)::int`,
        oldestSeconds: sql<number>`extract(epoch from now() - min(${webhookDeliveries.receivedAt}))::float8`,
      })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.status, status))
      .groupBy(webhookDeliveries.status);

  const [taskRows, attemptRows, deliveryRows] = await Promise.all([
    // Unfinished runs (runs_active_idx), then their tasks: bounded by the work in flight, not
    // by history.
    db
      .select({
        repositoryId: runs.repositoryId,
        state: tasks.state,
        count: sql<number>`count(*)::int`,
        ready: countReady,
      })
      .from(runs)
      .innerJoin(tasks, eq(tasks.runId, runs.id))
      .where(and(isNull(runs.finishedAt), graphTask))
      .groupBy(runs.repositoryId, tasks.state),
    // All time, so they are counters (rate() gives attempts and dollars per hour). One table,
    // no join: a 30,000-task fleet has a few tens of thousands of attempts.
    db
      .select({
        conclusion: sql<string>`${attempts.conclusion}`,
        count: sql<number>`count(*)::int`,
        costUsd: sql<number>`coalesce(sum(${attempts.costUsd}), 0)::float8`,
      })
      .from(attempts)
      .where(isNotNull(attempts.conclusion))
      .groupBy(attempts.conclusion),
    // One branch per status, so each is planned on its own and the waiting ones are read
    // through the inbox's partial index; counting failed ones scans the inbox.
    deliveriesIn('pending').unionAll(deliveriesIn('processing')).unionAll(deliveriesIn('failed')),
  ]);
  return {
    tasks: taskRows,
    attempts: attemptRows,
    deliveries: deliveryRows.map(({ status, count }) => ({
      status: status as 'pending' | 'processing' | 'failed',
      count,
    })),
    oldestUnhandledDeliverySeconds: Math.max(
      0,
      ...deliveryRows.filter((row) => row.status !== 'failed').map((row) => row.oldestSeconds),
    ),
  };
}
