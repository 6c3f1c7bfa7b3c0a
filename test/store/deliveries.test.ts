import { brotliCompressSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { openDatabase, rowsOf, type DatabaseHandle } from '../../src/store/database.js';
import { DeliveryStore } from '../../src/store/deliveries.js';
import { ENGINES } from '../helpers/engines.js';
import { createTestDatabase } from '../helpers/postgres.js';

const WAIT = { timeout: 10_000, interval: 20 };

describe.each(ENGINES)('delivery ledger on $name', (engine) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let store: DeliveryStore;

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    store = new DeliveryStore(
      handle.db,
      (text, params, name) => handle.inboxQuery(text, params, name),
      (lock, unlock) => handle.holdSession(lock, unlock),
    );
    // The claimers below are up, each holding its session lock as a processor does.
    for (const worker of ['w1', 'w2', 'w3', 'a', 'b', 'c', 'd', 'hung', 'alive'])
      await store.holdWorker(worker);
  });
  afterAll(() => dispose());

  // Each delivery in a repository of its own unless told: one repository's are claimed one at
  // a time (tested below).
  let repositories = 0;
  const delivery = (id: string, repositoryId = 2 ** 32 + 1000 + ++repositories) => ({
    id,
    event: 'issues',
    action: 'labeled',
    installationId: 2 ** 33 + 1,
    repositoryId,
    body: JSON.stringify({ action: 'labeled', n: id }),
  });

  it('accepts a new delivery once and calls a repeat a duplicate', async () => {
    expect(await store.record(delivery('d-1'))).toBe('accepted');
    expect(await store.record(delivery('d-1'))).toBe('duplicate');
    const row = await store.get('d-1');
    expect(row?.installationId).toBe(2 ** 33 + 1);
    expect(row?.repositoryId).toBeGreaterThan(2 ** 32);
    expect(row?.status).toBe('pending');
  });

  it('hands a delivery to one claimer only, and not again once done', async () => {
    await store.record(delivery('d-2'));
    const first = await store.claim('w1', 10);
    const second = await store.claim('w2', 10);
    expect(first.map((d) => d.id)).toContain('d-2');
    expect(second.map((d) => d.id)).not.toContain('d-2');
    for (const d of first) await store.complete(d.id);
    expect(await store.record(delivery('d-2'))).toBe('duplicate');
    expect(await store.claim('w3', 10)).toEqual([]);
    expect((await store.get('d-2'))?.status).toBe('done');
  });

  it('handles a failed delivery again when GitHub redelivers it (same id)', async () => {
    await store.record(delivery('d-3'));
    const [claimed] = await store.claim('w1', 1);
    expect(claimed?.id).toBe('d-3');
    await store.fail('d-3', 'boom');
    expect(await store.claim('w1', 10)).toEqual([]);
    expect(await store.record(delivery('d-3'))).toBe('accepted');
    const [again] = await store.claim('w1', 1);
    expect(again).toMatchObject({ id: 'd-3', attempts: 2 });
    await store.complete('d-3');
  });

  it('retries a failed handling only once its backoff has passed', async () => {
    await store.record(delivery('d-4'));
    await store.claim('w1', 1);
    await store.fail('d-4', 'transient', new Date(Date.now() + 60_000));
    expect(await store.claim('w1', 10)).toEqual([]);
    await store.fail('d-4', 'transient', new Date(Date.now() - 1));
    expect((await store.claim('w1', 10)).map((d) => d.id)).toEqual(['d-4']);
    await store.complete('d-4');
  });

  it('reclaims a delivery whose processor hangs mid-way (stale lock)', async () => {
    await store.record(delivery('d-5'));
    expect((await store.claim('hung', 1)).map((d) => d.id)).toEqual(['d-5']);
    expect(await store.claim('alive', 1, 60_000)).toEqual([]);
    expect((await store.claim('alive', 1, -1_000)).map((d) => d.id)).toEqual(['d-5']);
    await store.complete('d-5');
  });

  it('reclaims at once a delivery whose processor is gone (no session holds its lock)', async () => {
    const repo = 2 ** 32 + 55;
    for (const id of ['g-1', 'g-2']) await store.record(delivery(id, repo));
    const gone = `gone-${engine.name}`;
    const release = await store.holdWorker(gone);
    expect((await store.claim(gone, 1)).map((d) => d.id)).toEqual(['g-1']);
    // Up: its repository is busy for everyone else.
    expect(await store.claim('alive', 10, 60_000)).toEqual([]);
    await release();
    // Gone, its lock fresh: the next claimer takes its delivery over, before the repository's next.
    expect((await store.claim('alive', 10, 60_000)).map((d) => d.id)).toEqual(['g-1']);
    await store.complete('g-1');
    expect((await store.claim('alive', 10, 60_000)).map((d) => d.id)).toEqual(['g-2']);
    await store.complete('g-2');
  });

  it('gives concurrent claimers disjoint sets', async () => {
    for (let i = 0; i < 20; i++) await store.record(delivery(`c-${i}`));
    const results = await Promise.all([
      store.claim('a', 8),
      store.claim('b', 8),
      store.claim('c', 8),
    ]);
    const ids = results.flat().map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(20);
    for (const id of ids) await store.complete(id);
  });

  it('hands out one delivery of a repository at a time, oldest first, others side by side', async () => {
    const repo = 2 ** 32 + 77;
    for (const id of ['r-1', 'r-2', 'r-3']) await store.record(delivery(id, repo));
    await store.record(delivery('r-other'));
    const first = await store.claim('w1', 10);
    expect(first.map((d) => d.id).sort()).toEqual(['r-1', 'r-other']);
    // r-1 is being handled: nobody, in this process or another, gets r-2 meanwhile.
    expect(await store.claim('w2', 10)).toEqual([]);
    expect(await store.claim('w1', 10, 60_000, ['r-1', 'r-other'])).toEqual([]);
    await store.complete('r-1');
    await store.complete('r-other');
    expect((await store.claim('w2', 10)).map((d) => d.id)).toEqual(['r-2']);
    // A handler that died does not hold its repository: its delivery goes to the next claimer.
    expect((await store.claim('w3', 10, -1_000)).map((d) => d.id)).toEqual(['r-2']);
    await store.complete('r-2');
    expect((await store.claim('w3', 10)).map((d) => d.id)).toEqual(['r-3']);
    await store.complete('r-3');
  });

  it('never lets concurrent claimers hold two deliveries of one repository', async () => {
    const repos = [2 ** 32 + 90, 2 ** 32 + 91, 2 ** 32 + 92];
    for (let i = 0; i < 30; i++) await store.record(delivery(`p-${i}`, repos[i % 3]));
    const seen: string[] = [];
    for (let round = 0; round < 10; round++) {
      const results = await Promise.all(['a', 'b', 'c', 'd'].map((w) => store.claim(w, 8)));
      const claimed = results.flat();
      const byRepo = await Promise.all(claimed.map((d) => store.get(d.id)));
      expect(new Set(byRepo.map((r) => r?.repositoryId)).size).toBe(claimed.length);
      expect(claimed).toHaveLength(3);
      for (const d of claimed) {
        seen.push(d.id);
        await store.complete(d.id);
      }
    }
    expect(seen.sort()).toEqual(Array.from({ length: 30 }, (_, i) => `p-${i}`).sort());
  });

  it('writes deliveries that arrive together in one batch, each with its own outcome', async () => {
    await store.record(delivery('b-0'));
    const outcomes = await Promise.all([
      store.record(delivery('b-0')),
      ...Array.from({ length: 30 }, (_, i) => store.record(delivery(`b-${i + 1}`))),
      store.record(delivery('b-1')),
    ]);
    expect(outcomes[0]).toBe('duplicate');
    expect(outcomes.slice(1, 31)).toEqual(Array(30).fill('accepted'));
    // The same id twice in flight: the first to arrive is handled, the other is a duplicate.
    expect(outcomes[31]).toBe('duplicate');
    const claimed = await store.claim('w-batch', 100);
    const body = claimed.find((d) => d.id === 'b-17')?.body ?? '';
    expect(JSON.parse(body)).toEqual({ action: 'labeled', n: 'b-17' });
    expect(claimed.map((d) => d.id).sort()).toEqual(
      Array.from({ length: 31 }, (_, i) => `b-${i}`).sort(),
    );
    expect(claimed.map((d) => d.receivedAt.getTime())).toEqual(
      claimed.map((d) => d.receivedAt.getTime()).sort((a, b) => a - b),
    );
    for (const d of claimed) await store.complete(d.id);
  });

  it("hands out one repository's deliveries in the order they arrived, even in one batch", async () => {
    const repo = 2 ** 32 + 55;
    // The first bodies are the largest, so their compression finishes last.
    const ids = Array.from({ length: 8 }, (_, i) => `o-${i}`);
    await Promise.all(
      ids.map((id, i) =>
        store.record({
          ...delivery(id, repo),
          body: JSON.stringify({ id, pad: 'y'.repeat(400_000 >> i) }),
        }),
      ),
    );
    const order: string[] = [];
    for (const _ of ids) {
      const [next] = await store.claim('w-order', 1);
      order.push(next?.id ?? 'none');
      await store.complete(next?.id ?? '');
    }
    expect(order).toEqual(ids);
  });

  it('takes back its own unfinished claims, but never one it is handling right now', async () => {
    await store.record(delivery('h-1'));
    await store.record(delivery('h-2'));
    const first = await store.claim('w-hand', 2);
    expect(first.map((d) => d.id)).toEqual(['h-1', 'h-2']);
    // h-1 is still being handled; h-2's outcome could not be written.
    const again = await store.claim('w-hand', 2, 60_000, ['h-1']);
    expect(again.map((d) => d.id)).toEqual(['h-2']);
    expect(again[0]?.attempts).toBe(2);
    await store.complete('h-1');
    await store.complete('h-2');
  });

  it('forgets settled deliveries older than the cut-off, and nothing in the inbox', async () => {
    await store.record(delivery('f-done'));
    await store.record(delivery('f-failed'));
    await store.record(delivery('f-pending'));
    const claimed = await store.claim('w-forget', 10);
    await store.complete('f-done');
    await store.fail('f-failed', 'gave up');
    await store.fail('f-pending', 'try later', new Date(Date.now() + 60_000));
    // All three are claimed (in what order is another test's business).
    expect(claimed.map((d) => d.id).sort()).toEqual(['f-done', 'f-failed', 'f-pending']);
    expect(await store.forget(new Date(Date.now() - 60_000))).toBe(0);
    expect(await store.forget(new Date(Date.now() + 60_000))).toBeGreaterThanOrEqual(2);
    expect(await store.get('f-done')).toBeUndefined();
    expect(await store.get('f-failed')).toBeUndefined();
    expect((await store.get('f-pending'))?.status).toBe('pending');
    // Forgotten means new again: a delivery this old is past GitHub's redelivery window.
    expect(await store.record(delivery('f-done'))).toBe('accepted');
    expect((await store.claim('w-forget', 10)).map((d) => d.id)).toEqual(['f-done']);
    await store.complete('f-done');
  });

  it('hands over a delivery stored before bodies were compressed (a jsonb payload)', async () => {
    await handle.db.execute(sql`
      insert into webhook_deliveries (delivery_id, event, payload)
      values ('legacy-1', 'issues', ${JSON.stringify({ action: 'opened', n: 'ü' })}::jsonb)`);
    const [claimed] = await store.claim('w-legacy', 1);
    expect(claimed?.id).toBe('legacy-1');
    expect(JSON.parse(claimed?.body ?? '')).toEqual({ action: 'opened', n: 'ü' });
    await store.complete('legacy-1');
  });

  it('keeps the body byte for byte, compressed by Postgres to a fraction of its size', async () => {
    const text = JSON.stringify({ action: 'created', comment: { body: 'x'.repeat(20_000) } });
    await store.record({ ...delivery('z-1'), body: text });
    const [stored] = rowsOf<{ text: string; size: number; method: string | null }>(
      await handle.db.execute(sql`
        select body_text as text, pg_column_size(body_text) as size,
               pg_column_compression(body_text) as method
          from webhook_deliveries where delivery_id = 'z-1'`),
    );
    expect(stored?.text).toBe(text);
    expect(Number(stored?.size)).toBeLessThan(text.length / 10);
    // lz4 where the server has it (db/migrations/0019); PGlite is built without it.
    expect(stored?.method).toBe(engine.name === 'postgres' ? 'lz4' : 'pglz');
    const [claimed] = await store.claim('w-z', 1);
    expect(claimed?.body).toBe(text);
    await store.complete('z-1');
  });

  it('hands over a delivery stored before 0019 (its body Brotli-compressed)', async () => {
    const text = JSON.stringify({ action: 'opened', issue: { title: 'ü'.repeat(300) } });
    await handle.db.execute(sql`
      insert into webhook_deliveries (delivery_id, event, body)
      values ('brotli-1', 'issues', ${brotliCompressSync(text)})`);
    const [claimed] = await store.claim('w-brotli', 1);
    expect(claimed?.id).toBe('brotli-1');
    expect(claimed?.body).toBe(text);
    await store.complete('brotli-1');
  });
});

describe('delivery inbox connections on postgres', () => {
  it('plan the completion once per connection, not on every call', async () => {
    const postgres = ENGINES.find((e) => e.name === 'postgres')!;
    const { handle, dispose } = await postgres.open();
    try {
      const store = new DeliveryStore(
        handle.db,
        (text, params, name) => handle.inboxQuery(text, params, name),
        (lock, unlock) => handle.holdSession(lock, unlock),
      );
      for (let round = 0; round < 8; round++) {
        const body = JSON.stringify({ action: 'labeled', round });
        await store.record({ id: `plan-${round}`, event: 'issues', repositoryId: 7, body });
        const [claimed] = await store.claim('w-plan', 1);
        await store.complete(claimed!.id);
      }
      // The pool hands out the connection released last: the one that ran the completions.
      const plans = await handle.inboxQuery<{ generic: string; custom: string }>(
        `select generic_plans as generic, custom_plans as custom
           from pg_prepared_statements where name = 'agent_coordinator_complete'`,
        [],
      );
      expect(plans).toHaveLength(1);
      expect(Number(plans[0]!.custom)).toBe(0);
      expect(Number(plans[0]!.generic)).toBeGreaterThan(0);
    } finally {
      await dispose();
    }
  });

  it('keep a worker up through a lost connection, and let it go with its process', async () => {
    const database = await createTestDatabase(inject('templateDatabase'));
    const up = await openDatabase({ databaseUrl: database.url, poolSize: 2 });
    // Another process on the same database: its worker's session ends when it does.
    const other = await openDatabase({ databaseUrl: database.url, poolSize: 2 });
    const storeOf = (handle: DatabaseHandle) =>
      new DeliveryStore(
        handle.db,
        (text, params, name) => handle.inboxQuery(text, params, name),
        (lock, unlock) => handle.holdSession(lock, unlock),
      );
    try {
      const [store, elsewhere] = [storeOf(up), storeOf(other)];
      await store.holdWorker('w-up');
      await elsewhere.holdWorker('w-other');
      const holder = async (worker: string) =>
        (
          await up.inboxQuery<{ pid: number }>(
            `select l.pid from pg_locks l
              where l.locktype = 'advisory' and l.granted and l.objsubid = 1
                and (l.classid::bigint << 32) | l.objid::bigint = inbox_worker_key($1)`,
            [worker],
          )
        )[0]?.pid;
      for (const id of ['lost-1', 'lost-2']) {
        const body = JSON.stringify({ id });
        await store.record({ id, event: 'issues', repositoryId: 8, body });
      }
      expect((await elsewhere.claim('w-other', 1, 60_000)).map((d) => d.id)).toEqual(['lost-1']);

      // The server ends the worker's session (a restart, a cut network): it takes the lock again.
      const first = await holder('w-up');
      expect(first).toBeDefined();
      await up.inboxQuery('select pg_terminate_backend($1)', [first]);
      await vi.waitFor(async () => {
        const again = await holder('w-up');
        expect(again).toBeDefined();
        expect(again).not.toBe(first);
      }, WAIT);

      // The other process is up: its delivery holds the repository.
      expect(await store.claim('w-up', 1, 60_000)).toEqual([]);
      // It ends (without a word: its connections close): its delivery is taken over at once.
      await other.close();
      expect((await store.claim('w-up', 1, 60_000)).map((d) => d.id)).toEqual(['lost-1']);
    } finally {
      await other.close().catch(() => {});
      await up.close();
      await database.drop();
    }
  });
});
