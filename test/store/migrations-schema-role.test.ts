import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDatabase } from '../../src/cli/doctor/database.js';
import { migrationsFolder, openDatabase } from '../../src/store/database.js';
import { createEmptyDatabase, TEST_SERVER_URL, type TestDatabase } from '../helpers/postgres.js';

/**
 * Hosted Postgres often gives the app a role with CREATE on the schema its tables go in (public)
 * and none on the database, so it may not create a schema (docs/running.md, "The database role").
 */
describe('migrations by a role that may create only in schema public', () => {
  const role = `ac_schema_role_${randomBytes(4).toString('hex')}`;
  let database: TestDatabase;
  let roleUrl: string;

  const asAdmin = async <T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    database = await createEmptyDatabase();
    await asAdmin(TEST_SERVER_URL, (c) => c.query(`create role ${role} login`));
    await asAdmin(database.url, async (c) => {
      await c.query(`revoke all on database ${database.name} from public`);
      await c.query(`grant connect, temporary on database ${database.name} to ${role}`);
      await c.query(`grant usage, create on schema public to ${role}`);
    });
    const url = new URL(database.url);
    url.username = role;
    roleUrl = url.toString();
  });

  afterAll(async () => {
    await database.drop();
    await asAdmin(TEST_SERVER_URL, (c) => c.query(`drop role if exists ${role}`));
  });

  it('has no CREATE on the database: drizzle’s own migrator is refused', async () => {
    await asAdmin(roleUrl, async (c) => {
      const { rows } = await c.query<{ can: boolean }>(
        "select has_database_privilege(current_database(), 'CREATE') as can",
      );
      expect(rows).toEqual([{ can: false }]);
      await expect(
        migrate(drizzle(c), { migrationsFolder: migrationsFolder() }),
      ).rejects.toMatchObject({
        message: expect.stringContaining('CREATE SCHEMA IF NOT EXISTS "drizzle"'),
        cause: { message: expect.stringMatching(/permission denied for database/) },
      });
    });
  });

  it('is what doctor reports of the role', async () => {
    const findings = await checkDatabase({ databaseUrl: roleUrl });
    expect(findings[1]).toEqual({
      status: 'ok',
      subject: 'database role',
      detail: `${role} may create in schema public; the migration journal is public.__drizzle_migrations (no CREATE on the database, none needed)`,
    });
    await asAdmin(database.url, (c) => c.query(`revoke create on schema public from ${role}`));
    try {
      expect((await checkDatabase({ databaseUrl: roleUrl }))[1]).toMatchObject({
        status: 'problem',
        detail: `${role} may not create in schema public, where the App's tables are: migrations will fail`,
      });
    } finally {
      await asAdmin(database.url, (c) => c.query(`grant create on schema public to ${role}`));
    }
  });

  it('applies every migration, keeps the journal in public, and starts again on it', async () => {
    const first = await openDatabase({ databaseUrl: roleUrl, poolSize: 2 });
    await first.ping();
    await first.close();
    // A second start reads the journal and applies nothing (it would fail on the first CREATE).
    const second = await openDatabase({ databaseUrl: roleUrl, poolSize: 2 });
    await second.close();

    await asAdmin(database.url, async (c) => {
      const journal = await c.query<{ owner: string }>(
        `select tableowner as owner from pg_tables where schemaname = 'public' and tablename = '__drizzle_migrations'`,
      );
      expect(journal.rows).toEqual([{ owner: role }]);
      const applied = await c.query('select hash from public.__drizzle_migrations');
      const files = readdirSync(migrationsFolder()).filter((f) => f.endsWith('.sql'));
      expect(applied.rowCount).toBe(files.length);
      const schemas = await c.query(`select 1 from pg_namespace where nspname = 'drizzle'`);
      expect(schemas.rowCount).toBe(0);
    });
  });
});
