import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationsFolder, openDatabase } from '../../src/store/database.js';
import { createEmptyDatabase, type TestDatabase } from '../helpers/postgres.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

describe('migrations', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('match the drizzle schema: drizzle-kit generate finds nothing new', async () => {
    const out = mkdtempSync(join(tmpdir(), 'ac-migrations-'));
    cleanups.push(async () => rmSync(out, { recursive: true, force: true }));
    cpSync(migrationsFolder(), out, { recursive: true });
    const before = readdirSync(out).sort();
    const config = join(out, 'drizzle.config.mjs');
    writeFileSync(
      config,
      `export default { dialect: 'postgresql', schema: ${JSON.stringify(join(root, 'db/schema.ts'))}, out: ${JSON.stringify(relative(root, out))} };\n`,
    );
    const { stdout } = await run(
      join(root, 'node_modules/.bin/drizzle-kit'),
      ['generate', `--config=${config}`],
      {
        cwd: root,
      },
    );
    expect(
      readdirSync(out)
        .filter((f) => f !== 'drizzle.config.mjs')
        .sort(),
    ).toEqual(before);
    expect(stdout).toContain('No schema changes');
  }, 60_000);

  it('apply once when several processes start together on an empty database', async () => {
    const database: TestDatabase = await createEmptyDatabase();
    cleanups.push(() => database.drop());
    const handles = await Promise.all(
      Array.from({ length: 4 }, () => openDatabase({ databaseUrl: database.url, poolSize: 2 })),
    );
    for (const handle of handles) await handle.close();

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const applied = await client.query('select hash from drizzle.__drizzle_migrations');
      const journal = readdirSync(migrationsFolder()).filter((f) => f.endsWith('.sql'));
      expect(applied.rowCount).toBe(journal.length);
      const tables = await client.query(
        "select table_name from information_schema.tables where table_schema = 'public' order by 1",
      );
      expect(tables.rows.map((r: { table_name: string }) => r.table_name)).toEqual([
        'attempts',
        'commands',
        'github_write_reservations',
        'installations',
        'pull_requests',
        'repositories',
        'repository_inflight',
        'runs',
        'task_edges',
        'tasks',
        'webhook_deliveries',
      ]);
      const idTypes = await client.query(
        "select table_name, column_name, data_type from information_schema.columns where column_name in ('status_comment_id', 'workflow_run_id', 'comment_id', 'order_check_run_id', 'installation_id') and table_schema = 'public'",
      );
      for (const row of idTypes.rows as Array<{ data_type: string }>)
        expect(row.data_type).toBe('bigint');
    } finally {
      await client.end();
    }
  }, 60_000);

  it('keep the planner attempts of plan_attempts as attempts of the plan task (0008)', async () => {
    const database = await createEmptyDatabase();
    cleanups.push(() => database.drop());
    // The database as 0006 left it: the migrations before 0007 only.
    const before = mkdtempSync(join(tmpdir(), 'ac-migrations-0006-'));
    cleanups.push(async () => rmSync(before, { recursive: true, force: true }));
    cpSync(migrationsFolder(), before, { recursive: true });
    // The migrator applies what the journal lists.
    const journalFile = join(before, 'meta/_journal.json');
    const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as {
      entries: Array<{ idx: number }>;
    };
    journal.entries = journal.entries.filter((e) => e.idx < 7);
    writeFileSync(journalFile, JSON.stringify(journal));

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await migrate(drizzle(client), { migrationsFolder: before });
      await client.query(`insert into installations (id, account_login) values (1, 'acme')`);
      await client.query(
        `insert into repositories (id, installation_id, owner, name) values (10, 1, 'acme', 'app')`,
      );
      const runIds = await client.query<{ id: string }>(
        `insert into runs (repository_id, issue_number, config, started_by, state)
         values (10, 1, '{}', 'alice', 'running'), (10, 2, '{}', 'alice', 'planning')
         returning id`,
      );
      const [planned, planning] = runIds.rows.map((r) => Number(r.id));
      // Run 1: a first planner attempt that never reached GitHub, then one that planned it.
      // Run 2: its planner still out.
      await client.query(
        `insert into plan_attempts
           (run_id, attempt, phase, workflow_run_id, workflow_run_url, conclusion, intent_at, dispatched_at, completed_at)
         values
           ($1, 1, 'completed', null, null, 'not_dispatched', '2026-01-01T10:00:00Z', null, '2026-01-01T10:02:00Z'),
           ($1, 2, 'completed', 5000000001, 'https://github.com/acme/app/actions/runs/5000000001', 'success',
            '2026-01-01T10:02:00Z', '2026-01-01T10:02:01Z', '2026-01-01T10:09:00Z'),
           ($2, 1, 'dispatched', 5000000002, 'https://github.com/acme/app/actions/runs/5000000002', null,
            '2026-01-02T10:00:00Z', '2026-01-02T10:00:01Z', null)`,
        [planned, planning],
      );

      const handle = await openDatabase({ databaseUrl: database.url, poolSize: 1 });
      await handle.close();

      const tasks = await client.query(
        `select run_id::int, task_key, type, state, attempt_count from tasks order by run_id`,
      );
      expect(tasks.rows).toEqual([
        { run_id: planned, task_key: 'plan', type: 'plan', state: 'merged', attempt_count: 2 },
        { run_id: planning, task_key: 'plan', type: 'plan', state: 'dispatched', attempt_count: 1 },
      ]);
      const attempts = await client.query(
        `select t.run_id::int, a.attempt, a.mode, a.phase, a.workflow_run_id::text, a.workflow_run_url,
                a.conclusion, a.intent_at, a.dispatched_at, a.completed_at
           from attempts a join tasks t on t.id = a.task_id order by t.run_id, a.attempt`,
      );
      expect(attempts.rows).toEqual([
        {
          run_id: planned,
          attempt: 1,
          mode: 'plan',
          phase: 'completed',
          workflow_run_id: null,
          workflow_run_url: null,
          conclusion: 'not_dispatched',
          intent_at: new Date('2026-01-01T10:00:00Z'),
          dispatched_at: null,
          completed_at: new Date('2026-01-01T10:02:00Z'),
        },
        {
          run_id: planned,
          attempt: 2,
          mode: 'plan',
          phase: 'completed',
          workflow_run_id: '5000000001',
          workflow_run_url: 'https://github.com/acme/app/actions/runs/5000000001',
          conclusion: 'success',
          intent_at: new Date('2026-01-01T10:02:00Z'),
          dispatched_at: new Date('2026-01-01T10:02:01Z'),
          completed_at: new Date('2026-01-01T10:09:00Z'),
        },
        {
          run_id: planning,
          attempt: 1,
          mode: 'plan',
          phase: 'dispatched',
          workflow_run_id: '5000000002',
          workflow_run_url: 'https://github.com/acme/app/actions/runs/5000000002',
          conclusion: null,
          intent_at: new Date('2026-01-02T10:00:00Z'),
          dispatched_at: new Date('2026-01-02T10:00:01Z'),
          completed_at: null,
        },
      ]);
      const left = await client.query(`select to_regclass('plan_attempts') as t`);
      expect(left.rows).toEqual([{ t: null }]);
    } finally {
      await client.end();
    }
  }, 60_000);
});
