import { asc, eq } from 'drizzle-orm';
import { commands } from '../../db/schema.js';
import type { AppDatabase } from './database.js';

export type CommandRow = typeof commands.$inferSelect;

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
