import { readMigrationFiles } from 'drizzle-orm/migrator';
import type pg from 'pg';
import { LOCK_KEYS } from './lock-keys.js';

/** drizzle's journal table: the same name and columns, so a database migrated before reads on. */
const JOURNAL_TABLE = '__drizzle_migrations';
/** drizzle's own schema for the journal, kept wherever the role may use it. */
const DRIZZLE_SCHEMA = 'drizzle';

interface JournalPlace {
  drizzleExists: boolean;
  /** CREATE on the database: the role may create a schema. */
  canCreateSchema: boolean;
  /** The first schema of the role's search_path that exists; null when none does. */
  currentSchema: string | null;
}

/**
 * Where the journal lives: drizzle's schema when it is there or the role may create it (so every
 * database migrated by drizzle's own migrator keeps its journal), else the role's own schema. A
 * role that owns only a schema (hosted Postgres, docs/running.md) has no CREATE on the database.
 */
export function journalSchema(place: JournalPlace): string {
  if (place.drizzleExists || place.canCreateSchema) return DRIZZLE_SCHEMA;
  if (place.currentSchema === null)
    throw new Error(
      'migrations: no schema to keep the journal in: the role may not create one (no CREATE on the database) and its search_path names no existing schema; grant it a schema of its own (docs/running.md, "The database role")',
    );
  return place.currentSchema;
}

/**
 * Applies the migrations of `folder` not yet in the journal, in one transaction on `client`.
 *
 * drizzle's migrator (drizzle-orm/node-postgres/migrator) always sends `CREATE SCHEMA IF NOT
 * EXISTS drizzle`, which Postgres refuses without CREATE on the database even when the schema
 * exists (drizzle-orm#2161, #3353; the fix, PR #4025, is open), and it takes no lock. This runs
 * drizzle's migration files (read by its public `readMigrationFiles`) the way its migrator does —
 * each file's statements, then its hash and time in the journal, newer files than the journal's
 * last — but creates a schema only when it has to, and everything, lock included, happens in one
 * transaction: it holds through a transaction-mode pooler, where a session lock would not.
 */
export async function applyMigrations(client: pg.ClientBase, folder: string): Promise<void> {
  const migrations = readMigrationFiles({ migrationsFolder: folder });
  await client.query('begin');
  try {
    // Processes starting together on an empty database apply each migration once.
    await client.query('select pg_advisory_xact_lock($1)', [LOCK_KEYS.migrations.toString()]);
    const {
      rows: [place],
    } = await client.query<JournalPlace>(
      `select to_regnamespace($1) is not null as "drizzleExists",
              has_database_privilege(current_database(), 'CREATE') as "canCreateSchema",
              current_schema() as "currentSchema"`,
      [DRIZZLE_SCHEMA],
    );
    const schema = journalSchema(place!);
    const journal = `${quote(schema)}.${quote(JOURNAL_TABLE)}`;
    if (!place!.drizzleExists && schema === DRIZZLE_SCHEMA)
      await client.query(`create schema if not exists ${quote(schema)}`);
    await client.query(
      `create table if not exists ${journal} (id serial primary key, hash text not null, created_at bigint)`,
    );
    const { rows } = await client.query<{ created_at: string }>(
      `select created_at from ${journal} order by created_at desc limit 1`,
    );
    const last = rows[0] ? Number(rows[0].created_at) : undefined;
    for (const migration of migrations) {
      if (last !== undefined && migration.folderMillis <= last) continue;
      for (const statement of migration.sql) await client.query(statement);
      await client.query(`insert into ${journal} (hash, created_at) values ($1, $2)`, [
        migration.hash,
        migration.folderMillis,
      ]);
    }
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  }
}

function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
