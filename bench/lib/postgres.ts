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

/** What the autovacuum stand-in did (see autovacuumStandIn). */
export interface AutovacuumStandIn {
  vacuums: number;
  analyzes: number;
  stop(): Promise<void>;
}

/**
 * Postgres's default autovacuum, for a server that has it off (this machine's does; a production
 * server has it on by default). Without it the fleet's tables are never analyzed and their dead
 * rows never reclaimed, and the full fleet measures a database no deployment runs: in one run,
 * a manual VACUUM ANALYZE at 518 s doubled the merge rate (bench/README.md, 2026-12-02). Every
 * `naptimeMs` (autovacuum_naptime, 1 min), each table past autovacuum's default thresholds is
 * vacuumed and analyzed (dead rows > 50 + 20% of live) or analyzed (rows changed since the last
 * analyze > 50 + 10% of live), from a connection to the database itself, so that its CPU counts
 * as the database's. Undefined, and nothing done, when the server runs autovacuum itself.
 */
export async function autovacuumStandIn(
  url: string,
  naptimeMs = 60_000,
): Promise<AutovacuumStandIn | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ autovacuum: string }>('show autovacuum');
  if (rows[0]?.autovacuum === 'on') {
    await client.end();
    return undefined;
  }
  const done = { vacuums: 0, analyzes: 0 };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> = Promise.resolve();
  const onePass = async () => {
    const { rows: tables } = await client.query<{
      relname: string;
      live: number;
      dead: number;
      changed: number;
    }>(`select relname, n_live_tup::float8 as live, n_dead_tup::float8 as dead,
               n_mod_since_analyze::float8 as changed
          from pg_stat_user_tables`);
    for (const t of tables) {
      if (stopped) return;
      const table = `"${t.relname.replaceAll('"', '""')}"`;
      if (t.dead > 50 + 0.2 * t.live) {
        await client.query(`vacuum (analyze) ${table}`);
        done.vacuums++;
      } else if (t.changed > 50 + 0.1 * t.live) {
        await client.query(`analyze ${table}`);
        done.analyzes++;
      }
    }
  };
  const schedule = () => {
    timer = setTimeout(() => {
      pass = onePass().then(
        () => (stopped ? undefined : schedule()),
        () => undefined,
      );
    }, naptimeMs);
  };
  schedule();
  return {
    get vacuums() {
      return done.vacuums;
    },
    get analyzes() {
      return done.analyzes;
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pass;
      await client.end();
    },
  };
}
