import { and, asc, eq, gt, ne, notInArray, notLike, sql } from 'drizzle-orm';
import { commands } from '../../db/schema.js';
import type { AppDatabase } from './database.js';

export type CommandRow = typeof commands.$inferSelect;

/** Ends the outcome of a refusal recorded but not answered (the reply budget was spent). */
export const NOT_ANSWERED = ' [not answered: one reply per person and issue an hour]';
const WRITE_PERMISSIONS = ['admin', 'maintain', 'write'];

/** Every command seen, accepted or not: who did what, where, when. */
export class CommandStore {
  constructor(private readonly db: AppDatabase) {}

  /** Idempotent per (comment, ordinal): a redelivered comment is not recorded twice. */
  async record(values: typeof commands.$inferInsert): Promise<boolean> {
    const rows = await this.db
      .insert(commands)
      .values(values)
      .onConflictDoNothing()
      .returning({ id: commands.id });
    return rows.length > 0;
  }

  /**
   * Whether `actor`, below write, got a refusal reply on this issue since `since`, for any
   * recorded refusal other than `exceptCommentId`'s (the one being decided: a redelivery of it
   * finds its own row).
   */
  async refusalAnsweredSince(where: {
    repositoryId: number;
    issueNumber: number;
    actor: string;
    since: Date;
    exceptCommentId: number;
  }): Promise<boolean> {
    const [row] = await this.db
      .select({ id: commands.id })
      .from(commands)
      .where(
        and(
          eq(commands.repositoryId, where.repositoryId),
          eq(commands.issueNumber, where.issueNumber),
          sql`lower(${commands.actorLogin}) = lower(${where.actor})`,
          eq(commands.accepted, false),
          notInArray(sql`coalesce(${commands.permission}, 'none')`, WRITE_PERMISSIONS),
          notLike(sql`coalesce(${commands.outcome}, '')`, `%${NOT_ANSWERED}`),
          gt(commands.createdAt, where.since),
          ne(commands.commentId, where.exceptCommentId),
        ),
      )
      .limit(1);
    return row !== undefined;
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
