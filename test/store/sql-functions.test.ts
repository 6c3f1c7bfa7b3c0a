import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase } from '../helpers/postgres.js';

const FUNCTIONS_DIR = join(import.meta.dirname, '../../db/functions');

/**
 * db/functions/<name>.sql holds the current text of each SQL function, for a reader who would
 * otherwise have to find which migration replaced it last (docs/database.md). The migrated
 * database is the truth: each file must define exactly the function the migrations left, and
 * every function must have its file.
 */
describe('db/functions', () => {
  let client: pg.Client;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const database = await createTestDatabase(inject('templateDatabase'));
    drop = database.drop;
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  afterAll(async () => {
    await client.end();
    await drop();
  });

  const definitions = async () => {
    const { rows } = await client.query<{ name: string; definition: string }>(
      `select p.proname as name, pg_get_functiondef(p.oid) as definition
         from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname = 'public' order by p.proname`,
    );
    return new Map(rows.map((r) => [r.name, r.definition]));
  };
  const files = readdirSync(FUNCTIONS_DIR).filter((f) => f.endsWith('.sql'));

  it('has one file per function the migrations define', async () => {
    expect(files.map((f) => f.replace(/\.sql$/, '')).sort()).toEqual([
      ...(await definitions()).keys(),
    ]);
  });

  it.each(files)('%s is the function as migrated', async (file) => {
    const name = file.replace(/\.sql$/, '');
    const migrated = (await definitions()).get(name);
    expect(migrated, `no function ${name} in the migrated database`).toBeDefined();
    await client.query('begin');
    try {
      await client.query(readFileSync(join(FUNCTIONS_DIR, file), 'utf8'));
      expect((await definitions()).get(name)).toBe(migrated);
    } finally {
      await client.query('rollback');
    }
  });

  it('notices a file that differs from the migrated function', async () => {
    const [file] = files;
    const text = readFileSync(join(FUNCTIONS_DIR, file!), 'utf8');
    const name = file!.replace(/\.sql$/, '');
    const migrated = (await definitions()).get(name);
    await client.query('begin');
    try {
      await client.query(
        text.replace(/\$\$\n/, () => '$$\n-- an edit the migrations never made\n'),
      );
      expect((await definitions()).get(name)).not.toBe(migrated);
    } finally {
      await client.query('rollback');
    }
  });
});
