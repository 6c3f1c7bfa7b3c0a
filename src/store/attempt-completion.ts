import { and, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import { attempts, tasks } from '../../db/schema.js';
import type { AttemptSpend } from '../core/lifecycle/index.js';
import type { Usage } from '../protocol/markers.js';
import type { Db } from './transaction.js';

/**
 * How a successful completion records what the attempt is charged (core's AttemptSpend, which
 * decides it): nothing, the figures given (`own`), or their share of the PR marker's running
 * total (`markerTotal`).
 */
export type SpendShape = 'none' | AttemptSpend['kind'];

export function spendShape(spend: AttemptSpend | undefined): SpendShape {
  return spend?.kind ?? 'none';
}

/** The figures a completion's `costUsd`, `inputTokens` and `outputTokens` placeholders take. */
export function spendFigures(spend: AttemptSpend | undefined): Partial<Usage> {
  if (!spend) return {};
  return spend.kind === 'own' ? spend.usage : spend.total;
}

/**
 * A successful completion's update: the `earlier` CTE (what the task's other attempts spent),
 * and `update(start)`, the update of the attempt that reads it, begun on `start`: `db.with(earlier)`
 * for a statement of its own (AttemptStore.completeSucceeded), `db` for a CTE of a statement
 * that declares `earlier` with its other writes (RunStore.completeIntoReview).
 * Placeholders: `id` (the attempt), `taskId`, `runId`, `completedAt`, `failureReason` (with a
 * reason) and `costUsd`, `inputTokens`, `outputTokens` (with a spend).
 */
export function succeededUpdate(db: Db, spend: SpendShape, withReason: boolean) {
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
      // A share of the marker's total leaves out what failed attempts were charged: their worker
      // said it (src/protocol/usage-annotation.ts), and a worker that writes no notice on success
      // wrote none on a failure that pushed (a timed-out attempt's) either.
      .where(
        and(eq(attempts.taskId, sql.placeholder('taskId')), eq(attempts.conclusion, 'success')),
      ),
  );
  const charged = (name: string, before: SQL.Aliased<number>) =>
    spend === 'own'
      ? sql`${sql.placeholder(name)}::float8`
      : sql`greatest(0, ${sql.placeholder(name)}::float8 - ${before})`;
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
          ...(spend !== 'none'
            ? {
                costUsd: charged('costUsd', earlier.costUsd),
                inputTokens: charged('inputTokens', earlier.inputTokens),
                outputTokens: charged('outputTokens', earlier.outputTokens),
              }
            : { costUsd: null }),
        })
        .from(earlier)
        .where(and(eq(attempts.id, sql.placeholder('id')), sql`${attempts.phase} <> 'completed'`))
        .returning(returning),
  };
}
