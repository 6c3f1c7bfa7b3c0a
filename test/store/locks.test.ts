import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase, rowsOf, type DatabaseHandle } from '../../src/store/database.js';
import { LOCK_KEYS } from '../../src/store/lock-keys.js';
import { createStore, type Store } from '../../src/store/index.js';
import { planOf, plannedRun, taskSpec } from '../helpers/planned-run.js';
import { createTestDatabase } from '../helpers/postgres.js';

/**
 * The advisory locks of src/store/database.ts, and the dispatch claim's, across processes: two
 * handles on one database are two replicas. A merge turn (MergeTurns.take, on withLockOpening)
 * sends its unlock without waiting for the answer; the lock must still be exclusive while held
 * and free for the next taker after.
 */
describe('advisory locks between two replicas', () => {
  let one: DatabaseHandle;
  let two: DatabaseHandle;
  let drop: () => Promise<void>;
  let url: string;
  const key = LOCK_KEYS.repositoryMerges(4711);
  const stores = new Map<DatabaseHandle, Store>();
  /** A merge turn of repository 4711 on `replica`; run 0 has nothing to read. */
  const mergeTurn = <T>(replica: DatabaseHandle, fn: () => Promise<T>) =>
    stores.get(replica)!.mergeTurns.take(4711, 0, () => fn());

  beforeAll(async () => {
    const database = await createTestDatabase(inject('templateDatabase'));
    url = database.url;
    drop = database.drop;
    one = await openDatabase({ databaseUrl: database.url, poolSize: 3 });
    two = await openDatabase({ databaseUrl: database.url, poolSize: 3 });
    for (const replica of [one, two]) stores.set(replica, createStore(replica));
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
        await mergeTurn(replica, async () => {
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
      expect(await mergeTurn(one, async () => i)).toBe(i);
      // Would wait forever if the unlock were lost.
      expect(await mergeTurn(two, async () => i * 2)).toBe(i * 2);
    }
    await expect(
      mergeTurn(one, async () => {
        throw new Error('the holder failed');
      }),
    ).rejects.toThrow('the holder failed');
    expect(await mergeTurn(two, async () => 'taken')).toBe('taken');
  });

  it('is taken by waiting: a try-lock meanwhile on the other replica is refused', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const holder = mergeTurn(one, async () => {
      entered();
      await held;
    });
    await inside;
    expect(await two.tryExclusive(key, async () => 'got it')).toBeUndefined();
    release();
    await holder;
    expect(await mergeTurn(two, async () => 'after')).toBe('after');
  });

  it('runs the holder’s statements on the lock’s own connection, and its transactions apart', async () => {
    const holdsTheLock = async (db: DatabaseHandle['db']) => {
      const [row] = rowsOf<{ held: boolean }>(
        await db.execute(sql`select exists (select 1 from pg_locks
           where locktype = 'advisory' and granted and pid = pg_backend_pid()) as held`),
      );
      return row!.held;
    };
    const seen = await mergeTurn(one, async () => {
      // Side by side, as the merge view's reads are: both on the one connection, in turn.
      const both = await Promise.all([holdsTheLock(one.db), holdsTheLock(one.db)]);
      const inTransaction = await one.db.transaction((tx) => holdsTheLock(tx));
      return { both, inTransaction };
    });
    expect(seen).toEqual({ both: [true, true], inTransaction: false });
    // Outside a turn, statements go to the pool as before.
    expect(await holdsTheLock(one.db)).toBe(false);
  });

  it('sends the holder’s statements one after another, never onto a busy connection', async () => {
    // pg deprecates a query sent to a client still running one (pg 9 will refuse it): record
    // every such call. A handle opened now, so that its connections see the spy.
    const onBusy: string[] = [];
    const query = pg.Client.prototype.query;
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (
      this: pg.Client,
      ...args: unknown[]
    ) {
      const queue = (this as unknown as { _queryQueue: unknown[] })._queryQueue;
      const [first] = args as [string | { text: string }];
      if (queue.length > 0) onBusy.push(typeof first === 'string' ? first : first.text);
      return (query as (...a: unknown[]) => unknown).apply(this, args) as never;
    });
    const three = await openDatabase({ databaseUrl: url, poolSize: 3 });
    try {
      const slow = () => three.db.execute(sql`select pg_sleep(0.02)`);
      let leftRunning: Promise<unknown> | undefined;
      await createStore(three).mergeTurns.take(4711, 0, async () => {
        await Promise.all([slow(), slow(), slow()]);
        // Still in flight when the holder settles: the unlock waits for it.
        leftRunning = slow();
      });
      await leftRunning;
      expect(onBusy).toEqual([]);
      // The lock is free again.
      expect(await three.tryExclusive(key, async () => 'free')).toBe('free');
    } finally {
      spy.mockRestore();
      await three.close();
    }
  });

  it('opens a turn with what the previous holder wrote, however long it waited', async () => {
    const store = stores.get(one)!;
    await store.repositories.ensureRepository(9, { id: 4711, owner: 'acme', name: 'turns' });
    const run = await plannedRun(store, 4711, 1, planOf(taskSpec('a')));
    const taskId = (await store.runs.task(run.id, 'a'))!.id;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const holder = store.mergeTurns.take(4711, run.id, async (opened) => {
      entered();
      await held;
      await store.runs.updateTaskFields(taskId, { held: true });
      return opened.graph.byKey.get('a')?.held;
    });
    await inside;
    // The other replica's turn opens while the first is held: its read must come after the wait
    // (a read in the lock's own statement would see the task as it was before the update).
    const waiting = stores
      .get(two)!
      .mergeTurns.take(4711, run.id, async (opened) => opened.graph.byKey.get('a')?.held);
    release();
    expect(await holder).toBe(false);
    expect(await waiting).toBe(true);
  });

  it('a dispatch claim with no slot left anywhere returns at once, without the repository lock', async () => {
    const store = createStore(one);
    await store.repositories.ensureRepository(9, { id: 4712, owner: 'acme', name: 'full' });
    await plannedRun(store, 4712, 1, planOf(taskSpec('a')));
    // The other replica is in the middle of this repository's claim.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const other = two.withLockOpening(
      LOCK_KEYS.repositoryDispatch(4712),
      (lockKey) => ({ text: 'select pg_advisory_lock($1::bigint)', values: [lockKey] }),
      async () => {
        entered();
        await held;
      },
    );
    await inside;
    // Global limit 0: full. Without the pre-check this would wait for the other replica.
    const now = new Date();
    expect(
      await store.attempts.claimDispatches(4712, { repoLimit: 5, globalLimit: 0, now }),
    ).toEqual([]);
    // With room, the claim waits for the lock, then claims.
    const claim = store.attempts.claimDispatches(4712, { repoLimit: 5, globalLimit: 10, now });
    release();
    await other;
    expect((await claim).map((i) => i.task.taskKey)).toEqual(['a']);
  });
});
