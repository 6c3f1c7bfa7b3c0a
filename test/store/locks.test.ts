import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/store/database.js';
import { LOCK_KEYS } from '../../src/store/lock-keys.js';
import { createTestDatabase } from '../helpers/postgres.js';

/**
 * The advisory locks of src/store/database.ts across processes: two handles on one database are
 * two replicas. withLock sends its unlock without waiting for the answer; the lock must still be
 * exclusive while held and free for the next taker after.
 */
describe('advisory locks between two replicas', () => {
  let one: DatabaseHandle;
  let two: DatabaseHandle;
  let drop: () => Promise<void>;
  const key = LOCK_KEYS.repositoryMerges(4711);

  beforeAll(async () => {
    const database = await createTestDatabase(inject('templateDatabase'));
    drop = database.drop;
    one = await openDatabase({ databaseUrl: database.url, poolSize: 3 });
    two = await openDatabase({ databaseUrl: database.url, poolSize: 3 });
  });
  afterAll(async () => {
    await one.close();
    await two.close();
    await drop();
  });

  it('lets one holder in at a time across replicas, each taking its turns in order', async () => {
    let inside = 0;
    let most = 0;
    const entered: string[] = [];
    // Each replica's holders take turns in process first, as the engine's merge turns do: a
    // waiting holder holds a pooled connection while Postgres keeps it waiting.
    const turns = async (replica: DatabaseHandle, name: string) => {
      for (let i = 0; i < 6; i++)
        await replica.withLock(key, async () => {
          inside++;
          most = Math.max(most, inside);
          entered.push(`${name}${i}`);
          // A round trip while holding it: the other replica's holder would get in here.
          await replica.ping();
          inside--;
        });
    };
    await Promise.all([turns(one, 'one'), turns(two, 'two')]);
    expect(entered).toHaveLength(12);
    expect(most).toBe(1);
  });

  it('is free for the other replica as soon as the holder has returned, and after a throw', async () => {
    for (let i = 0; i < 5; i++) {
      expect(await one.withLock(key, async () => i)).toBe(i);
      // Would wait forever if the unlock were lost.
      expect(await two.withLock(key, async () => i * 2)).toBe(i * 2);
    }
    await expect(
      one.withLock(key, async () => {
        throw new Error('the holder failed');
      }),
    ).rejects.toThrow('the holder failed');
    expect(await two.withLock(key, async () => 'taken')).toBe('taken');
  });

  it('is taken by waiting: a try-lock meanwhile on the other replica is refused', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const holder = one.withLock(key, async () => {
      entered();
      await held;
    });
    await inside;
    expect(await two.tryExclusive(key, async () => 'got it')).toBeUndefined();
    release();
    await holder;
    expect(await two.withLock(key, async () => 'after')).toBe('after');
  });
});
