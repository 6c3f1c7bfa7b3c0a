import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/store/database.js';
import { DeliveryStore } from '../../src/store/deliveries.js';
import { ENGINES } from '../helpers/engines.js';

describe.each(ENGINES)('delivery ledger on $name', (engine) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let store: DeliveryStore;

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    store = new DeliveryStore(handle.db);
  });
  afterAll(() => dispose());

  const delivery = (id: string) => ({
    id,
    event: 'issues',
    action: 'labeled',
    installationId: 2 ** 33 + 1,
    repositoryId: 2 ** 32 + 7,
    payload: { action: 'labeled', n: id },
  });

  it('accepts a new delivery once and calls a repeat a duplicate', async () => {
    expect(await store.record(delivery('d-1'))).toBe('accepted');
    expect(await store.record(delivery('d-1'))).toBe('duplicate');
    const row = await store.get('d-1');
    expect(row?.installationId).toBe(2 ** 33 + 1);
    expect(row?.repositoryId).toBe(2 ** 32 + 7);
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

  it('reclaims a delivery whose processor died mid-way (stale lock)', async () => {
    await store.record(delivery('d-5'));
    expect((await store.claim('dead', 1)).map((d) => d.id)).toEqual(['d-5']);
    expect(await store.claim('alive', 1, 60_000)).toEqual([]);
    expect((await store.claim('alive', 1, -1_000)).map((d) => d.id)).toEqual(['d-5']);
    await store.complete('d-5');
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
});
