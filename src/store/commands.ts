import { and, asc, eq, gt, isNotNull, isNull, ne, notInArray, notLike, sql } from 'drizzle-orm';
import { commands, repositories } from '../../db/schema.js';
import { NOT_ANSWERED, type RefusalRepliesSent } from '../core/commands/index.js';
import { WRITE_ROLES } from '../core/roles.js';
import type { AppDatabase } from './database.js';

export type CommandRow = typeof commands.$inferSelect;

/** Every command seen, accepted or not: who did what, where, when. */
export class CommandStore {
  constructor(private readonly db: AppDatabase) {}

  /**
   * Claims command `ordinal` of a comment for one delivery (docs/commands.md, "Each comment
   * once"): the row is written once per (comment, ordinal), whichever delivery of the comment
   * comes first, with no outcome yet. Returns the row as it is now: this delivery's claim, or
   * the one found.
   */
  async claim(
    values: Omit<typeof commands.$inferInsert, 'accepted' | 'outcome' | 'doneAt' | 'answeredAt'> & {
      deliveryId: string;
    },
  ): Promise<CommandRow> {
    const [claimed] = await this.db
      .insert(commands)
      .values({ ...values, accepted: false, outcome: null })
      .onConflictDoNothing()
      .returning();
    if (claimed) return claimed;
    const [found] = await this.db
      .select()
      .from(commands)
      .where(and(eq(commands.commentId, values.commentId), eq(commands.ordinal, values.ordinal)));
    if (!found)
      throw new Error(`command ${values.commentId}/${values.ordinal} neither claimed nor found`);
    return found;
  }

  /** The claimed command was carried out (or refused): its outcome, once. */
  async finish(id: number, done: { accepted: boolean; outcome: string }): Promise<void> {
    await this.db
      .update(commands)
      .set({ ...done, doneAt: new Date() })
      .where(and(eq(commands.id, id), isNull(commands.doneAt)));
  }

  /** The comment got its reaction or reply for what this delivery carried out. */
  async answered(commentId: number, deliveryId: string): Promise<void> {
    await this.db
      .update(commands)
      .set({ answeredAt: new Date() })
      .where(
        and(
          eq(commands.commentId, commentId),
          eq(commands.deliveryId, deliveryId),
          isNull(commands.answeredAt),
        ),
      );
  }

  /**
   * Something refused and done at once (a label from a person below write): idempotent per
   * (comment, ordinal), so a redelivery is not recorded twice.
   */
  async record(values: typeof commands.$inferInsert): Promise<boolean> {
    const rows = await this.db
      .insert(commands)
      .values({ doneAt: values.createdAt ?? new Date(), ...values })
      .onConflictDoNothing()
      .returning({ id: commands.id });
    return rows.length > 0;
  }

  /**
   * The refusal replies written since `since` (core's RefusalRepliesSent): to people below write,
   * in the installation of `repositoryId`, for any recorded refusal other than
   * `exceptCommentId`'s (the one being decided: a redelivery of it finds its own row).
   */
  async refusalRepliesSince(where: {
    repositoryId: number;
    issueNumber: number;
    actor: string;
    since: Date;
    exceptCommentId: number;
  }): Promise<RefusalRepliesSent> {
    const byActor = sql`lower(${commands.actorLogin}) = lower(${where.actor})`;
    const installation = this.db
      .select({ id: repositories.installationId })
      .from(repositories)
      .where(eq(repositories.id, where.repositoryId));
    const [row] = await this.db
      .select({
        toPersonOnIssue: sql<number>`count(*) filter (where ${and(
          eq(commands.repositoryId, where.repositoryId),
          eq(commands.issueNumber, where.issueNumber),
          byActor,
        )})`.mapWith(Number),
        toPerson: sql<number>`count(*) filter (where ${byActor})`.mapWith(Number),
        inInstallation: sql<number>`count(*)`.mapWith(Number),
      })
      .from(commands)
      .innerJoin(repositories, eq(repositories.id, commands.repositoryId))
      .where(
        and(
          eq(repositories.installationId, installation),
          eq(commands.accepted, false),
          isNotNull(commands.doneAt),
          // Core's rule of who may steer the coordinator (src/core/roles.ts).
          notInArray(sql`coalesce(${commands.permission}, 'none')`, [...WRITE_ROLES]),
          notLike(sql`coalesce(${commands.outcome}, '')`, `%${NOT_ANSWERED}`),
          gt(commands.createdAt, where.since),
          ne(commands.commentId, where.exceptCommentId),
        ),
      );
    return row ?? { toPersonOnIssue: 0, toPerson: 0, inInstallation: 0 };
  }

  async ofRun(runId: number): Promise<CommandRow[]> {
    return this.db
      .select()
      .from(commands)
      .where(eq(commands.runId, runId))
      .orderBy(asc(commands.id));
  }

  async ofRepository(repositoryId: number): Promise<CommandRow[]> {
    return this.db
      .select()
      .from(commands)
      .where(eq(commands.repositoryId, repositoryId))
      .orderBy(asc(commands.id));
  }
}
