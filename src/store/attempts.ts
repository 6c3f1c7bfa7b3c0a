import { rowFromJson } from './json-rows.js';
import { LOCK_KEYS } from './lock-keys.js';
import { and, asc, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { attempts, repositories, runs, tasks } from '../../db/schema.js';
import { taskTransition } from '../core/transitions.js';
import { rowsOf, type AppDatabase } from './database.js';
import { PreparedStatements } from './prepared.js';
import {
  spendFigures,
  spendShape,
  succeededUpdate,
  type SpendShape,
} from './attempt-completion.js';
import { COMPLETED_BEFORE_ITS_RUN, type AttemptSpend } from '../core/lifecycle/index.js';
import { PLAN_TASK_KEY } from '../core/plan/index.js';
import type { Usage } from '../protocol/markers.js';
import type { RunRow, TaskRow } from './runs.js';
import type { AttemptRow } from './attempt-row.js';
import type { Db } from './transaction.js';
import { pathClaimants, type PathClaimantRow } from './task-paths.js';
import { repositoryLoads } from './repository-loads.js';
import { readyTask } from './ready-task.js';
import type { RepositoryLoad } from '../core/scheduler/index.js';

export interface DispatchIntent {
  attempt: AttemptRow;
  task: TaskRow;
  run: RunRow;
}

export interface ClaimLimits {
  repoLimit: number;
  globalLimit: number;
  now: Date;
  /** Task ids core makes wait on an overlap (src/core/scheduler/overlap.ts): never claimed. */
  blocked?: readonly number[];
  /**
   * The most tasks the repository's installation may have in flight once this claim is made: its
   * share of the global cap (src/core/scheduler/fair-share.ts); none when nothing is shared.
   */
  installationLimit?: number;
}

const DISPATCH = taskTransition('dispatched');

export class AttemptStore {
  private readonly prepared: PreparedStatements;

  constructor(private readonly db: AppDatabase) {
    this.prepared = new PreparedStatements(db);
  }

  /**
   * Pick the ready tasks of one repository within the limits, in the ready set's order
   * (priority, oldest run, plan order: the order `compareCandidates` in src/core/scheduler
   * explains), and record an intent (a new attempt row) for each. The counts, the pick and the
   * writes are one call of `claim_dispatches` (db/migrations/0013) under the repository's
   * advisory lock, so two deliveries or two processes can never claim the same (task, attempt)
   * nor exceed a limit (the installation's share too, db/migrations/0034); the read of what was
   * claimed comes back from the same call (`claim_dispatch_rows`, db/migrations/0016): one
   * statement, whatever it claims.
   */
  async claimDispatches(
    repositoryId: number,
    limits: ClaimLimits,
    /**
     * Core's overlap decision (docs/lifecycle.md, "Overlapping files"), when some task of the
     * repository claims paths: called under the repository's lock with the claimants read after
     * it, and the task ids it returns are left out of the claim. Deciding under the lock means no
     * other pass can dispatch a task between the read and the claim (two passes deciding on two
     * reads could each dispatch one of two overlapping tasks). Nothing slow happens under it:
     * the trees were read from GitHub before.
     */
    decideBlocked?: (claimants: PathClaimantRow[]) => readonly number[],
  ): Promise<DispatchIntent[]> {
    if (!decideBlocked) return this.claim(this.db, repositoryId, limits);
    return this.db.transaction(async (tx) => {
      await tx.execute(
        sql`select pg_advisory_xact_lock(${LOCK_KEYS.repositoryDispatch(repositoryId).toString()}::bigint)`,
      );
      const blocked = decideBlocked(await pathClaimants(tx, repositoryId, limits.now));
      return this.claim(tx, repositoryId, { ...limits, blocked });
    });
  }

  private async claim(
    db: Db,
    repositoryId: number,
    limits: ClaimLimits,
  ): Promise<DispatchIntent[]> {
    const global = Number.isFinite(limits.globalLimit) ? limits.globalLimit : null;
    const rows = rowsOf<{
      attempt: Record<string, unknown>;
      task: Record<string, unknown>;
      run: Record<string, unknown>;
    }>(
      await db.execute(sql`
        select attempt, task, run from claim_dispatch_rows(
          ${repositoryId}::bigint,
          ${LOCK_KEYS.repositoryDispatch(repositoryId).toString()}::bigint,
          ${limits.repoLimit}::integer,
          ${LOCK_KEYS.globalDispatch.toString()}::bigint,
          ${global}::integer,
          ${limits.now.toISOString()}::timestamptz,
          ${`{${DISPATCH.from.join(',')}}`}::text[],
          ${DISPATCH.to}::text,
          ${`{${(limits.blocked ?? []).join(',')}}`}::bigint[],
          ${limits.installationLimit ?? null}::integer)`),
    );
    return rows.map((row) => ({
      attempt: rowFromJson(attempts, row.attempt),
      task: rowFromJson(tasks, row.task),
      run: rowFromJson(runs, row.run),
    }));
  }

  /**
   * The planner's dispatch intent: its task (`plan`, created now) and first attempt in mode
   * `plan`, in one transaction. The planner is claimed once per run: a second claim (a retried
   * start racing the first) finds the task and gets nothing.
   */
  async claimPlanner(run: RunRow): Promise<DispatchIntent | undefined> {
    return this.db.transaction(async (tx) => {
      const [task] = await tx
        .insert(tasks)
        .values({
          runId: run.id,
          taskKey: PLAN_TASK_KEY,
          planIndex: -1,
          title: 'Plan',
          type: PLAN_TASK_KEY,
          state: 'dispatched',
          attemptCount: 1,
        })
        .onConflictDoNothing()
        .returning();
      if (!task) return undefined;
      const [attempt] = await tx
        .insert(attempts)
        .values({ taskId: task.id, attempt: 1, mode: 'plan' })
        .returning();
      return attempt && { attempt, task, run };
    });
  }

  /**
   * The repository's tasks that could be dispatched at `now` (deps merged, run running, no
   * backoff), in dispatch order: priority, then oldest run, then plan order.
   */
  async readyTasks(repositoryId: number, now: Date, limit: number, db: Db = this.db) {
    // In the order of tasks_ready_idx (the run's age is copied onto its tasks), so Postgres
    // walks the index and stops at `limit` instead of sorting the repository's ready set.
    return db
      .select({ task: tasks, runCreatedAt: tasks.runCreatedAt })
      .from(tasks)
      .where(and(eq(tasks.repositoryId, repositoryId), readyTask(now)))
      .orderBy(
        sql`${tasks.priority} desc nulls last`,
        asc(tasks.runCreatedAt),
        asc(tasks.runId),
        asc(tasks.planIndex),
      )
      .limit(limit);
  }

  /** See `repositoryLoads`: what the installations' shares of the global cap are decided from. */
  loads(now: Date): Promise<RepositoryLoad[]> {
    return repositoryLoads(this.db, now);
  }

  /**
   * Worker runs in flight in one repository and across all of them (for the status comment):
   * the counts the trigger of db/migrations/0015 keeps, one row per repository, not a count of
   * every task in flight (2,000 rows in the full fleet, on every status comment).
   */
  async inflightCounts(repositoryId: number): Promise<{ repository: number; global: number }> {
    const [row] = rowsOf<{ repository: number; global: number }>(
      await this.db.execute(sql`
        select coalesce(sum(in_flight) filter (where repository_id = ${repositoryId}), 0)::int
                 as repository,
               coalesce(sum(in_flight), 0)::int as global
          from repository_inflight`),
    );
    return { repository: Number(row?.repository ?? 0), global: Number(row?.global ?? 0) };
  }

  async update(id: number, values: Partial<Omit<AttemptRow, 'id' | 'taskId'>>): Promise<void> {
    await this.prepared.updateById('attempt_update', attempts, attempts.id, id, values);
  }

  /**
   * The dispatch went out: the attempt is `dispatched`, with its run when GitHub named it, only
   * while it is open. An attempt completed while its dispatch was out (its task cancelled,
   * src/engine/cancel-attempt.ts) stays completed: reopened, its run would get the assignment.
   * Returns whether it took.
   */
  async recordDispatched(
    id: number,
    values: { dispatchedAt: Date; workflowRunId: number | null; workflowRunUrl: string | null },
  ): Promise<boolean> {
    const rows = await this.prepared
      .get('attempt_dispatched', (db) =>
        db
          .update(attempts)
          .set({
            phase: 'dispatched',
            dispatchedAt: sql.placeholder('dispatchedAt') as never,
            workflowRunId: sql.placeholder('workflowRunId') as never,
            workflowRunUrl: sql.placeholder('workflowRunUrl') as never,
          })
          .where(and(eq(attempts.id, sql.placeholder('id')), sql`${attempts.phase} <> 'completed'`))
          .returning({ id: attempts.id }),
      )
      .execute({ id, ...values });
    return rows.length > 0;
  }

  /**
   * A workflow run found by its branch and run-name becomes the attempt's (src/engine/track.ts),
   * only while the attempt is as it was read: with no run, in `phase`. One cancelled meanwhile
   * (src/engine/cancel-attempt.ts) is not reopened by a phase decided from the older read.
   * Returns whether it took.
   */
  async adoptRun(
    read: { id: number; phase: string },
    values: { phase: string; dispatchedAt: Date; workflowRunId: number; workflowRunUrl: string },
  ): Promise<boolean> {
    const rows = await this.db
      .update(attempts)
      .set(values)
      .where(
        and(
          eq(attempts.id, read.id),
          eq(attempts.phase, read.phase),
          sql`${attempts.workflowRunId} is null`,
        ),
      )
      .returning({ id: attempts.id });
    return rows.length > 0;
  }

  /**
   * What the attempt's worker said its agent spent (the publish job's request): the attempt is
   * charged it, or what it was charged already where that is more, figure by figure. A
   * successful completion then keeps it (core's AttemptSpend `own`).
   */
  async chargeReported(id: number, usage: Usage): Promise<void> {
    await this.db
      .update(attempts)
      .set({
        costUsd: sql`greatest(coalesce(${attempts.costUsd}, 0), ${usage.costUsd})`,
        inputTokens: sql`greatest(coalesce(${attempts.inputTokens}, 0), ${usage.inputTokens})`,
        outputTokens: sql`greatest(coalesce(${attempts.outputTokens}, 0), ${usage.outputTokens})`,
      })
      .where(eq(attempts.id, id));
  }

  /** Complete an attempt once; returns undefined when it had already completed. */
  async complete(
    id: number,
    values: {
      conclusion: string;
      failureReason?: string | null;
      costUsd?: number | null;
      inputTokens?: number | null;
      outputTokens?: number | null;
    },
  ): Promise<AttemptRow | undefined> {
    const [row] = await this.db
      .update(attempts)
      .set({ ...values, phase: 'completed', completedAt: new Date() })
      .where(and(eq(attempts.id, id), sql`${attempts.phase} <> 'completed'`))
      .returning();
    return row;
  }

  /**
   * An attempt completed before its run ended (at its timeout, or cancelled) is charged what its
   * run said it spent, once: the update takes only while the attempt has been charged nothing
   * (core's awaitsSpendOfItsRun, whose conclusions it is given). False when it did not take (a
   * redelivery of the run's end).
   */
  async chargeAfterItsRun(id: number, usage: Usage): Promise<boolean> {
    const rows = await this.db
      .update(attempts)
      .set({
        costUsd: usage.costUsd,
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
      })
      .where(
        and(
          eq(attempts.id, id),
          eq(attempts.phase, 'completed'),
          inArray(attempts.conclusion, [...COMPLETED_BEFORE_ITS_RUN]),
          isNull(attempts.costUsd),
        ),
      )
      .returning({ id: attempts.id });
    return rows.length > 0;
  }

  /**
   * A re-run of a completed attempt's workflow run (`runAttempt`, 2 and on) is charged what its
   * agent job said, added to the attempt's charge, once: the update takes only while that re-run
   * has not been charged (core's chargesRerun), and records it, `usage` or not. False when it did
   * not take (a redelivery of the re-run's end).
   */
  async chargeRerun(id: number, runAttempt: number, usage: Usage | undefined): Promise<boolean> {
    const spent = usage ?? { costUsd: 0, inputTokens: 0, outputTokens: 0 };
    const rows = await this.db
      .update(attempts)
      .set({
        costUsd: sql`coalesce(${attempts.costUsd}, 0) + ${spent.costUsd}`,
        inputTokens: sql`coalesce(${attempts.inputTokens}, 0) + ${spent.inputTokens}`,
        outputTokens: sql`coalesce(${attempts.outputTokens}, 0) + ${spent.outputTokens}`,
        chargedRunAttempts: sql`array_append(${attempts.chargedRunAttempts}, ${runAttempt}::integer)`,
      })
      .where(
        and(
          eq(attempts.id, id),
          eq(attempts.phase, 'completed'),
          sql`${runAttempt}::integer > 1`,
          sql`not (${runAttempt}::integer = any(${attempts.chargedRunAttempts}))`,
        ),
      )
      .returning({ id: attempts.id });
    return rows.length > 0;
  }

  /**
   * A successful attempt completes, charged what `spend` says (core's AttemptSpend). Returns the
   * row with what the run has spent so far, this attempt included (`runSpentUsd`, for the
   * budget): one statement.
   */
  async completeSucceeded(
    id: number,
    task: { id: number; runId: number },
    values: { failureReason?: string; spend?: AttemptSpend },
  ): Promise<(AttemptRow & { runSpentUsd: number }) | undefined> {
    const spend = spendShape(values.spend);
    const withReason = Boolean(values.failureReason);
    const shape = `${spend}_${withReason ? 'reason' : 'no_reason'}`;
    const [row] = await this.prepared
      .get(`attempt_succeeded_${shape}`, (db) => succeededQuery(db, spend, withReason))
      .execute({
        id,
        taskId: task.id,
        runId: task.runId,
        completedAt: new Date(),
        failureReason: values.failureReason || undefined,
        ...spendFigures(values.spend),
      });
    return row && { ...row, runSpentUsd: Number(row.runSpentUsd) };
  }

  async byWorkflowRun(workflowRunId: number): Promise<AttemptRow | undefined> {
    const [row] = await this.db
      .select()
      .from(attempts)
      .where(eq(attempts.workflowRunId, workflowRunId));
    return row;
  }

  /** The attempt of a workflow run with its task, run and repository: one statement. */
  async trackedByWorkflowRun(workflowRunId: number) {
    const [row] = await this.prepared
      .get('tracked_by_workflow_run', (db) =>
        db
          .select({ attempt: attempts, task: tasks, run: runs, repository: repositories })
          .from(attempts)
          .innerJoin(tasks, eq(tasks.id, attempts.taskId))
          .innerJoin(runs, eq(runs.id, tasks.runId))
          .innerJoin(repositories, eq(repositories.id, runs.repositoryId))
          .where(eq(attempts.workflowRunId, sql.placeholder('workflowRunId'))),
      )
      .execute({ workflowRunId });
    return row;
  }

  async byTaskAttempt(taskId: number, attempt: number): Promise<AttemptRow | undefined> {
    const [row] = await this.db
      .select()
      .from(attempts)
      .where(and(eq(attempts.taskId, taskId), eq(attempts.attempt, attempt)));
    return row;
  }

  async latestOf(taskId: number): Promise<AttemptRow | undefined> {
    const [row] = await this.db
      .select()
      .from(attempts)
      .where(eq(attempts.taskId, taskId))
      .orderBy(desc(attempts.attempt))
      .limit(1);
    return row;
  }

  async ofTask(taskId: number): Promise<AttemptRow[]> {
    return this.db
      .select()
      .from(attempts)
      .where(eq(attempts.taskId, taskId))
      .orderBy(asc(attempts.attempt));
  }

  async ofRun(runId: number): Promise<AttemptRow[]> {
    const rows = await this.db
      .select({ attempt: attempts })
      .from(attempts)
      .innerJoin(tasks, eq(tasks.id, attempts.taskId))
      .where(eq(tasks.runId, runId))
      .orderBy(asc(attempts.id));
    return rows.map((r) => r.attempt);
  }

  /**
   * Attempts not completed, of every repository or of one, with what the sweep needs to check
   * them against GitHub.
   */
  async open(repositoryId?: number) {
    return this.db
      .select({ attempt: attempts, task: tasks, run: runs, repository: repositories })
      .from(attempts)
      .innerJoin(tasks, eq(tasks.id, attempts.taskId))
      .innerJoin(runs, eq(runs.id, tasks.runId))
      .innerJoin(repositories, eq(repositories.id, runs.repositoryId))
      .where(
        and(
          sql`${attempts.phase} <> 'completed'`,
          repositoryId === undefined ? undefined : eq(tasks.repositoryId, repositoryId),
        ),
      );
  }

  async spentByRun(runId: number): Promise<number> {
    const [row] = await this.db
      .select({ total: sql<number>`coalesce(sum(${attempts.costUsd}), 0)::float8` })
      .from(attempts)
      .innerJoin(tasks, eq(tasks.id, attempts.taskId))
      .where(eq(tasks.runId, runId));
    return Number(row?.total ?? 0);
  }
}

/** A successful completion (AttemptStore.completeSucceeded); the run's spend comes back. */
function succeededQuery(db: AppDatabase, spend: SpendShape, withReason: boolean) {
  const { earlier, update } = succeededUpdate(db, spend, withReason);
  return update(db.with(earlier));
}
