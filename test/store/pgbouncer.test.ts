import { readdirSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { migrationsFolder, openDatabase, type DatabaseHandle } from '../../src/store/database.js';
import { createStore, type Store } from '../../src/store/index.js';
import { LOCK_KEYS } from '../../src/store/lock-keys.js';
import { applyMigrations } from '../../src/store/migrator.js';
import { startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.js';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../helpers/postgres.js';

/**
 * The store through PgBouncer in transaction mode (docs/running.md, "Through a connection
 * pooler"), two server connections for the app's many clients: DATABASE_URL is the pooler,
 * DIRECT_DATABASE_URL the server itself.
 */
describe('the store through PgBouncer in transaction mode', () => {
  let bouncer: PgBouncer;
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let store: Store;

  beforeAll(async () => {
    bouncer = await startPgBouncer({ poolSize: 2 });
    database = await createTestDatabase(inject('templateDatabase'));
    handle = await openDatabase({
      databaseUrl: bouncer.url(database.name),
      directDatabaseUrl: database.url,
      poolSize: 6,
    });
    store = createStore(handle);
  });
  afterAll(async () => {
    await handle?.close();
    await database?.drop();
    await bouncer?.stop();
  });

  it('refuses to start on the pooler alone, naming DIRECT_DATABASE_URL', async () => {
    await expect(openDatabase({ databaseUrl: bouncer.url(database.name) })).rejects.toThrow(
      /DATABASE_URL refuses session settings at connect \(unsupported startup parameter: options\).*set DIRECT_DATABASE_URL/,
    );
  });

  it('refuses to start on a pooler that drops the settings sent at connect', async () => {
    const dropping = await startPgBouncer({ ignoreOptions: true });
    try {
      await expect(openDatabase({ databaseUrl: dropping.url(database.name) })).rejects.toThrow(
        /DATABASE_URL drops session settings sent at connect: .*set DIRECT_DATABASE_URL/,
      );
    } finally {
      await dropping.stop();
    }
  });

  it('refuses a DIRECT_DATABASE_URL that is the pooler too', async () => {
    const pooled = bouncer.url(database.name);
    await expect(openDatabase({ databaseUrl: pooled, directDatabaseUrl: pooled })).rejects.toThrow(
      /DIRECT_DATABASE_URL refuses session settings/,
    );
  });

  it('says it is pooled', () => {
    expect(handle.mode).toBe('pooled');
  });

  it('applies migrations through the pooler too: lock and journal in one transaction', async () => {
    const empty = await createEmptyDatabase();
    try {
      const clients = Array.from(
        { length: 3 },
        () => new pg.Client({ connectionString: bouncer.url(empty.name) }),
      );
      for (const c of clients) await c.connect();
      try {
        // Three starters at once on two server connections: each migration applied once.
        await Promise.all(clients.map((c) => applyMigrations(c, migrationsFolder())));
        const { rowCount } = await clients[0]!.query('select 1 from drizzle.__drizzle_migrations');
        expect(rowCount).toBe(
          readdirSync(migrationsFolder()).filter((f) => f.endsWith('.sql')).length,
        );
      } finally {
        for (const c of clients) await c.end();
      }
    } finally {
      await empty.drop();
    }
  });

  it('keeps one holder of a lock at a time while the holders’ statements share two server connections', async () => {
    const key = LOCK_KEYS.sweep;
    let inner: string | undefined = 'not tried';
    const outer = await handle.tryExclusive(key, async () => {
      // Statements in between, on the pooler: a session lock taken through it would now sit on
      // a server connection the next try-lock may well land on, and be taken again.
      await Promise.all(Array.from({ length: 8 }, () => handle.ping()));
      inner = await handle.tryExclusive(key, async () => 'second holder');
      return 'first holder';
    });
    expect(outer).toBe('first holder');
    expect(inner).toBeUndefined();
    expect(await handle.tryExclusive(key, async () => 'after')).toBe('after');
  });

  it('takes merge turns one at a time, their statements in between on the pooler', async () => {
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 6 }, () =>
        store.mergeTurns.take(4711, 0, async () => {
          inside++;
          most = Math.max(most, inside);
          await store.mergeTurns.view(4711, 0);
          await handle.ping();
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
  });

  it('runs the prepared hot-path statements on the pooler, in transactions and out', async () => {
    // Six clients on two server connections: a statement prepared under its name on one server
    // connection is missing on the other, or there already from another client.
    const reads = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        i % 2 === 0
          ? store.runs.tasksOf(i)
          : handle.db.transaction((tx) => store.runs.task(i, 'plan', tx)),
      ),
    );
    // No run has tasks here: what counts is that every statement ran.
    expect(reads).toEqual(Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? [] : undefined)));
  });

  it('records, claims and completes deliveries (the inbox on the direct URL)', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `pgbouncer-${i}`);
    const outcomes = await Promise.all(
      ids.map((id, i) =>
        store.deliveries.record({
          id,
          event: 'issues',
          repositoryId: 9000 + i,
          body: JSON.stringify({ n: i }),
        }),
      ),
    );
    expect(outcomes.every((o) => o === 'accepted')).toBe(true);
    const claimed = await store.deliveries.claim('worker-1', 50);
    expect(claimed.map((d) => d.id).sort()).toEqual([...ids].sort());
    await Promise.all(ids.map((id) => store.deliveries.complete(id)));
    expect(await store.deliveries.countByStatus()).toEqual({ done: 20 });
  });
});
