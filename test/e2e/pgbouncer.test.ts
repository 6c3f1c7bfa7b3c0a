import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import {
  MAINTAINER,
  REPO,
  SPEC_EXAMPLE_PLAN,
  chaoticDelivery,
  closeScenario,
  startScenario,
  statusComment,
  type Scenario,
} from './harness.js';

type Pull = { number: number; state: string; head: { ref: string } };

/**
 * The whole docs/tasks-block.md run — label, plan, dispatches, reviews, merges in dependency order,
 * the sweep — with DATABASE_URL on PgBouncer in transaction mode, two server connections shared by
 * all of the app's clients, and DIRECT_DATABASE_URL on the server (docs/running.md, "Through a
 * connection pooler").
 */
describe('the app through PgBouncer in transaction mode (GitHub double)', () => {
  let bouncer: PgBouncer;
  let database: TestDatabase;
  let s: Scenario;

  beforeAll(async () => {
    bouncer = await startPgBouncer({ poolSize: 2 });
    database = await createTestDatabase(inject('templateDatabase'));
    s = await startScenario({
      databaseUrl: bouncer.url(database.name),
      env: { DIRECT_DATABASE_URL: database.url },
      delivery: chaoticDelivery(1),
    });
  });
  afterAll(async () => {
    if (s) await closeScenario(s);
    await database?.drop();
    await bouncer?.stop();
  });

  /** PgBouncer's own count of the transactions its clients ran on this database. */
  const pooledTransactions = async () => {
    const admin = new pg.Client({ connectionString: bouncer.adminUrl });
    await admin.connect();
    try {
      // No parameters: pg sends it in the simple protocol, the only one the admin console speaks.
      const { rows } = await admin.query<{ database: string; total_xact_count: string }>(
        'SHOW STATS',
      );
      return Number(rows.find((r) => r.database === database.name)?.total_xact_count ?? 0);
    } finally {
      await admin.end();
    }
  };

  it('says at start that it is pooled and what runs where', () => {
    const started = s.app.logs.lines
      .map((line) => JSON.parse(line) as { msg?: string; connection?: string })
      .find((entry) => entry.msg?.startsWith('database ready'));
    expect(started).toMatchObject({ connection: 'pooled', directDatabaseUrl: true });
    expect(started?.msg).toContain('DATABASE_URL goes through a transaction-mode pooler');
  });

  it('takes the docs/tasks-block.md example from label to closed issue, merging in dependency order', async () => {
    const before = await pooledTransactions();
    s.double.setWorker(() => ({ kind: 'pr', costUsd: 0.5 }));
    const issue = await s.double.openIssue(REPO, {
      title: 'Login',
      body: `Add login.\n\n${SPEC_EXAMPLE_PLAN}`,
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    const pulls = () => s.double.pulls(REPO) as Pull[];
    for (
      let round = 0;
      round < 6 && (s.double.issue(REPO, issue) as { state: string }).state === 'open';
      round++
    ) {
      for (const pr of pulls().filter((p) => p.state === 'open'))
        await s.double.comment(REPO, pr.number, '/approve', MAINTAINER);
      await s.settle();
    }
    expect((s.double.issue(REPO, issue) as { state: string }).state).toBe('closed');
    const merged = s.double
      .deliveries({ event: 'pull_request', action: 'closed' })
      .filter((d) => (d.payload.pull_request as { merged: boolean }).merged)
      .map((d) => (d.payload.pull_request as { head: { ref: string } }).head.ref.split('/')[2]);
    expect(merged).toHaveLength(4);
    expect(merged[0]).toBe('task_001');
    expect(merged[3]).toBe('task_004');
    expect(statusComment(s.double, issue)).toContain('every task is merged');

    // The sweep takes its lock (on the direct URL) and reads and writes through the pooler.
    expect(await s.app.sweep()).toBeDefined();
    // The run's queries did go through PgBouncer.
    expect((await pooledTransactions()) - before).toBeGreaterThan(100);
    // And none failed there: with statements named through the pooler, handlings fail ("prepared
    // statement … already exists") and are retried, and the run may still end where it should.
    const errors = s.app.logs.lines
      .map((line) => JSON.parse(line) as { level: number; msg?: string })
      .filter((entry) => entry.level >= 50)
      .map((entry) => entry.msg);
    expect(errors).toEqual([]);
  }, 60_000);
});
