import { and, asc, eq, gt, isNotNull, isNull, ne, notInArray, notLike, sql } from 'drizzle-orm';
import { commands, repositories } from '../../db/schema.js';
import {
  mayReplyToRefusal,
  NOT_ANSWERED,
  REFUSAL_REPLY_WINDOW_MS,
  type RefusalRepliesSent,
} from '../core/commands/index.js';
import { WRITE_ROLES } from '../core/roles.js';
import type { AppDatabase } from './database.js';
import { LOCK_KEYS } from './lock-keys.js';
import type { Db } from './transaction.js';

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
   * A refusal of someone below write (a command, a label, a close), recorded done with whether it
   * is answered: when `answerable`, core's mayReplyToRefusal on the replies the log shows in the
   * window before `createdAt`. Counted and recorded in one transaction under the installation's
   * advisory lock: the deliveries of its repositories are handled side by side
   * (DeliveryStore.claim), and two that each counted the same replies would both answer. Once per
   * (comment, ordinal): a row recorded before, by any delivery, is returned with the decision it
   * holds (none for a claim not carried out yet) and `recordedBefore`, which tells a handling that
   * may have answered it already. `reason` may depend on the decision: a close's says whether the
   * PR is opened again, which only an answered close is.
   */
  async recordRefusal(
    values: Omit<
      typeof commands.$inferInsert,
      'accepted' | 'outcome' | 'doneAt' | 'answeredAt' | 'createdAt'
    > & { createdAt: Date },
    refusal: { reason: string | ((answered: boolean) => string); answerable: boolean },
  ): Promise<{ row: CommandRow; answered: boolean; recordedBefore: boolean }> {
    return this.db.transaction(async (tx) => {
      const [repository] = await tx
        .select({ installationId: repositories.installationId })
        .from(repositories)
        .where(eq(repositories.id, values.repositoryId));
      // Without its installation the budget has no lock to be counted under: the repository is
      // recorded before any handler runs (src/handlers/repository-first.ts).
      if (!repository) throw new Error(`repository ${values.repositoryId} is not recorded`);
      const key = LOCK_KEYS.installationRefusals(repository.installationId).toString();
      await tx.execute(sql`select pg_advisory_xact_lock(${key}::bigint)`);
      const [found] = await tx
        .select()
        .from(commands)
        .where(and(eq(commands.commentId, values.commentId), eq(commands.ordinal, values.ordinal)));
      if (found) return { row: found, answered: isAnsweredRefusal(found), recordedBefore: true };
      const answered =
        refusal.answerable &&
        mayReplyToRefusal(
          await repliesSince(tx, {
            installationId: repository.installationId,
            repositoryId: values.repositoryId,
            issueNumber: values.issueNumber,
            actor: values.actorLogin,
            since: new Date(values.createdAt.getTime() - REFUSAL_REPLY_WINDOW_MS),
            exceptCommentId: values.commentId,
          }),
        );
      const [row] = await tx
        .insert(commands)
        .values({
          ...values,
          accepted: false,
          outcome: `${typeof refusal.reason === 'string' ? refusal.reason : refusal.reason(answered)}${answered ? '' : NOT_ANSWERED}`,
          doneAt: values.createdAt,
        })
        .returning();
      return { row: row!, answered, recordedBefore: false };
    });
  }

  /**
   * The reason of an answered refusal, known only after it was recorded (a close's: whether GitHub
   * let the PR be opened again). One left unanswered keeps its own, which no reply gives.
   */
  async rewordAnsweredRefusal(id: number, reason: string): Promise<void> {
    await this.db
      .update(commands)
      .set({ outcome: reason })
      .where(
        and(
          eq(commands.id, id),
          eq(commands.accepted, false),
          notLike(sql`coalesce(${commands.outcome}, '')`, `%${NOT_ANSWERED}`),
        ),
      );
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

interface RepliesWhere {
  installationId: number;
  repositoryId: number;
  issueNumber: number;
  actor: string;
  since: Date;
  exceptCommentId: number;
}

/**
 * The refusal replies written since `since` (core's RefusalRepliesSent): to people below write,
 * in installation `installationId`, for any recorded refusal other than `exceptCommentId`'s
 * (the one being decided: a redelivery of it finds its own row).
 */
async function repliesSince(db: Db, where: RepliesWhere): Promise<RefusalRepliesSent> {
  const byActor = sql`lower(${commands.actorLogin}) = lower(${where.actor})`;
  const [row] = await db
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
        eq(repositories.installationId, where.installationId),
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

/** A refusal recorded as answered: done, refused, and not marked as left unanswered. */
function isAnsweredRefusal(row: CommandRow): boolean {
  return row.doneAt !== null && !row.accepted && !(row.outcome ?? '').endsWith(NOT_ANSWERED);
}
