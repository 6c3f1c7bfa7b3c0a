import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase } from '../../src/store/database.js';

/** The server the tests use; the machine's Postgres by default. */
export const TEST_SERVER_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function databaseUrl(name: string): string {
  const url = new URL(TEST_SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * One connection per test worker for creating and dropping databases, kept between test files
 * (which share the worker's modules, vitest.config.ts): a connection of its own for each would
 * start a server process each time, and over a run that is thousands.
 */
let adminPool: pg.Pool | undefined;

async function admin<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  if (!adminPool) {
    adminPool = new pg.Pool({
      connectionString: TEST_SERVER_URL,
      max: 1,
      idleTimeoutMillis: 60_000,
      allowExitOnIdle: true,
    });
    // An idle connection the server ended is dropped by the pool; the next call opens another.
    adminPool.on('error', () => {});
  }
  const client = await adminPool.connect();
  try {
    const result = await fn(client);
    client.release();
    return result;
  } catch (error) {
    // A connection that failed mid-call may be in any state: it is closed, not reused.
    client.release(true);
    throw error;
  }
}

export async function prepareTemplateDatabase(): Promise<string> {
  const name = `ac_template_${process.pid}`;
  await admin(async (c) => {
    await c.query(`drop database if exists ${name} with (force)`);
    await c.query(`create database ${name}`);
  });
  const handle = await openDatabase({ databaseUrl: databaseUrl(name), poolSize: 1 });
  await handle.close();
  return name;
}

/** Drops a database the run made, such as its template once every test file has cloned it. */
export async function dropDatabase(name: string): Promise<void> {
  await admin((c) => c.query(`drop database if exists ${name} with (force)`));
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A fresh database cloned from the migrated template. */
export async function createTestDatabase(template: string): Promise<TestDatabase> {
  const name = `ac_test_${randomBytes(6).toString('hex')}`;
  // Cloning fails while another session touches the template, so clones take turns.
  await admin(async (c) => {
    await c.query('select pg_advisory_lock(7283940)');
    try {
      await c.query(`create database ${name} template ${template}`);
    } finally {
      await c.query('select pg_advisory_unlock(7283940)');
    }
  });
  return {
    name,
    url: databaseUrl(name),
    drop: () => dropDatabase(name),
  };
}

/** An empty database (no migrations), for migration tests. */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  const name = `ac_empty_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`create database ${name}`));
  return {
    name,
    url: databaseUrl(name),
    drop: () => dropDatabase(name),
  };
}
