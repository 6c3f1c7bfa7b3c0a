import {
  and,
  asc,
  desc,
  eq,
  getTableColumns,
  inArray,
  isNull,
  ne,
  not,
  or,
  sql,
  type SQL,
  type WithSubquery,
} from 'drizzle-orm';
import { attempts, pullRequests, repositories, runs, taskEdges, tasks } from '../../db/schema.js';
import type { RepoConfig } from '../config/schema.js';
import { PLAN_TASK_KEY, type Plan } from '../core/plan/index.js';
import { TERMINAL_TASK_STATES, type TaskState } from '../core/states.js';
import {
  INITIAL_RUN_STATE,
  INITIAL_TASK_STATE,
  runTransition,
  taskTransition,
  type RunFinishEvent,
  type RunMove,
  type TaskMove,
} from '../core/transitions.js';
import { rowsOf, type AppDatabase } from './database.js';
import { placeholdersFor, PreparedStatements } from './prepared.js';
import { pullUpsert, type PullRow } from './pulls.js';
import { spendFigures, spendShape, succeededUpdate } from './attempt-completion.js';
import type { AttemptRow } from './attempt-row.js';
import { rowFromJson } from './json-rows.js';
import type { Db } from './transaction.js';
import type { AttemptSpend } from '../core/lifecycle/index.js';
import type { RepositoryRow } from './repositories.js';

export type RunRow = typeof runs.$inferSelect;
export type TaskRow = typeof tasks.$inferSelect;

/**
 * Columns a plain update may write. The state is not one of them: it changes only by a
 * transition of src/core/transitions.ts (`transitionTask`, `transitionRun`, ...).
 */
export type TaskFields = Partial<Omit<TaskRow, 'id' | 'runId' | 'state' | 'updatedAt'>> & {
  state?: never;
};
export type RunFields = Partial<Omit<RunRow, 'id' | 'state' | 'finishedAt' | 'updatedAt'>> & {
  state?: never;
  finishedAt?: never;
};

/** One guarded write of a task, built with placeholders (see updateTaskBumpingRun). */
interface TaskWrite {
  condition: SQL | undefined;
  set: Record<string, unknown>;
  /** The task is being merged: its dependents recount their unmerged deps in the statement. */
  frees?: { othersOpen: SQL<number> };
  /** The attempt `attemptId` starts running (`startedAt`), whether or not the task moves. */
  startsAttempt?: boolean;
  /** The PR row records its order check (`orderCheck*` placeholders), whether or not the task moves. */
  recordsOrderCheck?: boolean;
}

/** A PR row's record of the order check run on its head (src/engine/merge/order-check.ts). */
export interface OrderCheckRecord {
  pullId: number;
  checkRunId: number;
  sha: string;
  /** What the check says, as the signature that tells when it must be rewritten. */
  conclusion: string;
}

export interface TaskWriteOptions {
  /**
   * The state the caller read the task in: the write is skipped when the task has moved since
   * (a compare-and-set on top of the transition's own guard).
   */
  expected?: TaskState;
  /**
   * The approval the caller read (`approved_sha`, `approved_by`; `by` null for one recorded
   * before its author was): the write is skipped when another has replaced it since (an approval
   * withdrawn must be the one decided on).
   */
  approval?: { sha: string; by: string | null };
  db?: Db;
  /**
   * An order check the merge decision just created or rewrote on GitHub, recorded on its PR row
   * in the same statement (the merge claim carries it instead of a statement of its own).
   */
  orderCheck?: OrderCheckRecord;
}

/**
 * The plan's own tasks, not the planner's: the task graph, merges, status, budgets, commands and
 * the scheduler never see the planner task (it is dispatched by its own claim, claimPlanner).
 */
export const graphTask = ne(tasks.taskKey, PLAN_TASK_KEY);

/** The terminal task states as an SQL list, for `state not in (...)`. */
const TERMINAL_STATES_SQL = sql.join(
  [...TERMINAL_TASK_STATES].map((state) => sql`${state}`),
  sql`, `,
);

/** The prepared statement's name part for an approval guard: an unattributed one is its own shape. */
function approvalGuardName(approval: TaskWriteOptions['approval']): string {
  if (!approval) return '';
  return approval.by === null ? '_approval_unattributed' : '_approval';
}

export interface NewRun {
  repositoryId: number;
  issueNumber: number;
  config: RepoConfig;
  startedBy: string;
  issueTitle: string;
  issueBody: string;
  /** The starting label event's `issue.updated_at`. */
  triggerUpdatedAt?: Date | null;
}

/** A run's plan tasks with their deps and PR rows, as one statement reads them. */
export interface RunGraph {
  /** Plan order. */
  tasks: TaskRow[];
  /** Task key → the keys it depends on (an empty list for a root). */
  depsOf: Map<string, string[]>;
  byKey: Map<string, TaskRow>;
  /** Task id → the row of the PR the task points at (`tasks.pr_number`), when recorded. */
  pullOf: Map<number, PullRow>;
}

export class RunStore {
  private readonly prepared: PreparedStatements;

  constructor(private readonly db: AppDatabase) {
    this.prepared = new PreparedStatements(db);
  }

  /** Create the issue's active run, or return the one that already exists (racing deliveries). */
  async createRun(input: NewRun): Promise<{ run: RunRow; created: boolean }> {
    const existing = await this.activeRun(input.repositoryId, input.issueNumber);
    if (existing) return { run: existing, created: false };
    const [last] = await this.db
      .select({ generation: runs.generation })
      .from(runs)
      .where(
        and(eq(runs.repositoryId, input.repositoryId), eq(runs.issueNumber, input.issueNumber)),
      )
      .orderBy(desc(runs.generation))
      .limit(1);
    const inserted = await this.db
      .insert(runs)
      .values({ ...input, generation: (last?.generation ?? 0) + 1, state: INITIAL_RUN_STATE })
      .onConflictDoNothing()
      .returning();
    if (inserted[0]) {
      await this.db
        .update(repositories)
        .set({ maxParallel: input.config.concurrency.maxParallel })
        .where(eq(repositories.id, input.repositoryId));
      return { run: inserted[0], created: true };
    }
    const winner = await this.activeRun(input.repositoryId, input.issueNumber);
    if (!winner) throw new Error(`run for issue ${input.issueNumber} neither created nor found`);
    return { run: winner, created: false };
  }

  async activeRun(repositoryId: number, issueNumber: number): Promise<RunRow | undefined> {
    const [row] = await this.db
      .select()
      .from(runs)
      .where(
        and(
          eq(runs.repositoryId, repositoryId),
          eq(runs.issueNumber, issueNumber),
          isNull(runs.finishedAt),
        ),
      );
    return row;
  }

  /** The newest run of an issue, finished or not. */
  async latestRun(repositoryId: number, issueNumber: number): Promise<RunRow | undefined> {
    const [row] = await this.db
      .select()
      .from(runs)
      .where(and(eq(runs.repositoryId, repositoryId), eq(runs.issueNumber, issueNumber)))
      .orderBy(desc(runs.generation))
      .limit(1);
    return row;
  }

  /**
   * The newest run of an issue, its repository and its task `taskKey` (null when the run has
   * none), in one statement: what a task branch names.
   */
  async latestRunWithTask(
    repositoryId: number,
    issueNumber: number,
    taskKey: string,
  ): Promise<{ run: RunRow; repository: RepositoryRow; task: TaskRow | null } | undefined> {
    const [row] = await this.prepared
      .get('latest_run_with_task', (db) =>
        db
          .select({ run: runs, repository: repositories, task: tasks })
          .from(runs)
          .innerJoin(repositories, eq(repositories.id, runs.repositoryId))
          .leftJoin(
            tasks,
            and(eq(tasks.runId, runs.id), eq(tasks.taskKey, sql.placeholder('taskKey'))),
          )
          .where(
            and(
              eq(runs.repositoryId, sql.placeholder('repositoryId')),
              eq(runs.issueNumber, sql.placeholder('issueNumber')),
            ),
          )
          .orderBy(desc(runs.generation))
          .limit(1),
      )
      .execute({ repositoryId, issueNumber, taskKey });
    return row;
  }

  async getRun(id: number, db: Db = this.db): Promise<RunRow | undefined> {
    const [row] = await db.select().from(runs).where(eq(runs.id, id));
    return row;
  }

  /** Runs not finished, of every repository or of one. */
  async activeRuns(repositoryId?: number): Promise<RunRow[]> {
    return this.db
      .select()
      .from(runs)
      .where(
        and(
          isNull(runs.finishedAt),
          repositoryId === undefined ? undefined : eq(runs.repositoryId, repositoryId),
        ),
      )
      .orderBy(asc(runs.id));
  }

  /** The run and its repository, in one statement. */
  async runWithRepository(
    id: number,
  ): Promise<{ run: RunRow; repository: RepositoryRow } | undefined> {
    const [row] = await this.db
      .select({ run: runs, repository: repositories })
      .from(runs)
      .innerJoin(repositories, eq(repositories.id, runs.repositoryId))
      .where(eq(runs.id, id));
    return row;
  }

  async repositoryOf(run: RunRow): Promise<RepositoryRow> {
    const [repo] = await this.db
      .select()
      .from(repositories)
      .where(eq(repositories.id, run.repositoryId));
    if (!repo) throw new Error(`repository ${run.repositoryId} of run ${run.id} is unknown`);
    return repo;
  }

  /** Store a validated plan: tasks, edges and each task's count of unmerged deps. */
  async setPlan(
    runId: number,
    plan: Plan,
    source: string,
    awaitApproval: boolean,
    /** Only when the run has no plan yet (starting a run, which may be finished twice). */
    options: { firstOnly?: boolean } = {},
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [run] = await tx.select().from(runs).where(eq(runs.id, runId)).for('update');
      if (!run || run.finishedAt) return false;
      if (options.firstOnly && run.planSource !== null) return false;
      const stored = runTransition({
        event: 'plan stored',
        to:
          awaitApproval && !run.planApproved ? 'awaiting_approval' : run.held ? 'held' : 'running',
      });
      if (!stored.from.includes(run.state)) return false;
      const [merged] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(tasks)
        .where(and(eq(tasks.runId, runId), eq(tasks.state, 'merged'), graphTask));
      // The plan can be replaced until the first merge, never after.
      if ((merged?.n ?? 0) > 0) return false;
      await tx.delete(taskEdges).where(eq(taskEdges.runId, runId));
      // The planner task and its attempts stay: a plan comment is checked against its runs.
      await tx.delete(tasks).where(and(eq(tasks.runId, runId), graphTask));
      const index = new Map(plan.tasks.map((t, i) => [t.id, i]));
      const rows = plan.tasks.map((t) => ({
        runId,
        taskKey: t.id,
        state: INITIAL_TASK_STATE,
        planIndex: index.get(t.id) ?? 0,
        title: t.title,
        type: t.type,
        prompt: t.prompt ?? null,
        priority: t.priority,
        timeoutMinutes: t.timeoutMinutes ?? null,
        files: t.files ?? null,
        unmetDeps: new Set(t.deps).size,
      }));
      for (let i = 0; i < rows.length; i += 1000)
        await tx.insert(tasks).values(rows.slice(i, i + 1000));
      const edges = plan.tasks.flatMap((t) =>
        [...new Set(t.deps)].map((d) => ({ runId, taskKey: t.id, dependsOn: d })),
      );
      for (let i = 0; i < edges.length; i += 1000)
        await tx.insert(taskEdges).values(edges.slice(i, i + 1000));
      await tx
        .update(runs)
        .set({
          planSource: source,
          planError: null,
          baseBranch: plan.base ?? run.baseBranch,
          state: stored.to,
          statusVersionWanted: sql`${runs.statusVersionWanted} + 1`,
          updatedAt: new Date(),
        })
        .where(and(eq(runs.id, runId), inArray(runs.state, [...stored.from])));
      return true;
    });
  }

  /** The plan is refused: the status shows why. False when the run is in no state to take it. */
  async setPlanInvalid(runId: number, errorMarkdown: string, source: string): Promise<boolean> {
    const invalid = runTransition('plan invalid');
    const rows = await this.db
      .update(runs)
      .set({
        state: invalid.to,
        planError: errorMarkdown,
        planSource: source,
        statusVersionWanted: sql`${runs.statusVersionWanted} + 1`,
        updatedAt: new Date(),
      })
      .where(
        and(eq(runs.id, runId), isNull(runs.finishedAt), inArray(runs.state, [...invalid.from])),
      )
      .returning({ id: runs.id });
    return rows.length > 0;
  }

  /** Columns other than the state; a state change is a `transitionRun`. */
  async updateRun(runId: number, values: RunFields, db: Db = this.db): Promise<void> {
    refuseStateIn(values, ['state', 'finishedAt']);
    await db
      .update(runs)
      .set({
        ...values,
        statusVersionWanted: sql`${runs.statusVersionWanted} + 1`,
        updatedAt: new Date(),
      })
      .where(eq(runs.id, runId));
  }

  /**
   * Move an active run by one transition of the table, with other columns in the same write;
   * false when the run is finished or in no state the transition starts from.
   */
  async transitionRun(
    runId: number,
    move: RunMove,
    values: RunFields = {},
    db: Db = this.db,
    /** A further condition on the row that refuses the move, read in the same statement. */
    unless?: SQL,
  ): Promise<boolean> {
    refuseStateIn(values, ['state', 'finishedAt']);
    const { from, to } = runTransition(move);
    const rows = await db
      .update(runs)
      .set({
        ...values,
        state: to,
        statusVersionWanted: sql`${runs.statusVersionWanted} + 1`,
        updatedAt: new Date(),
      })
      .where(
        and(
          eq(runs.id, runId),
          isNull(runs.finishedAt),
          inArray(runs.state, [...from]),
          unless && not(unless),
        ),
      )
      .returning({ id: runs.id });
    return rows.length > 0;
  }
  /**
   * The run's spend reached its budget: held, unless a person's `/unhold` waived the budget
   * meanwhile (read in the same statement, so a run read before the waiver is not held again).
   */
  async holdForBudget(runId: number, holdReason: string): Promise<boolean> {
    return this.transitionRun(
      runId,
      'budget reached',
      { holdReason },
      this.db,
      sql`${runs.budgetWaived}`,
    );
  }

  /**
   * Finish a run, with the reason core gave for its end, if any; returns false when it had already
   * finished (only one caller does the follow-up).
   */
  async finishRun(
    runId: number,
    event: RunFinishEvent,
    { endReason }: { endReason?: string } = {},
  ): Promise<boolean> {
    const { from, to } = runTransition(event);
    const done = await this.db
      .update(runs)
      .set({
        ...(endReason === undefined ? {} : { endReason }),
        state: to,
        finishedAt: new Date(),
        statusVersionWanted: sql`${runs.statusVersionWanted} + 1`,
        updatedAt: new Date(),
      })
      .where(and(eq(runs.id, runId), isNull(runs.finishedAt), inArray(runs.state, [...from])))
      .returning({ id: runs.id });
    return done.length > 0;
  }

  /** A finished run comes back (a /retry after it failed), unless the issue has another active run. */
  async reopenRun(runId: number): Promise<boolean> {
    const reopened = runTransition('reopened');
    try {
      const rows = await this.db
        .update(runs)
        .set({
          state: reopened.to,
          finishedAt: null,
          statusVersionWanted: sql`${runs.statusVersionWanted} + 1`,
          updatedAt: new Date(),
        })
        .where(and(eq(runs.id, runId), inArray(runs.state, [...reopened.from])))
        .returning({ id: runs.id });
      return rows.length > 0;
    } catch (error) {
      if ((error as { code?: string }).code === '23505') return false;
      throw error;
    }
  }

  async setStatusComment(runId: number, commentId: number): Promise<void> {
    await this.db.update(runs).set({ statusCommentId: commentId }).where(eq(runs.id, runId));
  }

  /** The comment now shows `version`: rendered up to there (a change made meanwhile stays due). */
  async markStatusRendered(runId: number, version: number): Promise<void> {
    await this.db
      .update(runs)
      .set({ statusVersionRendered: sql`greatest(${runs.statusVersionRendered}, ${version})` })
      .where(eq(runs.id, runId));
  }

  /** Runs whose status comment is behind what it should show, with their repository. */
  async runsNeedingStatus(): Promise<{ id: number; repositoryId: number }[]> {
    return this.db
      .select({ id: runs.id, repositoryId: runs.repositoryId })
      .from(runs)
      .where(sql`${runs.statusVersionRendered} < ${runs.statusVersionWanted}`);
  }

  async tasksOf(runId: number, db: Db = this.db): Promise<TaskRow[]> {
    return this.prepared
      .on(db, 'tasks_of_run', (d) =>
        d
          .select()
          .from(tasks)
          .where(and(eq(tasks.runId, sql.placeholder('runId')), graphTask))
          .orderBy(asc(tasks.planIndex)),
      )
      .execute({ runId });
  }

  /** A task of the run by key, the planner's (`plan`) included. */
  async task(runId: number, taskKey: string, db: Db = this.db): Promise<TaskRow | undefined> {
    const [row] = await this.prepared
      .on(db, 'task_by_key', (d) =>
        d
          .select()
          .from(tasks)
          .where(
            and(
              eq(tasks.runId, sql.placeholder('runId')),
              eq(tasks.taskKey, sql.placeholder('taskKey')),
            ),
          ),
      )
      .execute({ runId, taskKey });
    return row;
  }

  async taskById(id: number, db: Db = this.db): Promise<TaskRow | undefined> {
    const [row] = await db.select().from(tasks).where(eq(tasks.id, id));
    return row;
  }

  /**
   * A run's plan tasks in plan order, with each task's deps by key and the row of the PR it
   * points at: one statement, whatever the run's size.
   */
  async graphOf(runId: number, db: Db = this.db): Promise<RunGraph> {
    return graphFromJson(
      rowsOf<GraphJsonRow>(
        await db.execute(
          sql`select task, pull, deps from run_graph_rows(${runId}::bigint) order by plan_index`,
        ),
      ),
    );
  }

  /**
   * Move a task by one transition of the table (src/core/transitions.ts), with other columns in
   * the same write. The guard is the transition's source states, so a task that has moved on
   * meanwhile (another delivery, another replica) is left alone: returns the updated row, or
   * undefined when refused.
   */
  async transitionTask(
    taskId: number,
    move: TaskMove,
    values: TaskFields = {},
    options: TaskWriteOptions = {},
  ): Promise<TaskRow | undefined> {
    refuseStateIn(values, ['state']);
    const { from, to } = taskTransition(move);
    return this.writeTask(taskId, { ...values, state: to }, from, options);
  }

  /** Columns other than the state: a plain update, never a transition. */
  async updateTaskFields(
    taskId: number,
    values: TaskFields,
    options: TaskWriteOptions = {},
  ): Promise<TaskRow | undefined> {
    refuseStateIn(values, ['state']);
    return this.writeTask(taskId, values, undefined, options);
  }

  private async writeTask(
    taskId: number,
    values: TaskFields | (Omit<TaskFields, 'state'> & { state: TaskState }),
    from: readonly TaskState[] | undefined,
    { expected, approval, db = this.db, orderCheck }: TaskWriteOptions,
  ): Promise<TaskRow | undefined> {
    const guard =
      expected === undefined ? from : (from ?? [expected]).filter((s) => s === expected);
    if (guard?.length === 0) {
      if (orderCheck) await this.recordOrderCheck(orderCheck);
      return undefined;
    }
    const given = { ...values, updatedAt: new Date() };
    const { shape, placeholders } = placeholdersFor(given);
    return this.updateTaskBumpingRun(
      `task_write_${guard?.join('_') ?? 'any'}_${shape}${orderCheck ? '_order_check' : ''}${approvalGuardName(approval)}`,
      {
        ...given,
        taskId,
        ...(orderCheck && orderCheckValues(orderCheck)),
        ...(approval && { approvalSha: approval.sha }),
        ...(approval && approval.by !== null && { approvalBy: approval.by }),
      },
      {
        condition: and(
          guard ? inArray(tasks.state, [...guard]) : undefined,
          approval
            ? and(
                eq(tasks.approvedSha, sql.placeholder('approvalSha')),
                approval.by === null
                  ? isNull(tasks.approvedBy)
                  : eq(tasks.approvedBy, sql.placeholder('approvalBy')),
              )
            : undefined,
        ),
        set: placeholders,
        recordsOrderCheck: orderCheck !== undefined,
      },
      db,
    );
  }

  /** The order check's record on its PR row, by itself. */
  async recordOrderCheck(check: OrderCheckRecord): Promise<void> {
    await this.prepared
      .get('pull_order_check', (db) =>
        db.update(pullRequests).set(orderCheckSet()).where(orderCheckRow()),
      )
      .execute({ ...orderCheckValues(check), updatedAt: new Date() });
  }

  /**
   * The task's PR goes into review (the table's `attempt succeeded`): `approved` at once when the
   * task's approval is for `headSha` (given while the worker was finishing), else `in_review`.
   * One statement, so an approval recorded meanwhile is never lost between a read and the write;
   * each branch of the CASE is guarded by its own transition's sources.
   */
  async enterReview(
    taskId: number,
    prNumber: number,
    headSha: string,
  ): Promise<TaskRow | undefined> {
    return this.updateTaskBumpingRun(
      'task_enter_review',
      { taskId, prNumber, headSha, updatedAt: new Date() },
      enterReviewWrite(),
    );
  }

  /**
   * A successful attempt completes (as AttemptStore.completeSucceeded), its PR is recorded (as
   * PullStore.upsert) and the task goes into review (as enterReview), in one statement: the task
   * moves only if the attempt completed in it. Undefined when the attempt had completed before
   * (a redelivery): then only the PR's row is written, which is GitHub's view as just read, as
   * any sighting of the PR writes it. `task` is undefined when the task did not move.
   */
  async completeIntoReview(input: {
    attemptId: number;
    task: { id: number; runId: number };
    /** What the attempt is charged (core's AttemptSpend). */
    spend: AttemptSpend | undefined;
    pull: Omit<typeof pullRequests.$inferInsert, 'taskId' | 'updatedAt'>;
  }): Promise<
    { attempt: AttemptRow & { runSpentUsd: number }; task: TaskRow | undefined } | undefined
  > {
    const now = new Date();
    const pull = placeholdersFor({ ...input.pull, taskId: input.task.id, updatedAt: now });
    const spend = spendShape(input.spend);
    const [row] = await this.prepared
      .get(`complete_into_review_${spend}_${pull.shape}`, (db) => {
        const { earlier, update } = succeededUpdate(db, spend, false);
        const completed = db.$with('completed').as(update(db));
        const recorded = db
          .$with('recorded')
          .as(pullUpsert(db, pull.placeholders).returning({ id: pullRequests.id }));
        const write = enterReviewWrite();
        const { moved, ctes } = this.taskWriteCtes(db, {
          ...write,
          condition: and(write.condition, sql`exists (select 1 from "completed")`),
        });
        return db
          .with(earlier, completed, recorded, ...ctes)
          .select({
            attempt: sql<Record<string, unknown>>`row_to_json(${completed})`,
            task: sql<Record<string, unknown> | null>`(select row_to_json(${moved}) from ${moved})`,
          })
          .from(completed);
      })
      .execute({
        ...input.pull,
        id: input.attemptId,
        taskId: input.task.id,
        runId: input.task.runId,
        completedAt: now,
        updatedAt: now,
        prNumber: input.pull.number,
        ...spendFigures(input.spend),
      });
    if (!row) return undefined;
    return {
      attempt: {
        ...rowFromJson(attempts, row.attempt),
        runSpentUsd: Number(row.attempt['run_spent_usd']),
      },
      task: row.task ? rowFromJson(tasks, row.task) : undefined,
    };
  }

  /**
   * The task's `merged` transition and its dependents' recount (as `decrementDependents`), in
   * one statement: no crash can come between a merge and the tasks it frees, so a later
   * delivery of the same merge has nothing left to repair there. `othersOpen` counts the run's
   * other tasks not in a terminal state: at 0 the run may be over.
   */
  async markMerged(
    taskId: number,
    runId: number,
    taskKey: string,
  ): Promise<(TaskRow & { othersOpen: number }) | undefined> {
    const { from, to } = taskTransition('merged');
    const row = await this.updateTaskBumpingRun(
      'task_merged',
      { taskId, runId, taskKey, updatedAt: new Date() },
      {
        condition: inArray(tasks.state, [...from]),
        set: { state: to, updatedAt: sql.placeholder('updatedAt') },
        frees: {
          othersOpen: sql<number>`(select count(*)::int from ${tasks} o
             where o.run_id = ${sql.placeholder('runId')} and o.id <> ${sql.placeholder('taskId')}
               and o.task_key <> ${PLAN_TASK_KEY} and o.state not in (${TERMINAL_STATES_SQL}))`,
        },
      },
    );
    return row && { ...row, othersOpen: Number((row as { othersOpen?: number }).othersOpen) };
  }

  /**
   * The worker's run started: its attempt is `running` and the task moves `dispatched` →
   * `running` (when it is still dispatched), in one statement.
   */
  async startAttempt(taskId: number, attemptId: number, at: Date): Promise<TaskRow | undefined> {
    const { from, to } = taskTransition('worker started');
    return this.updateTaskBumpingRun(
      'task_worker_started',
      { taskId, attemptId, startedAt: at, updatedAt: new Date() },
      {
        condition: inArray(tasks.state, [...from]),
        set: { state: to, updatedAt: sql.placeholder('updatedAt') },
        startsAttempt: true,
      },
    );
  }

  /**
   * Update the task if `condition` holds and, if it did, ask for its run's status comment to be
   * rewritten: one statement (the run's update is a CTE of the task's). The status comment does
   * not show the planner task: its moves leave the comment current. With `frees`, the task is
   * being merged and its dependents recount their unmerged deps in the same statement.
   */
  private async updateTaskBumpingRun(
    /** Names the statement: one name, one shape of `write`. */
    name: string,
    /** The placeholders' values: `taskId`, and `runId` and `taskKey` with `frees`. */
    values: Record<string, unknown> & { taskId: number },
    write: TaskWrite,
    db: Db = this.db,
  ): Promise<TaskRow | undefined> {
    const [row] = await this.prepared
      .on(db, name, (d) => this.taskWriteQuery(d, write))
      .execute(values);
    return row;
  }

  private taskWriteQuery(db: Db, write: TaskWrite) {
    const { moved, ctes } = this.taskWriteCtes(db, write);
    return db
      .with(...ctes)
      .select()
      .from(moved);
  }

  /** The CTEs of a task write: `moved` (the task's row, if it moved) and what comes with it. */
  private taskWriteCtes(
    db: Db,
    { condition, set, frees, startsAttempt, recordsOrderCheck }: TaskWrite,
  ) {
    const taskId = sql.placeholder('taskId');
    const moved = db.$with('moved').as(
      db
        .update(tasks)
        .set(set)
        .where(and(eq(tasks.id, taskId), condition))
        // The statement sees the other tasks as they were before it, which is what is asked.
        .returning(
          frees
            ? { ...getTableColumns(tasks), othersOpen: frees.othersOpen.as('others_open') }
            : getTableColumns(tasks),
        ),
    );
    const bumped = db.$with('bumped').as(
      db
        .update(runs)
        .set({ statusVersionWanted: sql`${runs.statusVersionWanted} + 1` })
        .where(
          inArray(
            runs.id,
            db.select({ runId: moved.runId }).from(moved).where(ne(moved.taskKey, PLAN_TASK_KEY)),
          ),
        )
        .returning({ id: runs.id }),
    );
    const ctes: WithSubquery[] = [moved, bumped];
    if (frees) {
      // The statement sees the tasks as they were before it: the merged task still counts as
      // unmerged there, so it is left out of the count by key.
      ctes.push(
        db.$with('freed').as(
          db
            .update(tasks)
            .set({
              unmetDeps: sql`(select count(*)::int from ${taskEdges} e
                  join ${tasks} d on d.run_id = e.run_id and d.task_key = e.depends_on
                 where e.run_id = ${tasks.runId} and e.task_key = ${tasks.taskKey}
                   and d.state <> 'merged' and d.task_key <> ${sql.placeholder('taskKey')})`,
            })
            .where(
              and(
                eq(tasks.runId, sql.placeholder('runId')),
                sql`${tasks.taskKey} in (select task_key from ${taskEdges}
                     where run_id = ${sql.placeholder('runId')}
                       and depends_on = ${sql.placeholder('taskKey')})`,
                sql`exists (select 1 from "moved")`,
              ),
            )
            .returning({ id: tasks.id }),
        ),
      );
    }
    if (startsAttempt) {
      // Written whether or not the task moves, as its own statement would be.
      ctes.push(
        db.$with('started').as(
          db
            .update(attempts)
            .set({ phase: 'running', startedAt: sql.placeholder('startedAt') as never })
            .where(eq(attempts.id, sql.placeholder('attemptId')))
            .returning({ id: attempts.id }),
        ),
      );
    }
    if (recordsOrderCheck) {
      ctes.push(
        db
          .$with('checked')
          .as(
            db
              .update(pullRequests)
              .set(orderCheckSet())
              .where(orderCheckRow())
              .returning({ id: pullRequests.id }),
          ),
      );
    }
    return { moved, ctes };
  }

  async bumpStatus(runId: number, db: Db = this.db): Promise<void> {
    await db
      .update(runs)
      .set({ statusVersionWanted: sql`${runs.statusVersionWanted} + 1` })
      .where(eq(runs.id, runId));
  }

  /**
   * Incremental readiness: only the merged task's dependents are touched, each recounting its
   * unmerged deps, so doing it again changes nothing. The repair of a merge recorded by a version
   * that freed the dependents in a statement of their own (markMerged does both in one now).
   * Returns how many dependents were recounted.
   */
  async decrementDependents(runId: number, mergedKey: string, db: Db = this.db): Promise<number> {
    const recounted = rowsOf<{ id: number }>(
      await db.execute(sql`
        update ${tasks} as t set unmet_deps = (
            select count(*)::int from ${taskEdges} e
              join ${tasks} d on d.run_id = e.run_id and d.task_key = e.depends_on
             where e.run_id = t.run_id and e.task_key = t.task_key and d.state <> 'merged')
        where t.run_id = ${runId}
          and t.task_key in (select task_key from ${taskEdges} where run_id = ${runId} and depends_on = ${mergedKey})
        returning t.id`),
    );
    return recounted.length;
  }
}

/** The types already forbid it; this catches a value that got past them (a cast, a spread). */
function refuseStateIn(values: object, columns: string[]): void {
  for (const column of columns)
    if (column in values) throw new Error(`${column} changes by a transition only`);
}

/** A row of `run_graph_rows` (db/migrations/0018): the task's row and its PR's, as JSON. */
export interface GraphJsonRow {
  task: Record<string, unknown>;
  pull: Record<string, unknown> | null;
  deps: string[] | null;
}

/** A run's graph from its rows of `run_graph_rows`, in plan order (graphOf, a merge turn). */
export function graphFromJson(rows: readonly GraphJsonRow[]): RunGraph {
  const ordered = rows.map((r) => rowFromJson(tasks, r.task));
  const pullOf = new Map<number, PullRow>();
  rows.forEach((r, i) => {
    if (r.pull) pullOf.set(ordered[i]!.id, rowFromJson(pullRequests, r.pull));
  });
  return {
    tasks: ordered,
    depsOf: new Map(rows.map((r, i) => [ordered[i]!.taskKey, r.deps ?? []])),
    byKey: new Map(ordered.map((t) => [t.taskKey, t])),
    pullOf,
  };
}

/**
 * The task's PR goes into review (the table's `attempt succeeded`): `approved` when the task's
 * approval is for the head (placeholder `headSha`), else `in_review`; each branch of the CASE
 * guarded by its own transition's sources. Placeholders: `prNumber`, `headSha`, `updatedAt`.
 */
function enterReviewWrite(): TaskWrite {
  const toApproved = taskTransition({ event: 'attempt succeeded', to: 'approved' });
  const toReview = taskTransition({ event: 'attempt succeeded', to: 'in_review' });
  const approvedHead = sql`coalesce(${tasks.approvedSha} = ${sql.placeholder('headSha')}, false)`;
  return {
    condition: or(
      and(approvedHead, inArray(tasks.state, [...toApproved.from])),
      and(not(approvedHead), inArray(tasks.state, [...toReview.from])),
    ),
    set: {
      state: sql`case when ${approvedHead} then ${toApproved.to}::task_state
                      else ${toReview.to}::task_state end`,
      prNumber: sql.placeholder('prNumber'),
      updatedAt: sql.placeholder('updatedAt'),
    },
  };
}

/** The order check's columns of a PR row, from the `orderCheck*` placeholders. */
function orderCheckSet() {
  return {
    orderCheckRunId: sql.placeholder('orderCheckRunId') as never,
    orderCheckSha: sql.placeholder('orderCheckSha') as never,
    orderCheckConclusion: sql.placeholder('orderCheckConclusion') as never,
    updatedAt: sql.placeholder('updatedAt') as never,
  };
}

function orderCheckRow() {
  return eq(pullRequests.id, sql.placeholder('orderCheckPullId'));
}

/** The values of orderCheckSet's and orderCheckRow's placeholders. */
function orderCheckValues(check: OrderCheckRecord) {
  return {
    orderCheckPullId: check.pullId,
    orderCheckRunId: check.checkRunId,
    orderCheckSha: check.sha,
    orderCheckConclusion: check.conclusion,
  };
}
