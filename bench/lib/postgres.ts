import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../../src/store/database.js';
import { databaseUrl, TEST_SERVER_URL } from '../../test/helpers/postgres.js';

export interface BenchDatabase {
  name: string;
  url: string;
  /** Pids of the server processes connected to this database now. */
  backends(): Promise<number[]>;
  drop(): Promise<void>;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_SERVER_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, empty database on the test server (`ac_bench_<hex>`), migrated by `openDatabase`
 * the way the app migrates at start.
 */
export async function createBenchDatabase(): Promise<BenchDatabase> {
  const name = `ac_bench_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`create database ${name}`));
  const url = databaseUrl(name);
  const handle = await openDatabase({ databaseUrl: url, poolSize: 1 });
  await handle.close();
  // One connection to the server's own database for the whole run: it is not a backend of ours.
  let watcher: Promise<pg.Client> | undefined;
  const watch = () =>
    (watcher ??= (async () => {
      const client = new pg.Client({ connectionString: TEST_SERVER_URL });
      await client.connect();
      return client;
    })());
  return {
    name,
    url,
    async backends() {
      const { rows } = await (
        await watch()
      ).query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [name]);
      return rows.map((r) => r.pid);
    },
    drop: async () => {
      if (watcher) await (await watcher).end();
      await admin((c) => c.query(`drop database if exists ${name} with (force)`));
    },
  };
}

export async function openBenchDatabase(url: string, poolSize?: number): Promise<DatabaseHandle> {
  return openDatabase({ databaseUrl: url, ...(poolSize ? { poolSize } : {}) });
}

export async function postgresVersion(): Promise<string> {
  return admin(async (c) => {
    const { rows } = await c.query<{ server_version: string }>('show server_version');
    return rows[0]?.server_version ?? 'unknown';
  });
}
