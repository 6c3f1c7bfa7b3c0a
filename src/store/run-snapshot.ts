import { and, desc, eq, sql } from 'drizzle-orm';
import { attempts, pullRequests, repositories, runs, taskEdges, tasks } from '../../db/schema.js';
import type { AttemptRow } from './attempts.js';
import type { AppDatabase } from './database.js';
import type { PullRow } from './pulls.js';
import type { RepositoryRow } from './repositories.js';
import { graphTask, type Db, type RunRow, type TaskRow } from './runs.js';

/** A run's plan tasks with their deps and PR rows: one statement, whatever the run's size. */
export interface TasksWithPulls {
  /** Plan order. */
  tasks: TaskRow[];
  byKey: ReadonlyMap<string, TaskRow>;
  byId: ReadonlyMap<number, TaskRow>;
  /** Task key → the keys it depends on (an empty list for a root). */
  depsOf: ReadonlyMap<string, readonly string[]>;
  /** Task id → the row of the PR the task points at (`tasks.pr_number`), when recorded. */
  pullOf: ReadonlyMap<number, PullRow>;
}

/**
 * Everything the engine decides on for one run, read once per delivery: the run and its
 * repository, the tasks in plan order with their deps, each task's latest attempt and the row
 * of the PR it points at. Three statements, whatever the run's size.
 */
export interface RunSnapshot extends TasksWithPulls {
  run: RunRow;
  repository: RepositoryRow;
  /** Task id → its newest attempt, for tasks that have one. */
  latestAttempt: ReadonlyMap<number, AttemptRow>;
}

export class RunSnapshotStore {
  constructor(private readonly db: AppDatabase) {}

  async load(runId: number, db: Db = this.db): Promise<RunSnapshot | undefined> {
    const [head, taskRows, latest] = await Promise.all([
      db
        .select({ run: runs, repository: repositories })
        .from(runs)
        .innerJoin(repositories, eq(repositories.id, runs.repositoryId))
        .where(eq(runs.id, runId)),
      this.tasksWithPulls(runId, db),
      db
        .selectDistinctOn([attempts.taskId], { attempt: attempts })
        .from(attempts)
        .innerJoin(tasks, eq(tasks.id, attempts.taskId))
        .where(eq(tasks.runId, runId))
        .orderBy(attempts.taskId, desc(attempts.attempt)),
    ]);
    const first = head[0];
    if (!first) return undefined;
    return {
      run: first.run,
      repository: first.repository,
      ...taskRows,
      latestAttempt: new Map(latest.map((r) => [r.attempt.taskId, r.attempt])),
    };
  }

  /** The run's plan tasks in plan order with their deps and the row of the PR each points at. */
  async tasksWithPulls(runId: number, db: Db = this.db): Promise<TasksWithPulls> {
    const rows = await db
      .select({
        task: tasks,
        pull: pullRequests,
        deps: sql<
          string[]
        >`coalesce(array_agg(${taskEdges.dependsOn} order by ${taskEdges.dependsOn}) filter (where ${taskEdges.dependsOn} is not null), '{}')`,
      })
      .from(tasks)
      .leftJoin(
        taskEdges,
        and(eq(taskEdges.runId, tasks.runId), eq(taskEdges.taskKey, tasks.taskKey)),
      )
      .leftJoin(
        pullRequests,
        and(eq(pullRequests.taskId, tasks.id), eq(pullRequests.number, tasks.prNumber)),
      )
      .where(and(eq(tasks.runId, runId), graphTask))
      .groupBy(tasks.id, pullRequests.id)
      .orderBy(tasks.planIndex);
    const ordered = rows.map((r) => r.task);
    const pullOf = new Map<number, PullRow>();
    for (const row of rows) if (row.pull) pullOf.set(row.task.id, row.pull);
    return {
      tasks: ordered,
      byKey: new Map(ordered.map((t) => [t.taskKey, t])),
      byId: new Map(ordered.map((t) => [t.id, t])),
      depsOf: new Map(rows.map((r) => [r.task.taskKey, r.deps])),
      pullOf,
    };
  }
}
