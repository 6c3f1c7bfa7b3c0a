import { and, asc, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { planAttempts, repositories, runs, taskEdges, tasks } from '../../db/schema.js';
import type { RepoConfig } from '../config/schema.js';
import type { Plan } from '../core/plan/index.js';
import type { RunState, TaskState } from '../core/states.js';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import type { AppDatabase } from './database.js';

export type RunRow = typeof runs.$inferSelect;
export type TaskRow = typeof tasks.$inferSelect;
export type PlanAttemptRow = typeof planAttempts.$inferSelect;

/** drizzle's transaction object has the same query API as the database. */
export type Tx = Parameters<Parameters<AppDatabase['transaction']>[0]>[0];
export type Db = AppDatabase | Tx;

const ACTIVE_RUN_STATES: RunState[] = [
  'planning',
  'plan_invalid',
  'awaiting_approval',
  'running',
  'held',
];

export interface NewRun {
  repositoryId: number;
  issueNumber: number;
  config: RepoConfig;
  startedBy: string;
  issueTitle: string;
  issueBody: string;
}

export interface RunGraph {
  tasks: TaskRow[];
  /** Task key → the keys it depends on (an empty list for a root). */
  depsOf: Map<string, string[]>;
  byKey: Map<string, TaskRow>;
}

export class RunStore {
  constructor(private readonly db: AppDatabase) {}

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
      .values({ ...input, generation: (last?.generation ?? 0) + 1, state: 'planning' })
      .onConflictDoNothing()
      .returning();
    if (inserted[0]) return { run: inserted[0], created: true };
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

  async getRun(id: number, db: Db = this.db): Promise<RunRow | undefined> {
    const [row] = await db.select().from(runs).where(eq(runs.id, id));
    return row;
  }

  async activeRuns(): Promise<RunRow[]> {
    return this.db.select().from(runs).where(isNull(runs.finishedAt)).orderBy(asc(runs.id));
  }

  async activeRunsOf(repositoryId: number): Promise<RunRow[]> {
    return this.db
      .select()
      .from(runs)
      .where(and(eq(runs.repositoryId, repositoryId), isNull(runs.finishedAt)))
      .orderBy(asc(runs.id));
  }

  async newestActiveRun(repositoryId: number): Promise<RunRow | undefined> {
    const [row] = await this.db
      .select()
      .from(runs)
      .where(and(eq(runs.repositoryId, repositoryId), isNull(runs.finishedAt)))
      .orderBy(desc(runs.id))
      .limit(1);
    return row;
  }

  async repositoryOf(run: RunRow) {
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
      const [merged] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(tasks)
        .where(and(eq(tasks.runId, runId), eq(tasks.state, 'merged')));
      // The plan can be replaced until the first merge, never after.
      if ((merged?.n ?? 0) > 0) return false;
      await tx.delete(taskEdges).where(eq(taskEdges.runId, runId));
      await tx.delete(tasks).where(eq(tasks.runId, runId));
      const index = new Map(plan.tasks.map((t, i) => [t.id, i]));
      const rows = plan.tasks.map((t) => ({
        runId,
        taskKey: t.id,
        planIndex: index.get(t.id) ?? 0,
        title: t.title,
        type: t.type,
        prompt: t.prompt ?? null,
        priority: t.priority,
        timeoutMinutes: t.timeoutMinutes ?? null,
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
          state:
            awaitApproval && !run.planApproved
              ? 'awaiting_approval'
              : run.held
                ? 'held'
                : 'running',
          statusVersionWanted: sql`${runs.statusVersionWanted} + 1`,
          updatedAt: new Date(),
        })
        .where(eq(runs.id, runId));
      return true;
    });
  }

  async setPlanInvalid(runId: number, errorMarkdown: string, source: string): Promise<void> {
    await this.db
      .update(runs)
      .set({
        state: 'plan_invalid',
        planError: errorMarkdown,
        planSource: source,
        statusVersionWanted: sql`${runs.statusVersionWanted} + 1`,
        updatedAt: new Date(),
      })
      .where(and(eq(runs.id, runId), isNull(runs.finishedAt)));
  }

  async updateRun(
    runId: number,
    values: Partial<Omit<RunRow, 'id'>>,
    db: Db = this.db,
  ): Promise<void> {
    await db
      .update(runs)
      .set({
        ...values,
        statusVersionWanted: sql`${runs.statusVersionWanted} + 1`,
        updatedAt: new Date(),
      })
      .where(eq(runs.id, runId));
  }

  /** Finish a run; returns false when it had already finished (only one caller does the follow-up). */
  async finishRun(runId: number, state: RunState, db: Db = this.db): Promise<boolean> {
    const done = await db
      .update(runs)
      .set({
        state,
        finishedAt: new Date(),
        statusVersionWanted: sql`${runs.statusVersionWanted} + 1`,
        updatedAt: new Date(),
      })
      .where(and(eq(runs.id, runId), isNull(runs.finishedAt)))
      .returning({ id: runs.id });
    return done.length > 0;
  }

  /** A finished run comes back (a /retry after it failed), unless the issue has another active run. */
  async reopenRun(runId: number): Promise<boolean> {
    try {
      const rows = await this.db
        .update(runs)
        .set({
          state: 'running',
          finishedAt: null,
          statusVersionWanted: sql`${runs.statusVersionWanted} + 1`,
          updatedAt: new Date(),
        })
        .where(eq(runs.id, runId))
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

  async runsNeedingStatus(): Promise<number[]> {
    const rows = await this.db
      .select({ id: runs.id })
      .from(runs)
      .where(sql`${runs.statusVersionRendered} < ${runs.statusVersionWanted}`);
    return rows.map((r) => r.id);
  }

  async tasksOf(runId: number, db: Db = this.db): Promise<TaskRow[]> {
    return db.select().from(tasks).where(eq(tasks.runId, runId)).orderBy(asc(tasks.planIndex));
  }

  async task(runId: number, taskKey: string, db: Db = this.db): Promise<TaskRow | undefined> {
    const [row] = await db
      .select()
      .from(tasks)
      .where(and(eq(tasks.runId, runId), eq(tasks.taskKey, taskKey)));
    return row;
  }

  async taskById(id: number, db: Db = this.db): Promise<TaskRow | undefined> {
    const [row] = await db.select().from(tasks).where(eq(tasks.id, id));
    return row;
  }

  async edgesOf(
    runId: number,
    db: Db = this.db,
  ): Promise<Array<{ taskKey: string; dependsOn: string }>> {
    return db
      .select({ taskKey: taskEdges.taskKey, dependsOn: taskEdges.dependsOn })
      .from(taskEdges)
      .where(eq(taskEdges.runId, runId));
  }

  /** A run's tasks in plan order, with each task's deps by key. */
  async graphOf(runId: number): Promise<RunGraph> {
    const [rows, edges] = await Promise.all([this.tasksOf(runId), this.edgesOf(runId)]);
    const depsOf = new Map<string, string[]>(rows.map((t) => [t.taskKey, []]));
    for (const e of edges) depsOf.get(e.taskKey)?.push(e.dependsOn);
    return { tasks: rows, depsOf, byKey: new Map(rows.map((t) => [t.taskKey, t])) };
  }

  /** Move a task only from one of the expected states; returns the updated row or undefined. */
  async transitionTask(
    taskId: number,
    from: readonly TaskState[],
    values: Partial<Omit<TaskRow, 'id' | 'runId'>> & { state?: TaskState },
    db: Db = this.db,
  ): Promise<TaskRow | undefined> {
    return this.updateTaskBumpingRun(taskId, from, { ...values, updatedAt: new Date() }, db);
  }

  /**
   * The task's PR goes into review: `approved` at once when the task's approval is for `headSha`
   * (given while the worker was finishing), else `in_review`. One statement, so an approval
   * recorded meanwhile is never lost between a read and the write.
   */
  async enterReview(
    taskId: number,
    from: readonly TaskState[],
    prNumber: number,
    headSha: string,
  ): Promise<TaskRow | undefined> {
    return this.updateTaskBumpingRun(taskId, from, {
      state: sql`case when ${tasks.approvedSha} = ${headSha} then 'approved'::task_state
                      else 'in_review'::task_state end`,
      prNumber,
      updatedAt: new Date(),
    });
  }

  /**
   * Update the task if it is in one of the `from` states and, if it was, ask for its run's
   * status comment to be rewritten: one statement (the run's update is a CTE of the task's).
   */
  private async updateTaskBumpingRun(
    taskId: number,
    from: readonly TaskState[],
    set: PgUpdateSetSource<typeof tasks>,
    db: Db = this.db,
  ): Promise<TaskRow | undefined> {
    const moved = db.$with('moved').as(
      db
        .update(tasks)
        .set(set)
        .where(and(eq(tasks.id, taskId), inArray(tasks.state, [...from])))
        .returning(),
    );
    const bumped = db.$with('bumped').as(
      db
        .update(runs)
        .set({ statusVersionWanted: sql`${runs.statusVersionWanted} + 1` })
        .where(inArray(runs.id, db.select({ runId: moved.runId }).from(moved)))
        .returning({ id: runs.id }),
    );
    const [row] = await db.with(moved, bumped).select().from(moved);
    return row;
  }

  async bumpStatus(runId: number, db: Db = this.db): Promise<void> {
    await db
      .update(runs)
      .set({ statusVersionWanted: sql`${runs.statusVersionWanted} + 1` })
      .where(eq(runs.id, runId));
  }

  /**
   * Incremental readiness: only the merged task's dependents are touched, each recounting its
   * unmerged deps, so doing it again (a crash came between the merge and this) changes nothing.
   */
  async decrementDependents(runId: number, mergedKey: string, db: Db = this.db): Promise<void> {
    await db.execute(sql`
      update ${tasks} as t set unmet_deps = (
          select count(*)::int from ${taskEdges} e
            join ${tasks} d on d.run_id = e.run_id and d.task_key = e.depends_on
           where e.run_id = t.run_id and e.task_key = t.task_key and d.state <> 'merged')
      where t.run_id = ${runId}
        and t.task_key in (select task_key from ${taskEdges} where run_id = ${runId} and depends_on = ${mergedKey})`);
  }

  async planAttempts(runId: number): Promise<PlanAttemptRow[]> {
    return this.db
      .select()
      .from(planAttempts)
      .where(eq(planAttempts.runId, runId))
      .orderBy(asc(planAttempts.attempt));
  }

  async createPlanAttempt(runId: number): Promise<PlanAttemptRow | undefined> {
    const [last] = await this.db
      .select({ attempt: planAttempts.attempt })
      .from(planAttempts)
      .where(eq(planAttempts.runId, runId))
      .orderBy(desc(planAttempts.attempt))
      .limit(1);
    const [row] = await this.db
      .insert(planAttempts)
      .values({ runId, attempt: (last?.attempt ?? 0) + 1 })
      .onConflictDoNothing()
      .returning();
    return row;
  }

  async updatePlanAttempt(
    id: number,
    values: Partial<Omit<PlanAttemptRow, 'id' | 'runId'>>,
  ): Promise<void> {
    await this.db.update(planAttempts).set(values).where(eq(planAttempts.id, id));
  }

  async planAttemptByWorkflowRun(workflowRunId: number): Promise<PlanAttemptRow | undefined> {
    const [row] = await this.db
      .select()
      .from(planAttempts)
      .where(eq(planAttempts.workflowRunId, workflowRunId));
    return row;
  }
}

export { ACTIVE_RUN_STATES };
