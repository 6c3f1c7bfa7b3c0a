import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { checkDatabase } from '../../src/cli/doctor/database.js';
import { startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';

/** `doctor`'s database lines, against the server and PgBouncer in transaction mode in front of it. */
describe('doctor: the database connection', () => {
  let bouncer: PgBouncer;
  let database: TestDatabase;
  let pooledUrl: string;

  beforeAll(async () => {
    bouncer = await startPgBouncer();
    database = await createTestDatabase(inject('templateDatabase'));
    pooledUrl = bouncer.url(database.name);
  });
  afterAll(async () => {
    await database?.drop();
    await bouncer?.stop();
  });

  it('says PGlite without DATABASE_URL', async () => {
    expect(await checkDatabase({})).toEqual([
      expect.objectContaining({ status: 'ok', detail: expect.stringContaining('embedded PGlite') }),
    ]);
  });

  it('says direct, and where the journal is, for a URL that keeps its session', async () => {
    expect(await checkDatabase({ databaseUrl: database.url })).toEqual([
      expect.objectContaining({
        status: 'ok',
        detail: expect.stringContaining('DATABASE_URL is a session of its own'),
      }),
      expect.objectContaining({
        status: 'ok',
        subject: 'database role',
        detail:
          'postgres may create in schema public; the migration journal is drizzle.__drizzle_migrations',
      }),
    ]);
  });

  it('fails a pooled DATABASE_URL without DIRECT_DATABASE_URL, saying what to set', async () => {
    const [finding, ...rest] = await checkDatabase({ databaseUrl: pooledUrl });
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      status: 'problem',
      detail:
        'DATABASE_URL refuses session settings at connect (unsupported startup parameter: options): it goes through a pooler, and DIRECT_DATABASE_URL is unset, so the App will not start',
      fix: expect.stringContaining('set DIRECT_DATABASE_URL'),
    });
  });

  it('fails a pooler that drops the settings sent at connect, without DIRECT_DATABASE_URL', async () => {
    const dropping = await startPgBouncer({ ignoreOptions: true });
    try {
      const [finding] = await checkDatabase({ databaseUrl: dropping.url(database.name) });
      expect(finding).toMatchObject({
        status: 'problem',
        detail:
          'DATABASE_URL drops session settings sent at connect: it goes through a pooler, and DIRECT_DATABASE_URL is unset, so the App will not start',
      });
    } finally {
      await dropping.stop();
    }
  });

  it('says pooled, and what runs where, with DIRECT_DATABASE_URL', async () => {
    const [finding] = await checkDatabase({
      databaseUrl: pooledUrl,
      directDatabaseUrl: database.url,
    });
    expect(finding).toMatchObject({ status: 'ok' });
    expect(finding!.detail).toContain('DATABASE_URL goes through a transaction-mode pooler');
    expect(finding!.detail).toContain('refuses session settings at connect');
  });

  it('fails a DIRECT_DATABASE_URL that is the pooler too', async () => {
    const [finding] = await checkDatabase({ databaseUrl: pooledUrl, directDatabaseUrl: pooledUrl });
    expect(finding).toMatchObject({
      status: 'problem',
      detail: expect.stringContaining('DIRECT_DATABASE_URL refuses session settings'),
    });
  });
});
