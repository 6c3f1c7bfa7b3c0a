import { and, asc, eq, sql } from 'drizzle-orm';
import { pullRequests, runs, tasks } from '../../db/schema.js';
import type { AppDatabase } from './database.js';

export type PullRow = typeof pullRequests.$inferSelect;

/** Agent pull requests as GitHub last showed them, and what the coordinator did to each. */
export class PullStore {
  constructor(private readonly db: AppDatabase) {}

  async upsert(values: typeof pullRequests.$inferInsert): Promise<PullRow> {
    const [row] = await this.db
      .insert(pullRequests)
      .values(values)
      .onConflictDoUpdate({
        target: [pullRequests.repositoryId, pullRequests.number],
        set: {
          taskId: values.taskId,
          nodeId: values.nodeId,
          headRef: values.headRef,
          headSha: values.headSha,
          baseRef: values.baseRef,
          state: values.state,
          merged: values.merged,
          updatedAt: new Date(),
        },
      })
      .returning();
    if (!row) throw new Error(`pull request #${values.number} not stored`);
    return row;
  }

  async update(id: number, values: Partial<Omit<PullRow, 'id'>>): Promise<void> {
    await this.db
      .update(pullRequests)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(pullRequests.id, id));
  }

  /** Open agent PRs whose head is `sha` (check events name a SHA, not a PR). */
  async withHead(repositoryId: number, sha: string) {
    return this.db
      .select({ pull: pullRequests, task: tasks, run: runs })
      .from(pullRequests)
      .innerJoin(tasks, eq(tasks.id, pullRequests.taskId))
      .innerJoin(runs, eq(runs.id, tasks.runId))
      .where(and(eq(pullRequests.repositoryId, repositoryId), eq(pullRequests.headSha, sha)));
  }

  /** Agent PRs in the merge queue of a repository, oldest enqueue first. */
  async queued(repositoryId: number) {
    return this.db
      .select({ pull: pullRequests, task: tasks, run: runs })
      .from(pullRequests)
      .innerJoin(tasks, eq(tasks.id, pullRequests.taskId))
      .innerJoin(runs, eq(runs.id, tasks.runId))
      .where(
        and(
          eq(pullRequests.repositoryId, repositoryId),
          sql`${pullRequests.enqueuedAt} is not null`,
        ),
      )
      .orderBy(asc(pullRequests.enqueuedAt));
  }

  /** The agent PR `number` with its task and run, if it is one. */
  async withTask(repositoryId: number, number: number) {
    const [row] = await this.db
      .select({ pull: pullRequests, task: tasks, run: runs })
      .from(pullRequests)
      .innerJoin(tasks, eq(tasks.id, pullRequests.taskId))
      .innerJoin(runs, eq(runs.id, tasks.runId))
      .where(and(eq(pullRequests.repositoryId, repositoryId), eq(pullRequests.number, number)));
    return row;
  }

  async ofRun(runId: number): Promise<PullRow[]> {
    const rows = await this.db
      .select({ pull: pullRequests })
      .from(pullRequests)
      .innerJoin(tasks, eq(tasks.id, pullRequests.taskId))
      .where(eq(tasks.runId, runId));
    return rows.map((r) => r.pull);
  }
}
