import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { autovacuumStandIn } from '../../bench/lib/postgres.js';
import { createTestDatabase } from '../helpers/postgres.js';

/** The fleet benchmark's stand-in for Postgres's default autovacuum (bench/lib/postgres.ts). */
describe('the autovacuum stand-in', () => {
  let url: string;
  let drop: () => Promise<void>;
  let client: pg.Client;

  beforeAll(async () => {
    ({ url, drop } = await createTestDatabase(inject('templateDatabase')));
    client = new pg.Client({ connectionString: url });
    await client.connect();
  });
  afterAll(async () => {
    await client.end();
    await drop();
  });

  it('vacuums a table past the default threshold, or leaves it to the server’s own autovacuum', async () => {
    await client.query('create table churn (id int primary key, n int)');
    await client.query('insert into churn select g, 0 from generate_series(1, 1000) g');
    await client.query('update churn set n = n + 1'); // 1,000 dead rows > 50 + 20% of 1,000
    const serverHasIt =
      (await client.query<{ autovacuum: string }>('show autovacuum')).rows[0]!.autovacuum === 'on';
    const standIn = await autovacuumStandIn(url, 20);
    try {
      if (serverHasIt) {
        expect(standIn).toBeUndefined();
        return;
      }
      await vi.waitFor(
        async () => {
          const { rows } = await client.query<{ vacuumed: boolean }>(
            `select last_vacuum is not null as vacuumed from pg_stat_user_tables
              where relname = 'churn'`,
          );
          expect(rows[0]?.vacuumed).toBe(true);
          // The server records last_vacuum before VACUUM's reply reaches the stand-in's client,
          // so its count may trail the statistics by a moment.
          expect(standIn!.vacuums).toBeGreaterThanOrEqual(1);
        },
        { timeout: 10_000, interval: 50 },
      );
    } finally {
      await standIn?.stop();
    }
  });
});
