import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createMetrics } from '../../src/metrics.js';
import type { DatabaseHandle } from '../../src/store/database.js';
import { DeliveryStore, type ClaimedDelivery } from '../../src/store/deliveries.js';
import { DeliveryProcessor, type ProcessorOptions } from '../../src/webhooks/processor.js';
import { IngestPressure } from '../../src/webhooks/pressure.js';
import { ENGINES } from '../helpers/engines.js';

const WAIT = { timeout: 10_000, interval: 10 };

/**
 * A handler the test drives: deliveries it `blocks` wait until released, those it `fails`
 * throw; it records who started, who finished and how many ran at once.
 */
class Handlers {
  readonly started: string[] = [];
  readonly finished: string[] = [];
  /** Blocked deliveries, in the order they started, with what releases each. */
  readonly blocked = new Map<string, () => void>();
  running = 0;
  maxRunning = 0;
  /** Set once the test is over: nothing blocks any more, so a failed test still stops. */
  private unblocked = false;

  constructor(
    private readonly blocks: (id: string) => boolean = () => false,
    private readonly fails: (id: string) => boolean = () => false,
  ) {}

  readonly handle = async (delivery: ClaimedDelivery): Promise<void> => {
    this.started.push(delivery.id);
    this.running += 1;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    try {
      if (this.blocks(delivery.id) && !this.unblocked)
        await new Promise<void>((resolve) => this.blocked.set(delivery.id, resolve));
      if (this.fails(delivery.id)) throw new Error(`handling ${delivery.id} failed on purpose`);
      this.finished.push(delivery.id);
    } finally {
      this.running -= 1;
    }
  };

  release(...ids: string[]): void {
    for (const id of ids) {
      const resolve = this.blocked.get(id);
      if (!resolve) throw new Error(`${id} is not blocked`);
      this.blocked.delete(id);
      resolve();
    }
  }

  releaseAll(): void {
    this.release(...this.blocked.keys());
  }

  unblock(): void {
    this.unblocked = true;
    this.releaseAll();
  }
}

/** Whether `promise` has settled once every callback already due has run (no timers). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe.each(ENGINES)('delivery processor on $name', (engine) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let store: DeliveryStore;
  const log = createLogger({ level: 'silent' });
  const metrics = createMetrics();
  const running: Array<{ processor: DeliveryProcessor; handlers: Handlers }> = [];
  let serial = 0;

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    store = new DeliveryStore(
      handle.db,
      (text, params, name) => handle.inboxQuery(text, params, name),
      (lock, unlock) => handle.holdSession(lock, unlock),
    );
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const { processor, handlers } of running.splice(0)) {
      handlers.unblock();
      await processor.stop();
    }
    // Each test starts with an empty inbox, even after one that failed half-way.
    await handle.db.execute(sql`delete from webhook_deliveries`);
  });
  afterAll(() => dispose());

  function processorWith(
    handlers: Handlers,
    options: Partial<Omit<ProcessorOptions, 'handle'>> = {},
  ): DeliveryProcessor {
    const processor = new DeliveryProcessor({
      deliveries: store,
      log,
      metrics,
      handle: handlers.handle,
      ...options,
    });
    running.push({ processor, handlers });
    return processor;
  }

  /** Ids that tell which test a delivery came from. */
  const ids = (name: string, n: number) => {
    const test = ++serial;
    return Array.from({ length: n }, (_, i) => `${name}-${test}-${i}`);
  };

  /** Stored together, as deliveries that arrive together are. */
  const record = async (...deliveryIds: string[]) => {
    const outcomes = await Promise.all(
      deliveryIds.map((id) => store.record({ id, event: 'issues', body: JSON.stringify({ id }) })),
    );
    expect(outcomes).toEqual(deliveryIds.map(() => 'accepted'));
  };

  const statuses = async (deliveryIds: string[]) =>
    (await Promise.all(deliveryIds.map((id) => store.get(id)))).map((row) => row?.status);
  const allDone = (deliveryIds: string[]) => deliveryIds.map(() => 'done');

  it("handles one repository's deliveries one at a time, in order, other repositories alongside", async () => {
    const [first, second, third, elsewhere] = ids('repo', 4) as [string, string, string, string];
    const inRepo = (id: string, repositoryId: number) =>
      store.record({ id, event: 'issues', repositoryId, body: JSON.stringify({ id }) });
    await inRepo(first, 11);
    await inRepo(second, 11);
    await inRepo(elsewhere, 12);
    const handlers = new Handlers((id) => id === first || id === second);
    const processor = processorWith(handlers, { concurrency: 8 });
    // The first settles while a claim is under way (after the claim saw its repository busy):
    // the drain must claim again rather than take the empty answer for an empty inbox.
    const claim = store.claim.bind(store);
    let releaseDuringClaim = false;
    vi.spyOn(store, 'claim').mockImplementation(async (...args) => {
      const claimed = await claim(...args);
      if (releaseDuringClaim) {
        releaseDuringClaim = false;
        handlers.release(first);
        await vi.waitFor(async () => expect(await statuses([first])).toEqual(['done']), WAIT);
      }
      return claimed;
    });
    processor.kick();
    await vi.waitFor(() => expect(handlers.blocked.has(first)).toBe(true), WAIT);
    await vi.waitFor(() => expect(handlers.finished).toContain(elsewhere), WAIT);
    await inRepo(third, 11);
    releaseDuringClaim = true;
    processor.kick();
    await vi.waitFor(() => expect(handlers.blocked.has(second)).toBe(true), WAIT);
    expect(handlers.started.filter((id) => id !== elsewhere)).toEqual([first, second]);
    handlers.release(second);
    await processor.whenIdle();
    expect(handlers.finished).toEqual([elsewhere, first, second, third]);
    expect(handlers.maxRunning).toBe(2);
  });

  it('holds its worker up while it runs: another process leaves its deliveries alone, and takes them once it stops', async () => {
    const [held, next] = ids('up', 2) as [string, string];
    const inRepo = (id: string) =>
      store.record({ id, event: 'issues', repositoryId: 21, body: JSON.stringify({ id }) });
    await inRepo(held);
    await inRepo(next);
    const handlers = new Handlers((id) => id === held);
    const processor = processorWith(handlers);
    processor.kick();
    await vi.waitFor(() => expect(handlers.blocked.has(held)).toBe(true), WAIT);
    // Another process, its lock fresh: the repository is busy with a delivery whose worker is up.
    expect(await store.claim('another-process', 10, 60_000)).toEqual([]);
    handlers.release(held);
    await processor.stop();
    // Stopped, its lock let go: nothing of it is left in hand, and the next one is free to take.
    expect((await store.claim('another-process', 10, 60_000)).map((d) => d.id)).toEqual([next]);
    await store.complete(next);
    expect(handlers.finished).toEqual([held]);
  });

  it('keeps handling the others while one delivery is slow', async () => {
    const [slow, ...others] = ids('slow', 6) as [string, ...string[]];
    await record(slow);
    await record(...others);
    const handlers = new Handlers((id) => id === slow);
    const processor = processorWith(handlers, { concurrency: 4 });
    processor.kick();

    await vi.waitFor(() => expect(handlers.blocked.has(slow)).toBe(true), WAIT);
    await vi.waitFor(async () => expect(await statuses(others)).toEqual(allDone(others)), WAIT);
    expect(handlers.finished.sort()).toEqual([...others].sort());
    expect(await statuses([slow])).toEqual(['processing']);
    let idle = false;
    const whenIdle = processor.whenIdle().then(() => (idle = true));
    expect(await settled(whenIdle)).toBe(false);

    handlers.release(slow);
    await whenIdle;
    expect(idle).toBe(true);
    expect(await statuses([slow, ...others])).toEqual(allDone([slow, ...others]));
    expect(handlers.finished).toHaveLength(6);
  });

  it('never has more than `concurrency` deliveries in hand, and uses all of them', async () => {
    const concurrency = 4;
    const batch = ids('width', 30);
    await record(...batch);
    const claim = vi.spyOn(store, 'claim');
    const handlers = new Handlers(() => true);
    const processor = processorWith(handlers, { concurrency });
    processor.kick();

    let released = 0;
    while (released < batch.length) {
      // Every slot is taken again (or every delivery left is in hand).
      const expected = Math.min(concurrency, batch.length - released);
      await vi.waitFor(() => expect(handlers.blocked.size).toBe(expected), WAIT);
      expect(handlers.running).toBeLessThanOrEqual(concurrency);
      // Two at a time: half the width frees up, which is worth a claim.
      const next = [...handlers.blocked.keys()].slice(0, 2);
      handlers.release(...next);
      released += next.length;
    }
    await processor.whenIdle();

    expect(handlers.finished.sort()).toEqual([...batch].sort());
    expect(handlers.maxRunning).toBe(concurrency);
    expect(await statuses(batch)).toEqual(allDone(batch));
    // Each claim asked for no more than the free slots beside those in hand.
    expect(claim.mock.calls.length).toBeGreaterThan(1);
    for (const [, limit, , inHand = []] of claim.mock.calls)
      expect(limit + inHand.length).toBeLessThanOrEqual(concurrency);
  });

  it('handles one delivery at a time under ingest pressure, and widens once it is off', async () => {
    const batch = ids('pressure', 6);
    await record(...batch);
    const pressure = new IngestPressure(2, 1_000);
    pressure.enter();
    pressure.enter();
    expect(pressure.high).toBe(true);
    const handlers = new Handlers(() => true);
    const processor = processorWith(handlers, { concurrency: 4, pressure });
    processor.kick();

    for (let i = 0; i < 2; i++) {
      await vi.waitFor(() => expect(handlers.blocked.size).toBe(1), WAIT);
      // Nothing else was claimed: the rest of the batch is still in the inbox.
      const states = await statuses(batch);
      expect(states.filter((s) => s === 'processing')).toHaveLength(1);
      expect(states.filter((s) => s === 'pending')).toHaveLength(batch.length - 1 - i);
      handlers.releaseAll();
      await vi.waitFor(() => expect(handlers.finished).toHaveLength(i + 1), WAIT);
    }
    expect(handlers.maxRunning).toBe(1);
    // Still one at a time: the third is in hand, and the second's slot is free again (until
    // then the widened claim would count it as taken and leave one delivery for later).
    await vi.waitFor(() => expect(handlers.blocked.size).toBe(1), WAIT);

    // The burst ends; no kick: the processor notices by itself.
    pressure.leave(0);
    pressure.leave(0);
    expect(pressure.high).toBe(false);
    await vi.waitFor(() => expect(handlers.blocked.size).toBe(4), WAIT);
    expect(handlers.maxRunning).toBe(4);

    await vi.waitFor(() => {
      handlers.releaseAll();
      expect(handlers.finished).toHaveLength(batch.length);
    }, WAIT);
    await processor.whenIdle();
    expect(await statuses(batch)).toEqual(allDone(batch));
  });

  it('picks up a delivery recorded while every slot is busy, and is idle only once it is done', async () => {
    const [a, b, late] = ids('busy', 3) as [string, string, string];
    await record(a, b);
    const handlers = new Handlers((id) => id !== late);
    const processor = processorWith(handlers, { concurrency: 2 });
    processor.kick();
    await vi.waitFor(() => expect(handlers.blocked.size).toBe(2), WAIT);

    // As the ingest does: store, then one kick.
    await record(late);
    processor.kick();
    let idle = false;
    const whenIdle = processor.whenIdle().then(() => (idle = true));

    handlers.release(a);
    await vi.waitFor(async () => expect(await statuses([late])).toEqual(['done']), WAIT);
    expect(handlers.blocked.has(b)).toBe(true);
    expect(idle).toBe(false);

    handlers.release(b);
    await whenIdle;
    expect(handlers.finished).toEqual([a, late, b]);
    expect(await statuses([a, b, late])).toEqual(allDone([a, b, late]));
  });

  it('handles a delivery recorded while a slow one is in hand at once', async () => {
    const [slow, late] = ids('beside', 2) as [string, string];
    await record(slow);
    const handlers = new Handlers((id) => id === slow);
    const processor = processorWith(handlers, { concurrency: 4 });
    processor.kick();
    await vi.waitFor(() => expect(handlers.blocked.has(slow)).toBe(true), WAIT);

    await record(late);
    processor.kick();
    await vi.waitFor(async () => expect(await statuses([late])).toEqual(['done']), WAIT);
    expect(handlers.blocked.has(slow)).toBe(true);

    handlers.release(slow);
    await processor.whenIdle();
    expect(await statuses([slow, late])).toEqual(allDone([slow, late]));
  });

  it('is not idle while a delivery recorded during the last empty claim waits', async () => {
    const [first, late] = ids('last-claim', 2) as [string, string];
    await record(first);
    const handlers = new Handlers();
    const processor = processorWith(handlers, { concurrency: 4 });
    const claim = store.claim.bind(store);
    let arrived = false;
    vi.spyOn(store, 'claim').mockImplementation(async (...args) => {
      const claimed = await claim(...args);
      // It lands just after the claim looked: only the ingest's kick tells.
      if (claimed.length === 0 && !arrived) {
        arrived = true;
        await record(late);
        processor.kick();
      }
      return claimed;
    });
    processor.kick();
    await processor.whenIdle();
    expect(arrived).toBe(true);
    expect(handlers.finished.sort()).toEqual([first, late].sort());
    expect(await statuses([first, late])).toEqual(allDone([first, late]));
  });

  it('is not idle while a delivery recorded during afterDrain waits', async () => {
    const [first, late] = ids('after-drain', 2) as [string, string];
    await record(first);
    const handlers = new Handlers();
    let drains = 0;
    const processor = processorWith(handlers, {
      concurrency: 4,
      afterDrain: async () => {
        drains += 1;
        if (drains > 1) return;
        await record(late);
        processor.kick();
      },
    });
    processor.kick();
    await processor.whenIdle();
    expect(drains).toBe(2);
    expect(handlers.finished).toEqual([first, late]);
    expect(await statuses([first, late])).toEqual(allDone([first, late]));
  });

  it.each([
    { maxAttempts: 5, status: 'pending', retried: true },
    { maxAttempts: 1, status: 'failed', retried: false },
  ])(
    'a failing handler with maxAttempts $maxAttempts leaves its delivery $status; the others complete',
    async ({ maxAttempts, status, retried }) => {
      const batch = ids('fails', 5);
      const broken = batch[2]!;
      await record(...batch);
      const handlers = new Handlers(
        () => false,
        (id) => id === broken,
      );
      const processor = processorWith(handlers, {
        concurrency: 2,
        maxAttempts,
        retryDelayMs: () => 60_000,
      });
      const before = Date.now();
      processor.kick();
      await processor.whenIdle();

      const others = batch.filter((id) => id !== broken);
      expect(handlers.finished.sort()).toEqual([...others].sort());
      expect(await statuses(others)).toEqual(allDone(others));
      // Not handled again right away.
      expect(handlers.started.filter((id) => id === broken)).toHaveLength(1);
      const row = await store.get(broken);
      expect(row).toMatchObject({
        status,
        attempts: 1,
        lockedBy: null,
        lastError: `handling ${broken} failed on purpose`,
      });
      if (retried) expect(row!.availableAt.getTime()).toBeGreaterThan(before + 50_000);
      else expect(row!.availableAt.getTime()).toBeLessThanOrEqual(Date.now() + 1_000);
    },
  );

  it('a claim that fails keeps the deliveries in hand: not idle, and never handled twice', async () => {
    const [slow, late, later] = ids('claim-fails', 3) as [string, string, string];
    await record(slow);
    const handlers = new Handlers((id) => id === slow);
    const processor = processorWith(handlers, { concurrency: 4 });
    processor.kick();
    await vi.waitFor(() => expect(handlers.blocked.has(slow)).toBe(true), WAIT);

    // The database goes away for one claim, while `slow` is being handled.
    const claim = vi
      .spyOn(store, 'claim')
      .mockRejectedValueOnce(new Error('Connection terminated unexpectedly'));
    await record(late);
    processor.kick();
    await vi.waitFor(() => expect(claim).toHaveBeenCalledTimes(1), WAIT);
    await expect(claim.mock.results[0]!.value).rejects.toThrow('Connection terminated');
    let idle = false;
    const whenIdle = processor.whenIdle().then(() => (idle = true));
    expect(await settled(whenIdle)).toBe(false);

    // It is back; the next delivery's kick must not take `slow` from its own handler.
    await record(later);
    processor.kick();
    expect(await statuses([slow])).toEqual(['processing']);
    expect(idle).toBe(false);

    handlers.release(slow);
    await whenIdle;
    expect(handlers.started.filter((id) => id === slow)).toHaveLength(1);
    expect(handlers.finished.sort()).toEqual([slow, late, later].sort());
    expect(await statuses([slow, late, later])).toEqual(allDone([slow, late, later]));
  });

  it('stop() waits for the deliveries in hand and claims no new ones', async () => {
    const [a, b, ...waiting] = ids('stop', 4) as [string, string, ...string[]];
    await record(a, b);
    await record(...waiting);
    const handlers = new Handlers((id) => id === a || id === b);
    const processor = processorWith(handlers, { concurrency: 2 });
    processor.kick();
    await vi.waitFor(() => expect(handlers.blocked.size).toBe(2), WAIT);

    let stopped = false;
    const stopping = processor.stop().then(() => (stopped = true));
    expect(await settled(stopping)).toBe(false);
    handlers.release(a);
    await vi.waitFor(async () => expect(await statuses([a])).toEqual(['done']), WAIT);
    // A slot is free, but nothing new is claimed.
    expect(await statuses(waiting)).toEqual(['pending', 'pending']);
    expect(stopped).toBe(false);

    handlers.release(b);
    await stopping;
    expect(handlers.started.sort()).toEqual([a, b].sort());
    expect(await statuses([a, b])).toEqual(allDone([a, b]));
    const rows = await Promise.all(waiting.map((id) => store.get(id)));
    expect(rows.map((r) => [r?.status, r?.attempts])).toEqual([
      ['pending', 0],
      ['pending', 0],
    ]);
    // A kick after stop does nothing.
    processor.kick();
    await processor.whenIdle();
    expect(handlers.started.sort()).toEqual([a, b].sort());
    expect(await statuses(waiting)).toEqual(['pending', 'pending']);

    // The next process handles what was left.
    const next = new Handlers();
    const successor = processorWith(next, { concurrency: 2 });
    successor.kick();
    await successor.whenIdle();
    expect(next.finished.sort()).toEqual([...waiting].sort());
    expect(await statuses(waiting)).toEqual(allDone(waiting));
  });
});
