import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
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
        'plan_attempts',
        'pull_requests',
        'repositories',
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
});
