import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/store/database.js';
import { createStore } from '../../src/store/index.js';
import { startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/tls-certificates.js';

/**
 * Hosted Postgres takes connections over TLS only, often with a certificate of the provider's
 * own CA (docs/running.md, "Over TLS"). Here a pooler that requires TLS presents a certificate
 * of the test's CA: the app runs through it when DATABASE_URL names that CA, and refuses the
 * server when it does not, whatever `sslmode` says short of `no-verify`.
 */
describe('the store over TLS, through a pooler with a CA of its own', () => {
  let certificates: TestCertificates;
  let bouncer: PgBouncer;
  let database: TestDatabase;
  const tlsUrl = (query: string) => `${bouncer.url(database.name)}?${query}`;

  beforeAll(async () => {
    certificates = makeTestCertificates();
    bouncer = await startPgBouncer({ tls: certificates });
    database = await createTestDatabase(inject('templateDatabase'));
  });
  afterAll(async () => {
    await database?.drop();
    await bouncer?.stop();
    certificates?.remove();
  });

  it('runs with the CA named in DATABASE_URL, and its connections are encrypted', async () => {
    let handle: DatabaseHandle | undefined;
    try {
      handle = await openDatabase({
        databaseUrl: tlsUrl(`sslmode=verify-full&sslrootcert=${certificates.caFile}`),
        directDatabaseUrl: database.url,
        poolSize: 2,
      });
      const store = createStore(handle);
      expect(await store.runs.tasksOf(1)).toEqual([]);
      const admin = new pg.Client({
        connectionString: `${bouncer.adminUrl}?sslmode=verify-full&sslrootcert=${certificates.caFile}`,
      });
      await admin.connect();
      try {
        const { rows } = await admin.query<{ database: string; tls: string }>('SHOW CLIENTS');
        const appClients = rows.filter((row) => row.database === database.name);
        expect(appClients.length).toBeGreaterThan(0);
        for (const client of appClients) expect(client.tls).toMatch(/^TLSv1\.[23]/);
      } finally {
        await admin.end();
      }
    } finally {
      await handle?.close();
    }
  });

  // node-postgres takes `require` as `verify-full` (pg-connection-string, without
  // `uselibpqcompat`), where libpq would encrypt without checking the server.
  it.each(['sslmode=require', 'sslmode=verify-full', 'ssl=true'])(
    'refuses to start when DATABASE_URL says %s without the CA',
    async (query) => {
      await expect(
        openDatabase({ databaseUrl: tlsUrl(query), directDatabaseUrl: database.url, poolSize: 1 }),
      ).rejects.toThrow(
        /^DATABASE_URL cannot be reached: unable to (get local issuer|verify the first) certificate/,
      );
    },
  );

  it('names DIRECT_DATABASE_URL when that is the URL whose certificate it refuses', async () => {
    await expect(
      openDatabase({ databaseUrl: database.url, directDatabaseUrl: tlsUrl('sslmode=require') }),
    ).rejects.toThrow(/^DIRECT_DATABASE_URL cannot be reached: unable to .* certificate/);
  });
});
