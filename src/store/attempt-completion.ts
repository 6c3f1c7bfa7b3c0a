import { and, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import { attempts, tasks } from '../../db/schema.js';
import type { Db } from './transaction.js';

/**
 * A successful completion's update: the `earlier` CTE (what the task's other attempts spent),
 * and `update(start)`, the update of the attempt that reads it, begun on `start`: `db.with(earlier)`
 * for a statement of its own (AttemptStore.completeSucceeded), `db` for a CTE of a statement
 * that declares `earlier` with its other writes (RunStore.completeIntoReview).
 * Placeholders: `id` (the attempt), `taskId`, `runId`, `completedAt`, `failureReason` (with a
 * reason) and `costUsd`, `inputTokens`, `outputTokens` (with usage).
 */
export function succeededUpdate(db: Db, withUsage: boolean, withReason: boolean) {
  const earlier = db.$with('earlier').as(
    db
      .select({
        costUsd: sql<number>`coalesce(sum(${attempts.costUsd}), 0)::float8`.as('cost_before'),
        inputTokens: sql<number>`coalesce(sum(${attempts.inputTokens}), 0)::float8`.as(
          'input_before',
        ),
        outputTokens: sql<number>`coalesce(sum(${attempts.outputTokens}), 0)::float8`.as(
          'output_before',
        ),
      })
      .from(attempts)
      // Only succeeded attempts' usage is in the marker's total: a failed one's, charged from the
      // worker's annotation (src/protocol/usage-annotation.ts), never reached a PR's marker.
      .where(
        and(eq(attempts.taskId, sql.placeholder('taskId')), eq(attempts.conclusion, 'success')),
      ),
  );
  const share = (name: string, before: SQL.Aliased<number>) =>
    sql`greatest(0, ${sql.placeholder(name)}::float8 - ${before})`;
  const returning = {
    ...getTableColumns(attempts),
    // The run's other attempts as they were, and this one as it is now.
    runSpentUsd: sql<number>`(select coalesce(sum(a.cost_usd), 0)::float8 from ${attempts} a
        join ${tasks} t on t.id = a.task_id
       where t.run_id = ${sql.placeholder('runId')} and a.id <> ${sql.placeholder('id')})
       + coalesce(${attempts.costUsd}, 0)::float8`.as('run_spent_usd'),
  };
  return {
    earlier,
    update: (start: Pick<Db, 'update'>) =>
      start
        .update(attempts)
        .set({
          phase: 'completed',
          completedAt: sql.placeholder('completedAt') as never,
          conclusion: 'success',
          ...(withReason ? { failureReason: sql.placeholder('failureReason') as never } : {}),
          ...(withUsage
            ? {
                costUsd: share('costUsd', earlier.costUsd),
                inputTokens: share('inputTokens', earlier.inputTokens),
                outputTokens: share('outputTokens', earlier.outputTokens),
              }
            : { costUsd: null }),
        })
        .from(earlier)
        .where(and(eq(attempts.id, sql.placeholder('id')), sql`${attempts.phase} <> 'completed'`))
        .returning(returning),
  };
}
