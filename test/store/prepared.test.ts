import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installations } from '../../db/schema.js';
import type { DatabaseHandle } from '../../src/store/database.js';
import { placeholdersFor, PreparedStatements } from '../../src/store/prepared.js';
import { ENGINES } from '../helpers/engines.js';

describe('placeholders for a prepared write', () => {
  it('names the statement by the keys given, a null apart from a value', () => {
    const at = new Date();
    expect(placeholdersFor({ b: 1, a: 'x', c: undefined }).shape).toBe('a_b');
    expect(placeholdersFor({ a: null, b: 1 }).shape).toBe('a_null_b');
    expect(placeholdersFor({ a: at, b: 1 }).shape).toBe('a_b');
  });

  it('refuses a value written as SQL', () => {
    expect(() => placeholdersFor({ a: sql`now()` })).toThrow(/a: an SQL value/);
  });
});

describe.each(ENGINES)('prepared statements on $name', (engine) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let prepared: PreparedStatements;

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    prepared = new PreparedStatements(handle.db);
    await handle.db.insert(installations).values([{ id: 2 ** 33 + 1 }, { id: 2 ** 33 + 2 }]);
  });
  afterAll(() => dispose());

  const suspendedAt = async (id: number) =>
    (await handle.db.select().from(installations).where(eq(installations.id, id)))[0]?.suspendedAt;

  const write = (id: number, values: { suspendedAt: Date | null }) => {
    const { shape, placeholders } = placeholdersFor(values);
    return prepared
      .get(`installation_update_${shape}`, (db) =>
        db
          .update(installations)
          .set(placeholders as never)
          .where(eq(installations.id, sql.placeholder('id'))),
      )
      .execute({ ...values, id });
  };

  it('writes a date, then a null, to a date column, each statement built once', async () => {
    const id = 2 ** 33 + 1;
    const at = new Date('2026-12-01T12:00:00Z');
    await write(id, { suspendedAt: at });
    expect((await suspendedAt(id))?.toISOString()).toBe(at.toISOString());
    await write(id, { suspendedAt: null });
    expect(await suspendedAt(id)).toBeNull();
    const again = new Date('2026-12-02T12:00:00Z');
    await write(id, { suspendedAt: again });
    expect((await suspendedAt(id))?.toISOString()).toBe(again.toISOString());
    // The other row is untouched: the id is the placeholder's, not the first call's.
    expect(await suspendedAt(2 ** 33 + 2)).toBeNull();
  });

  it('keeps two long names that share a long prefix apart (Postgres keeps 63 bytes)', async () => {
    const prefix = 'a_statement_name_far_longer_than_the_sixty_three_bytes_postgres_keeps_of_it_';
    const one = prepared.get(`${prefix}one`, (db) =>
      db
        .select({ n: sql<number>`1`.as('n') })
        .from(installations)
        .limit(1),
    );
    const two = prepared.get(`${prefix}two`, (db) =>
      db
        .select({ n: sql<number>`2`.as('n') })
        .from(installations)
        .limit(1),
    );
    for (let i = 0; i < 3; i++) {
      expect(await one.execute()).toEqual([{ n: 1 }]);
      expect(await two.execute()).toEqual([{ n: 2 }]);
    }
  });
});
