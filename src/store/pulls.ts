import { and, eq, isNull, or, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { pullRequests, runs, tasks } from '../../db/schema.js';
import type { AppDatabase } from './database.js';
import { placeholdersFor, PreparedStatements } from './prepared.js';
import type { Db } from './transaction.js';

export type PullRow = typeof pullRequests.$inferSelect;

/** Agent pull requests as GitHub last showed them, and what the coordinator did to each. */
export class PullStore {
  private readonly prepared: PreparedStatements;

  constructor(private readonly db: AppDatabase) {
    this.prepared = new PreparedStatements(db);
  }

  /**
   * The PR as GitHub showed it. What the coordinator did to it (its pending branch update, its
   * order check) is left as it was, and comes back with the row.
   */
  async upsert(
    values: typeof pullRequests.$inferInsert,
    /**
     * The PR as a delivery carried it, not as GitHub shows it now: it makes a new row, and
     * leaves the head, base, state and merge of a row already recorded (from a read, or a later
     * delivery) as they were.
     */
    options: { asDelivered?: boolean } = {},
  ): Promise<PullRow> {
    const given = { ...values, updatedAt: new Date() };
    const { shape, placeholders } = placeholdersFor(given);
    const keep = options.asDelivered ? RECORDED_STATE : [];
    const [row] = await this.prepared
      .get(`pull_upsert_${shape}${options.asDelivered ? '_delivered' : ''}`, (db) =>
        pullUpsert(db, placeholders, keep).returning(),
      )
      .execute(given);
    if (!row) throw new Error(`pull request #${values.number} not stored`);
    return row;
  }

  async update(id: number, values: Partial<Omit<PullRow, 'id'>>): Promise<void> {
    await this.prepared.updateById('pull_update', pullRequests, pullRequests.id, id, {
      ...values,
      updatedAt: new Date(),
    });
  }

  /**
   * The agent configuration files the PR changes, as its body now says; the run's status comment
   * is due again in the same statement. False when the row already said so.
   */
  async recordAgentConfig(id: number, runId: number, paths: string[]): Promise<boolean> {
    return this.changeShown(
      id,
      runId,
      { agentConfigChanged: paths },
      sql`${pullRequests.agentConfigChanged} is distinct from ${JSON.stringify(paths)}::jsonb`,
    );
  }

  /**
   * The coordinator is about to merge the base into head `from` (docs/lifecycle.md step 9): the
   * update is out, its answer not recorded yet (`updated_by_coordinator_to` null). Written before
   * GitHub is asked, so that the update's push, whose delivery may be handled before the answer is
   * recorded, is never taken for new work nor for the update before it is (core's decidePush).
   */
  async recordUpdateAsked(id: number, from: string): Promise<void> {
    await this.update(id, { updatedByCoordinatorFrom: from, updatedByCoordinatorTo: null });
  }

  /**
   * GitHub's answer to the update asked from `from`: the merge commit it made (`to`), or none (null:
   * nothing merged, refused, a merge of another head, or an answer lost). Written only while that
   * update is still the one out: a push of new work handled meanwhile spent it (clearUpdate), and
   * its merge commit then carries no approval. False when it was spent.
   */
  async recordUpdateAnswer(id: number, from: string, to: string | null): Promise<boolean> {
    const rows = await this.db
      .update(pullRequests)
      .set({
        updatedByCoordinatorFrom: to === null ? null : from,
        updatedByCoordinatorTo: to,
        updatedAt: new Date(),
      })
      .where(
        and(
          eq(pullRequests.id, id),
          eq(pullRequests.updatedByCoordinatorFrom, from),
          isNull(pullRequests.updatedByCoordinatorTo),
        ),
      )
      .returning({ id: pullRequests.id });
    return rows.length > 0;
  }

  /** The update from `from` is spent (new work replaced its head): unless another was asked since. */
  async clearUpdate(id: number, from: string): Promise<void> {
    await this.db
      .update(pullRequests)
      .set({ updatedByCoordinatorFrom: null, updatedByCoordinatorTo: null, updatedAt: new Date() })
      .where(and(eq(pullRequests.id, id), eq(pullRequests.updatedByCoordinatorFrom, from)));
  }

  /**
   * GitHub refused the App's update of the branch at head `sha` with `message` (a 403): recorded once
   * per head, the run's status comment due again in the same statement. False when it was
   * recorded for that head already.
   */
  async recordUpdateRefusal(
    id: number,
    runId: number,
    sha: string,
    message: string,
  ): Promise<boolean> {
    return this.changeShown(
      id,
      runId,
      { updateRefusedSha: sha, updateRefusedMessage: message },
      sql`${pullRequests.updateRefusedSha} is distinct from ${sha}`,
    );
  }

  /**
   * Writes `values` when `differs` holds (the row does not say so yet), and makes the run's
   * status comment, which shows them, due again in the same statement.
   */
  private async changeShown(
    id: number,
    runId: number,
    values: Partial<Omit<PullRow, 'id'>>,
    differs: SQL,
  ): Promise<boolean> {
    const changed = this.db.$with('changed').as(
      this.db
        .update(pullRequests)
        .set({ ...values, updatedAt: new Date() })
        .where(and(eq(pullRequests.id, id), differs))
        .returning({ id: pullRequests.id }),
    );
    const rows = await this.db
      .with(changed)
      .update(runs)
      .set({ statusVersionWanted: sql`${runs.statusVersionWanted} + 1` })
      .where(and(eq(runs.id, runId), sql`exists (select 1 from ${changed})`))
      .returning({ id: runs.id });
    return rows.length > 0;
  }

  /**
   * New work reached the PR at `at` (a push's `pull_request.updated_at`): kept when later than
   * what is recorded, whichever of two pushes' deliveries comes first. Returns the latest.
   */
  async recordWorkPushed(id: number, at: Date): Promise<Date | null> {
    const [row] = await this.db
      .update(pullRequests)
      .set({
        workPushedAt: sql`greatest(${pullRequests.workPushedAt}, ${at})`,
        updatedAt: new Date(),
      })
      .where(eq(pullRequests.id, id))
      .returning({ workPushedAt: pullRequests.workPushedAt });
    return row?.workPushedAt ?? null;
  }

  /**
   * An `opened` or `synchronize` delivery carried `head`, dated `at` (its
   * `pull_request.updated_at`): recorded unless a later-dated one was recorded already, whichever
   * of two deliveries comes first. In the same second the one handled last wins: GitHub dates to
   * the second, and a wrong pick only makes a plain `/approve` wait. Returns the head recorded.
   */
  async recordDeliveredHead(id: number, head: string, at: Date): Promise<string | null> {
    const later = sql`${pullRequests.deliveredHeadAt} is null or ${pullRequests.deliveredHeadAt} <= ${at}`;
    const [row] = await this.db
      .update(pullRequests)
      .set({
        deliveredHead: sql`case when ${later} then ${head} else ${pullRequests.deliveredHead} end`,
        deliveredHeadAt: sql`case when ${later} then ${at} else ${pullRequests.deliveredHeadAt} end`,
        updatedAt: new Date(),
      })
      .where(eq(pullRequests.id, id))
      .returning({ deliveredHead: pullRequests.deliveredHead });
    return row?.deliveredHead ?? null;
  }

  /**
   * Claims a "changes requested" review for a send-back: true once per review id, whichever of
   * two deliveries of it (a redelivery, a duplicate) gets here first.
   */
  async claimReview(id: number, reviewId: number): Promise<boolean> {
    const rows = await this.db
      .update(pullRequests)
      .set({
        sentBackForReviews: sql`${pullRequests.sentBackForReviews} || ${JSON.stringify([reviewId])}::jsonb`,
        updatedAt: new Date(),
      })
      .where(
        and(
          eq(pullRequests.id, id),
          sql`not ${pullRequests.sentBackForReviews} @> ${JSON.stringify([reviewId])}::jsonb`,
        ),
      )
      .returning({ id: pullRequests.id });
    return rows.length > 0;
  }

  /**
   * Counts one re-run of the failing checks of head `sha`, while fewer than `limit` were
   * counted for it (a new head starts again at none): false when there is none left, or a
   * concurrent decision took the last one.
   */
  async claimChecksRerun(id: number, sha: string, limit: number, names: string): Promise<boolean> {
    const sameHead = sql`${pullRequests.checksRerunSha} is not distinct from ${sha}`;
    const rows = await this.db
      .update(pullRequests)
      .set({
        checksRerunSha: sha,
        checksReruns: sql`case when ${sameHead} then ${pullRequests.checksReruns} + 1 else 1 end`,
        checksRerunning: names,
        updatedAt: new Date(),
      })
      .where(
        and(
          eq(pullRequests.id, id),
          sql`(not ${sameHead} or ${pullRequests.checksReruns} < ${limit}) and ${limit} > 0`,
        ),
      )
      .returning({ id: pullRequests.id });
    return rows.length > 0;
  }

  /**
   * Records PR `number` as merged if its task is merged already: the coordinator's own merge,
   * seen again in the PR's `closed` event. True if it was; the merge's follow-ups are done then
   * (the dependents were freed with the task's merge, see RunStore.markMerged).
   */
  async recordMergedOfMergedTask(
    repositoryId: number,
    number: number,
    headSha: string,
  ): Promise<boolean> {
    const rows = await this.prepared
      .get('pull_merged_of_merged_task', (db) =>
        db
          .update(pullRequests)
          .set({
            state: 'closed',
            merged: true,
            headSha: sql.placeholder('headSha'),
            updatedAt: sql.placeholder('updatedAt'),
          } as never)
          .from(tasks)
          .where(
            and(
              eq(pullRequests.repositoryId, sql.placeholder('repositoryId')),
              eq(pullRequests.number, sql.placeholder('number')),
              eq(tasks.id, pullRequests.taskId),
              eq(tasks.state, 'merged'),
            ),
          )
          .returning({ id: pullRequests.id }),
      )
      .execute({ repositoryId, number, headSha, updatedAt: new Date() });
    return rows.length > 0;
  }

  /**
   * Agent PRs whose recorded head is `sha` (check events name a SHA), and those numbered `named`
   * (the PRs a check event names, whatever head is recorded for them): one statement.
   */
  async withHead(repositoryId: number, sha: string, named: readonly number[]) {
    return this.prepared
      .get('pulls_with_head_or_number', (db) =>
        withTaskAndRun(db).where(
          and(
            eq(pullRequests.repositoryId, sql.placeholder('repositoryId')),
            or(
              eq(pullRequests.headSha, sql.placeholder('sha')),
              sql`${pullRequests.number} = any(${sql.placeholder('named')}::int[])`,
            ),
          ),
        ),
      )
      .execute({ repositoryId, sha, named: [...named] });
  }

  /** The agent PRs numbered `numbers`, with their tasks and runs: one statement. */
  async numbered(repositoryId: number, numbers: readonly number[]) {
    return this.prepared
      .get('pulls_numbered', (db) =>
        withTaskAndRun(db).where(
          and(
            eq(pullRequests.repositoryId, sql.placeholder('repositoryId')),
            sql`${pullRequests.number} = any(${sql.placeholder('numbers')}::int[])`,
          ),
        ),
      )
      .execute({ repositoryId, numbers: [...numbers] });
  }

  /** The row of PR `number`, if the coordinator has seen it. */
  async byNumber(repositoryId: number, number: number): Promise<PullRow | undefined> {
    const [row] = await this.db
      .select()
      .from(pullRequests)
      .where(and(eq(pullRequests.repositoryId, repositoryId), eq(pullRequests.number, number)));
    return row;
  }

  /** The agent PR `number` with its task and run, if it is one. */
  async withTask(repositoryId: number, number: number) {
    const [row] = await this.prepared
      .get('pull_with_task', (db) =>
        withTaskAndRun(db).where(
          and(
            eq(pullRequests.repositoryId, sql.placeholder('repositoryId')),
            eq(pullRequests.number, sql.placeholder('number')),
          ),
        ),
      )
      .execute({ repositoryId, number });
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

/**
 * The upsert of a PR row with these placeholders (see placeholdersFor): a statement of its own,
 * or a CTE of one that writes the task too (RunStore.completeIntoReview).
 */
export function pullUpsert(
  db: Db,
  placeholders: Record<string, Placeholder | SQL>,
  keep: readonly string[] = [],
) {
  return db
    .insert(pullRequests)
    .values(placeholders as never)
    .onConflictDoUpdate({
      target: [pullRequests.repositoryId, pullRequests.number],
      set: Object.fromEntries(
        UPSERTED.filter((k) => k in placeholders && !keep.includes(k)).map((k) => [
          k,
          placeholders[k],
        ]),
      ),
    });
}

/** What a delivery's payload never overwrites: it may be older than the row (upsert). */
const RECORDED_STATE: readonly string[] = ['headSha', 'baseRef', 'state', 'merged'];

/** What a repeat sighting of a PR overwrites: GitHub's side of the row. */
const UPSERTED = [
  'taskId',
  // Only where the caller read the body (a completed attempt's PR): otherwise left as it was.
  'agentConfigChanged',
  'nodeId',
  'headRef',
  'headSha',
  'baseRef',
  'state',
  'merged',
  'updatedAt',
] as const;

/** Agent PRs joined with their task and run. */
function withTaskAndRun(db: AppDatabase) {
  return db
    .select({ pull: pullRequests, task: tasks, run: runs })
    .from(pullRequests)
    .innerJoin(tasks, eq(tasks.id, pullRequests.taskId))
    .innerJoin(runs, eq(runs.id, tasks.runId));
}
