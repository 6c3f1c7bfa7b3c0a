import { AsyncLocalStorage } from 'node:async_hooks';
import { LOCK_KEYS } from './lock-keys.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import * as schema from '../../db/schema.js';
import { packageRoot } from '../package-root.js';
import { noteStatement, statementLogger } from './statement-count.js';
import type { ConnectionMode } from './connection-mode.js';
import { describeLostSession, probeSession } from './connection-probe.js';
import { applyMigrations } from './migrator.js';
import { UnnamedStatementsClient } from './unnamed-statements.js';

export type Schema = typeof schema;
export type AppDatabase = PgDatabase<PgQueryResultHKT, Schema>;

export interface DatabaseHandle {
  readonly kind: 'postgres' | 'pglite';
  /** Through a pooler or not (src/store/connection-mode.ts). */
  readonly mode: ConnectionMode;
  readonly db: AppDatabase;
  /** Resolves when the database answers a query; rejects otherwise (health check). */
  ping(): Promise<void>;
  /**
   * Run `fn` only if no other holder (in any process) has the lock `key`; returns undefined
   * when someone else holds it. One sweep at a time across replicas.
   */
  tryExclusive<T>(key: bigint, fn: () => Promise<T>): Promise<T | undefined>;
  /**
   * Run `fn` holding the lock `key`, waiting for it while another holder (in any process) has
   * it: work on one repository takes turns. Not reentrant: never nest two for the same key.
   * The first statement takes the lock and reads: `opening(lockKey)` is a call of a function
   * that takes the advisory lock `lockKey` (unless null: PGlite, whose turns are taken in this
   * process) and then reads, and its rows go to `fn`; one round trip, not the lock and the read
   * apart. The read has to be a later statement of that function: the calling statement's
   * snapshot is older than the wait.
   */
  withLockOpening<Row, T>(
    key: bigint,
    opening: (lockKey: string | null) => OpeningStatement,
    fn: (rows: Row[]) => Promise<T>,
  ): Promise<T>;
  /**
   * Plain SQL on connections of its own, for the webhook inbox: acknowledging a delivery never
   * waits for a connection behind the handlers, and skips the query builder on its hot path.
   */
  inboxQuery<Row>(text: string, params: unknown[], preparedAs?: string): Promise<Row[]>;
  /**
   * Take a session's advisory lock with `lock`, on a connection of its own kept until the answer
   * is called (or close()): it is held while this process is up, and let go as soon as the
   * process is gone however it ends, since Postgres ends a session with its connection. A lost
   * connection is opened again and the lock taken again. `unlock` lets it go where the session
   * is shared (PGlite).
   */
  holdSession(lock: OpeningStatement, unlock: OpeningStatement): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** A statement that opens a lock (DatabaseHandle.withLockOpening). */
export interface OpeningStatement {
  text: string;
  values: unknown[];
}

/** The rows of `db.execute`, whose result is shaped differently by node-postgres and PGlite. */
export function rowsOf<T>(result: unknown): T[] {
  const rows = (result as { rows?: T[] }).rows;
  return Array.isArray(rows) ? rows : (result as T[]);
}

export interface OpenOptions {
  databaseUrl?: string;
  /**
   * Set when `databaseUrl` goes through a transaction-mode pooler: a URL of the same database
   * with sessions of their own, for what needs one (src/store/connection-mode.ts).
   */
  directDatabaseUrl?: string;
  dataDir?: string;
  /**
   * PGlite in memory, for tests; `from`: starting from a data directory PGlite dumped
   * (dumpDataDir) instead of creating one, which takes seconds (tests load a migrated one).
   */
  inMemory?: boolean | { from: Blob };
  poolSize?: number;
  onPoolError?: (error: Error) => void;
}

/** A lock's connection while its holder's statements are routed to it (DatabaseHandle.withLockOpening). */
interface HeldConnection {
  client: pg.PoolClient;
  live: boolean;
  /** Settles when the last statement sent on it has: the next one waits for it. */
  last: Promise<unknown>;
}

/**
 * Runs `send` on the held connection once the statement before it has settled. A connection runs
 * one statement at a time anyway, and pg deprecates queuing a second on a busy client (pg 9 will
 * refuse it), while a holder may send two at once (`Promise.all`) or leave one in flight as it
 * settles, before the unlock.
 */
function inTurnOn<T>(held: HeldConnection, send: () => T): Promise<Awaited<T>> {
  const sent = held.last.then(send, send) as Promise<Awaited<T>>;
  held.last = sent.catch(() => undefined);
  return sent;
}

export function migrationsFolder(): string {
  return join(packageRoot(), 'db', 'migrations');
}

export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options);
  return openPglite(options);
}

/**
 * Refuses, before anything runs on them, URLs that cannot do what their mode needs: without
 * DIRECT_DATABASE_URL, DATABASE_URL must be a session of its own; DIRECT_DATABASE_URL must be one.
 * A pooler that drops the inbox's settings would otherwise run it silently without them.
 */
/** A URL the app cannot start on, named by its variable: pg's messages never say which. */
function unreachable(variable: string, error: Error): Error {
  return new Error(`${variable} cannot be reached: ${error.message}`, { cause: error });
}

async function checkSessions(url: string, directUrl: string | undefined): Promise<void> {
  const session = directUrl ?? url;
  const probe = await probeSession(session).catch((error: Error) => {
    throw unreachable(directUrl ? 'DIRECT_DATABASE_URL' : 'DATABASE_URL', error);
  });
  if (probe.kind === 'kept') return;
  const seen = describeLostSession(probe);
  throw new Error(
    directUrl
      ? `DIRECT_DATABASE_URL ${seen}: it must reach Postgres itself, not a pooler (docs/running.md, "Through a connection pooler")`
      : `DATABASE_URL ${seen}: it goes through a pooler such as PgBouncer in transaction mode; set DIRECT_DATABASE_URL to a URL of the same database on Postgres itself, for what needs a session (docs/running.md, "Through a connection pooler")`,
  );
}

async function openPostgres(url: string, options: OpenOptions): Promise<DatabaseHandle> {
  const directUrl = options.directDatabaseUrl;
  await checkSessions(url, directUrl);
  // The pool listens for errors only on idle clients. A checked-out client whose backend dies
  // between two queries (pg_terminate_backend, a restart, a cut network: the sweep lock's client
  // sits idle while the sweep runs, a transaction between statements) emits 'error' with nobody
  // listening, which would end the process. Listen on every client; the pool drops broken ones
  // when they are released, and their next query fails in the caller instead.
  const newPool = (connectionString: string, config: pg.PoolConfig) => {
    const created = new pg.Pool({
      connectionString,
      connectionTimeoutMillis: 5_000,
      ...config,
    });
    created.on('connect', (client) => client.on('error', (error) => options.onPoolError?.(error)));
    created.on('error', (error) => options.onPoolError?.(error));
    return created;
  };
  const poolSize = options.poolSize ?? 10;
  const pool = newPool(url, {
    max: poolSize,
    allowExitOnIdle: false,
    ...(directUrl ? { Client: UnnamedStatementsClient } : {}),
  });
  // What needs a session: the migrations' connection and the locks held across work (holding).
  // Through a transaction-mode pooler, a session lock would stay with whichever server connection
  // took it, and its unlock could reach another (src/store/connection-mode.ts).
  const sessionPool = directUrl
    ? newPool(directUrl, { max: poolSize, allowExitOnIdle: false })
    : pool;
  // Inside withLockOpening, the holder's statements run on the lock's own connection (see holding):
  // a merge turn then takes one connection (of the session pool), not two, and none waits for
  // another.
  const heldConnection = new AsyncLocalStorage<HeldConnection>();
  const routedQuery = (...args: unknown[]) => {
    const held = heldConnection.getStore();
    if (!held?.live) return (pool.query as (...a: unknown[]) => unknown)(...args);
    return inTurnOn(held, () => (held.client.query as (...a: unknown[]) => unknown)(...args));
  };
  const routed = new Proxy(pool, {
    get(target, name) {
      if (name === 'query') return routedQuery;
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const db = drizzlePg(routed, { schema, logger: statementLogger }) as unknown as AppDatabase;
  // Inserts (one batch at a time), claims and completions. The inbox's statistics are always
  // stale (it turns over faster than ANALYZE runs), and a planner that thinks few rows are
  // pending reads them all and sorts them instead of walking the index to the oldest few: on
  // these connections, where every query has an index to use, only index scans are planned.
  // Every statement here is prepared, and planned once per connection: left to choose, Postgres
  // planned the completion (`delivery_id = any($1)`) anew on every call, a custom plan for each
  // array looking cheaper than the generic one: 0.15 ms a call.
  // Its settings are sent at connect: they need a session (DIRECT_DATABASE_URL through a pooler).
  const inboxPool = newPool(directUrl ?? url, {
    max: 3,
    options: '-c enable_bitmapscan=off -c enable_seqscan=off -c plan_cache_mode=force_generic_plan',
  });

  /**
   * Run `fn` holding the advisory lock `key` on one connection, if `lock` (the statement that
   * takes it) took it: it answers the rows for `fn`, or undefined when the lock was not taken,
   * and then `holding` answers undefined too. With `unlockInBackground`, the unlock is sent
   * as `fn` settles and not waited for, and the connection goes back to the pool when it is
   * done: the caller goes on at once, and the next taker of the lock waits for nothing but that
   * statement (only for a lock taken by waiting: a try-lock right after would fail). With
   * `statementsOnLock`, the statements `fn` sends outside a transaction run on the lock's
   * connection, in the order sent, until `fn` settles; work `fn` leaves running past that goes
   * back to the pool (the connection may be someone else's by then).
   */
  async function holding<Row, T>(
    key: bigint,
    lock: (client: pg.PoolClient, lockKey: string) => Promise<Row[] | undefined>,
    fn: (rows: Row[]) => Promise<T>,
    { unlockInBackground = false, statementsOnLock = false } = {},
  ): Promise<{ value: T } | undefined> {
    const client = await sessionPool.connect();
    let unlock: Promise<unknown> | undefined;
    try {
      const rows = await lock(client, key.toString());
      if (!rows) return undefined;
      const held: HeldConnection = { client, live: true, last: Promise.resolve() };
      try {
        const run = () => fn(rows);
        return { value: await (statementsOnLock ? heldConnection.run(held, run) : run()) };
      } finally {
        held.live = false;
        // A lost connection took the lock with its session: nothing left to unlock, and the
        // outcome of `fn` (its result or its own error) is what the caller needs to see.
        unlock = inTurnOn(held, () => {
          const text = 'select pg_advisory_unlock($1)';
          noteStatement(text);
          return client.query(text, [key.toString()]);
        }).catch((error: Error) => options.onPoolError?.(error));
        if (!unlockInBackground) await unlock;
      }
    } finally {
      if (unlock && unlockInBackground) void unlock.finally(() => client.release());
      else client.release();
    }
  }
  const waitingTurn = { unlockInBackground: true, statementsOnLock: true };

  // Sessions held for the process's life (holdSession), on Postgres itself, never a pooler.
  const heldSessions = new Set<pg.Client>();
  let closing = false;
  async function holdSession(lock: OpeningStatement): Promise<() => Promise<void>> {
    let held: pg.Client | undefined;
    let released = false;
    const open = async (): Promise<void> => {
      const client = new pg.Client({
        connectionString: directUrl ?? url,
        connectionTimeoutMillis: 5_000,
      });
      client.on('error', (error) => options.onPoolError?.(error));
      try {
        await client.connect();
        noteStatement(lock.text);
        await client.query(lock);
      } catch (error) {
        await client.end().catch(() => {});
        throw error;
      }
      if (released || closing) return void (await client.end());
      held = client;
      heldSessions.add(client);
      client.once('end', () => {
        heldSessions.delete(client);
        // A lost connection took the lock with it: take it again.
        const retry = () => {
          if (released || closing) return;
          open().catch((error: Error) => {
            options.onPoolError?.(error);
            setTimeout(retry, 1_000).unref();
          });
        };
        retry();
      });
    };
    await open();
    return async () => {
      released = true;
      await held?.end().catch(() => {});
    };
  }

  const client = await sessionPool.connect();
  try {
    await applyMigrations(client, migrationsFolder());
  } finally {
    client.release();
  }
  // Through a pooler, nothing above touched DATABASE_URL: a wrong password or a certificate the
  // app refuses (docs/running.md, "Over TLS") would otherwise fail every handler of a running app.
  if (directUrl)
    await pool.query('select 1').catch(async (error: Error) => {
      await Promise.all([pool, sessionPool, inboxPool].map((p) => p.end().catch(() => {})));
      throw unreachable('DATABASE_URL', error);
    });

  return {
    kind: 'postgres',
    mode: directUrl ? 'pooled' : 'direct',
    db,
    async ping() {
      noteStatement('select 1');
      await pool.query('select 1');
    },
    tryExclusive: (key, fn) =>
      holding(
        key,
        async (client, lockKey) => {
          const text = 'select pg_try_advisory_lock($1) as locked';
          noteStatement(text);
          const { rows } = await client.query<{ locked: boolean }>(text, [lockKey]);
          return rows[0]?.locked ? [] : undefined;
        },
        fn,
      ).then((r) => r?.value),
    withLockOpening: <Row, T>(
      key: bigint,
      opening: (lockKey: string | null) => OpeningStatement,
      fn: (rows: Row[]) => Promise<T>,
    ) =>
      holding(
        key,
        async (client, lockKey) => {
          const statement = opening(lockKey);
          noteStatement(statement.text);
          return (await client.query<Row & pg.QueryResultRow>(statement)).rows;
        },
        fn,
        waitingTurn,
      ).then((r) => r!.value),
    async inboxQuery<Row>(text: string, params: unknown[], preparedAs?: string) {
      // A named statement is planned once per connection: the claim's plan costs more than
      // running it.
      noteStatement(text);
      return (await inboxPool.query({ text, values: params, name: preparedAs })).rows as Row[];
    },
    holdSession,
    async close() {
      closing = true;
      await Promise.all([
        ...[...heldSessions].map((c) => c.end()),
        ...[...new Set([pool, sessionPool, inboxPool])].map((p) => p.end()),
      ]);
    },
  };
}

/**
 * PGlite sends a transaction's BEGIN and COMMIT (or ROLLBACK) itself, where drizzle's logger does
 * not see them: they count here, as the two statements they are on Postgres
 * (src/store/statement-count.ts). The statements inside go through drizzle, which counts them.
 */
class StatementCountingPGlite extends PGlite {
  override async transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T> {
    noteStatement('begin');
    try {
      return await super.transaction(callback);
    } finally {
      noteStatement('commit');
    }
  }
}

async function openPglite(options: OpenOptions): Promise<DatabaseHandle> {
  let client: PGlite;
  if (options.inMemory) {
    client = new StatementCountingPGlite(
      typeof options.inMemory === 'object' ? { loadDataDir: options.inMemory.from } : undefined,
    );
  } else {
    const dataDir = options.dataDir ?? '.data';
    mkdirSync(dataDir, { recursive: true });
    client = new StatementCountingPGlite(join(dataDir, 'pglite'));
  }
  await client.waitReady;
  const db = drizzlePglite(client, { schema, logger: statementLogger }) as unknown as AppDatabase;
  // One PGlite data directory belongs to one process, so there is nobody to race; the same
  // lock is still taken to keep one code path for both engines' SQL.
  await db.execute(sql`select pg_advisory_lock(${LOCK_KEYS.migrations.toString()}::bigint)`);
  try {
    await migratePglite(drizzlePglite(client, { schema }), {
      migrationsFolder: migrationsFolder(),
    });
  } finally {
    await db.execute(sql`select pg_advisory_unlock(${LOCK_KEYS.migrations.toString()}::bigint)`);
  }
  // One process owns a PGlite directory, so an in-process flag is the whole lock.
  const held = new Set<bigint>();
  const queues = new Map<bigint, Promise<void>>();
  // One process, one connection: a lock is a turn in a queue per key.
  async function inTurn<T>(key: bigint, fn: () => Promise<T>): Promise<T> {
    const before = queues.get(key) ?? Promise.resolve();
    let release!: () => void;
    const turn = new Promise<void>((resolve) => (release = resolve));
    const mine = before.then(() => turn);
    queues.set(key, mine);
    await before;
    try {
      return await fn();
    } finally {
      release();
      if (queues.get(key) === mine) queues.delete(key);
    }
  }
  return {
    kind: 'pglite',
    mode: 'embedded',
    db,
    async tryExclusive(key, fn) {
      if (held.has(key)) return undefined;
      held.add(key);
      try {
        return await fn();
      } finally {
        held.delete(key);
      }
    },
    withLockOpening: <Row, T>(
      key: bigint,
      opening: (lockKey: string | null) => OpeningStatement,
      fn: (rows: Row[]) => Promise<T>,
    ) =>
      inTurn(key, async () => {
        const { text, values } = opening(null);
        noteStatement(text);
        return fn((await client.query<Row>(text, values)).rows);
      }),
    async ping() {
      noteStatement('select 1');
      await client.query('select 1');
    },
    // One connection runs one statement at a time: statements already take turns.
    async inboxQuery<Row>(text: string, params: unknown[]) {
      noteStatement(text);
      const result = await client.query<Row>(text, params);
      return result.rows;
    },
    // One process, one session: the lock is held until unlocked or the process ends.
    async holdSession(lock, unlock) {
      noteStatement(lock.text);
      await client.query(lock.text, lock.values);
      return async () => {
        noteStatement(unlock.text);
        await client.query(unlock.text, unlock.values);
      };
    },
    async close() {
      await client.close();
    },
  };
}
