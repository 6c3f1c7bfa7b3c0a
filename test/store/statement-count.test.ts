import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/store/database.js';
import { countStatements, countStatementsSettled } from '../../src/store/statement-count.js';
import { ENGINES } from '../helpers/engines.js';

describe.each(ENGINES)('statement counting on $name', (engine) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
  });
  afterAll(() => dispose());

  const select = () => handle.db.execute(sql`select 1`);

  it('counts each statement its own call sends, transaction control included', async () => {
    expect((await countStatements(async () => {})).statements).toBe(0);
    expect((await countStatements(select)).statements).toBe(1);
    const { value, statements } = await countStatements(() =>
      handle.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        await tx.execute(sql`select 2`);
        return 'committed';
      }),
    );
    expect(value).toBe('committed');
    // begin, the two selects, commit
    expect(statements).toBe(4);
    expect((await countStatements(() => handle.inboxQuery('select 1', []))).statements).toBe(1);
  });

  it('tells calls running side by side apart, and counts a nested call in both', async () => {
    const [two, three] = await Promise.all([
      countStatements(async () => {
        await select();
        await select();
      }),
      countStatements(() => Promise.all([select(), select(), select()])),
    ]);
    expect([two.statements, three.statements]).toEqual([2, 3]);
    // More at once than the pool has connections: a statement that waits for one still counts
    // where it was sent, not where the connection it runs on was freed.
    const many = (n: number) => () => Promise.all(Array.from({ length: n }, select));
    const crowded = await Promise.all([countStatements(many(9)), countStatements(many(5))]);
    expect(crowded.map((c) => c.statements)).toEqual([9, 5]);

    let inner = -1;
    const outer = await countStatements(async () => {
      await select();
      inner = (await countStatements(select)).statements;
    });
    expect([outer.statements, inner]).toEqual([2, 1]);
  });

  it('reports the count of a call that fails', async () => {
    let counted = -1;
    const failing = countStatementsSettled(
      async () => {
        await select();
        await handle.db.execute(sql`select * from no_such_table`);
      },
      (statements) => (counted = statements),
    );
    await expect(failing).rejects.toThrow();
    expect(counted).toBe(2);
  });
});
