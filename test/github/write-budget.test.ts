import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import {
  GITHUB_WRITE_LIMITS,
  REAL_CLOCK,
  WriteBudget,
  type WritePriority,
  type WriteTicket,
} from '../../src/github/write-budget.js';
import { classifyWrite } from '../../src/github/write-budget-octokit.js';
import { createMetrics } from '../../src/metrics.js';
import { countStatements } from '../../src/store/statement-count.js';
import { openDatabase, type DatabaseHandle } from '../../src/store/database.js';
import { WriteReservationStore, type WriteLimits } from '../../src/store/write-reservations.js';
import { ENGINES } from '../helpers/engines.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { Exposition } from '../helpers/prometheus.js';
import { ManualTime } from './manual-clock.js';

const INSTALLATION = 2 ** 33 + 5;
/** Tests of the window alone: a pace as fast as the window, with no part kept for the critical path. */
const LIMITS: WriteLimits = {
  perWindow: 3,
  windowMs: 60_000,
  burst: 3,
  criticalBurst: 0,
  creatingPerLongWindow: 2,
  longWindowMs: 3_600_000,
  inFlightLeaseMs: 600_000,
};

describe.each(ENGINES)('write reservations on $name', (engine) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let store: WriteReservationStore;
  let installation = INSTALLATION;

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    store = new WriteReservationStore(handle.db);
  });
  afterAll(() => dispose());

  const at = (s: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + s * 1000);
  const plain = { priority: 'advance', createsContent: false } as const;
  const creating = { priority: 'advance', createsContent: true } as const;

  it('grants the window’s writes, then names when the oldest leaves it', async () => {
    const id = ++installation;
    for (const s of [0, 10, 20]) {
      const r = await store.reserve(id, plain, at(s), LIMITS);
      expect(r.granted).toBe(true);
      if (r.granted) await store.markSent(r.id, at(s + 1));
    }
    const denied = await store.reserve(id, plain, at(30), LIMITS);
    // The first write was answered at 1 s: it counts until 61 s.
    expect(denied).toEqual({ granted: false, retryAt: at(61), window: 'short' });
    expect((await store.reserve(id, plain, at(60.999), LIMITS)).granted).toBe(false);
    expect((await store.reserve(id, plain, at(61), LIMITS)).granted).toBe(true);
    // Another installation has a budget of its own.
    expect((await store.reserve(id + 1000, plain, at(30), LIMITS)).granted).toBe(true);
  });

  it('counts a write still in flight, however old its reservation, until its lease ends', async () => {
    const id = ++installation;
    for (let i = 0; i < 3; i++)
      expect((await store.reserve(id, plain, at(0), LIMITS)).granted).toBe(true);
    // Never answered: at 500 s they are still in flight (GitHub may receive them any moment).
    const later = await store.reserve(id, plain, at(500), LIMITS);
    expect(later).toEqual({ granted: false, retryAt: at(560), window: 'short' });
    // Past the lease they are taken for a dead process's and no longer count.
    expect((await store.reserve(id, plain, at(601), LIMITS)).granted).toBe(true);
  });

  it('limits content creation per hour while other writes still go', async () => {
    const id = ++installation;
    for (const s of [0, 100]) {
      const r = await store.reserve(id, creating, at(s), LIMITS);
      expect(r.granted).toBe(true);
      if (r.granted) await store.markSent(r.id, at(s));
    }
    expect(await store.reserve(id, creating, at(200), LIMITS)).toEqual({
      granted: false,
      retryAt: at(3600),
      window: 'long',
    });
    expect((await store.reserve(id, plain, at(200), LIMITS)).granted).toBe(true);
    expect((await store.reserve(id, creating, at(3600), LIMITS)).granted).toBe(true);
  });

  it('paces the writes: a burst at most, then the window’s rate, part of it for the critical path', async () => {
    const id = ++installation;
    // A write a second, four at once at most, the last two of them for the critical path.
    const paced: WriteLimits = { ...LIMITS, perWindow: 60, burst: 4, criticalBurst: 2 };
    const edit = { priority: 'report', createsContent: false } as const;
    for (let i = 0; i < 2; i++)
      expect((await store.reserve(id, edit, at(0), paced)).granted).toBe(true);
    // What is left of the burst is the critical path's.
    expect(await store.reserve(id, edit, at(0), paced)).toEqual({
      granted: false,
      retryAt: at(1),
      window: 'short',
    });
    for (let i = 0; i < 2; i++)
      expect((await store.reserve(id, plain, at(0), paced)).granted).toBe(true);
    expect(await store.reserve(id, plain, at(0), paced)).toEqual({
      granted: false,
      retryAt: at(1),
      window: 'short',
    });
    // Then one a second, though the window has room for 56 more.
    expect((await store.reserve(id, plain, at(1), paced)).granted).toBe(true);
    expect((await store.reserve(id, plain, at(1.5), paced)).granted).toBe(false);
    expect((await store.reserve(id, plain, at(2), paced)).granted).toBe(true);
    // The status edit waits until the critical part is whole again.
    expect(await store.reserve(id, edit, at(2), paced)).toEqual({
      granted: false,
      retryAt: at(5),
      window: 'short',
    });
    expect(await store.nextFreeAt(id, at(2), paced)).toEqual(at(3));
  });

  it('prunes the rows no window counts any more', async () => {
    const id = ++installation;
    for (const [s, creates] of [
      [0, false],
      [0, true],
    ] as const) {
      const r = await store.reserve(
        id,
        { priority: 'advance', createsContent: creates },
        at(s),
        LIMITS,
      );
      if (r.granted) await store.markSent(r.id, at(s));
    }
    // At 120 s the plain write left every window; the creating one still counts for the hour.
    await store.reserve(id, plain, at(120), LIMITS);
    const rows = await handle.db.execute(
      `select creates_content from github_write_reservations where installation_id = ${id} order by id` as never,
    );
    const list = ((rows as { rows?: unknown[] }).rows ?? rows) as Array<{
      creates_content: boolean;
    }>;
    expect(list.map((r) => r.creates_content)).toEqual([true, false]);
  });
});

describe('write budget queue', () => {
  let database: TestDatabase;
  const handles: DatabaseHandle[] = [];
  let installation = INSTALLATION + 100;

  beforeAll(async () => {
    database = await createTestDatabase(inject('templateDatabase'));
    // Two pools on one database: two replicas.
    for (let i = 0; i < 2; i++)
      handles.push(await openDatabase({ databaseUrl: database.url, poolSize: 4 }));
  });
  afterAll(async () => {
    for (const handle of handles) await handle.close();
    await database.drop();
  });

  /** Granted writes whose answer is not recorded yet. */
  let sending = 0;

  interface Granted {
    label: string;
    at: number;
    ticket: WriteTicket;
  }

  /** Acquire in order; record grants as they happen. */
  const acquireAll = (
    budget: WriteBudget,
    time: ManualTime,
    id: number,
    requests: Array<{ label: string; priority: WritePriority; createsContent?: boolean }>,
    granted: Granted[],
  ) =>
    Promise.all(
      requests.map(async ({ label, priority, createsContent }) => {
        const ticket = await budget.acquire(id, { priority, createsContent: !!createsContent });
        granted.push({ label, at: time.now().getTime(), ticket });
        // Answered at once: time does not move until it is recorded (see stepUntilDone).
        sending++;
        await ticket.sent();
        sending--;
        time.changed();
      }),
    );

  /** Step time to each next wake-up while anything waits (only once every pump sleeps). */
  const stepUntilDone = async (
    time: ManualTime,
    parts: Array<{ budget: WriteBudget; clock: { sleeping: boolean } }>,
    done: Promise<unknown>,
  ) => {
    let finished = false;
    void done.finally(() => {
      finished = true;
      time.changed();
    });
    for (;;) {
      await time.until(
        () =>
          finished ||
          (sending === 0 && parts.every((p) => p.budget.queued === 0 || p.clock.sleeping)),
      );
      if (finished) return;
      const next = time.nextWake();
      if (next === undefined) continue;
      time.advanceTo(next);
    }
  };

  it('lets writes wait by priority, then arrival, and tells when the next goes', async () => {
    const time = new ManualTime();
    const clock = time.clock();
    const metrics = createMetrics();
    const budget = new WriteBudget({
      reservations: new WriteReservationStore(handles[0]!.db),
      limits: { ...LIMITS, perWindow: 1, burst: 1 },
      clock,
      metrics,
    });
    const id = ++installation;
    const granted: Granted[] = [];
    // The first takes the window; the rest queue behind it in this arrival order.
    await acquireAll(budget, time, id, [{ label: 'first', priority: 'report' }], granted);
    const rest = acquireAll(
      budget,
      time,
      id,
      [
        { label: 'status edit', priority: 'report' },
        { label: 'branch', priority: 'prepare' },
        { label: 'check run', priority: 'report' },
        { label: 'merge', priority: 'advance' },
        { label: 'dispatch', priority: 'advance' },
      ],
      granted,
    );
    await time.until(() => clock.sleeping);
    expect(await budget.nextWriteInSeconds(id)).toBe(60);
    expect(budget.queued).toBe(5);
    const exposition = new Exposition(await metrics.registry.metrics());
    expect(exposition.value('agent_coordinator_github_writes_queued')).toBe(5);
    time.advance(12_000);
    expect(await budget.nextWriteInSeconds(id)).toBe(48);
    await stepUntilDone(time, [{ budget, clock }], rest);
    expect(granted.map((g) => g.label)).toEqual([
      'first',
      'merge',
      'dispatch',
      'branch',
      'status edit',
      'check run',
    ]);
    // One a minute, each as soon as the last left the window.
    const start = granted[0]!.at;
    expect(granted.map((g) => (g.at - start) / 1000)).toEqual([0, 60, 120, 180, 240, 300]);
    // The last write fills the window again: the next one, from any replica, waits for it.
    expect(await budget.nextWriteInSeconds(id)).toBe(60);
    const otherReplica = new WriteBudget({
      reservations: new WriteReservationStore(handles[1]!.db),
      limits: { ...LIMITS, perWindow: 1, burst: 1 },
      clock: time.clock(),
    });
    expect(await otherReplica.nextWriteInSeconds(id)).toBe(60);
    time.advance(60_000);
    expect(await budget.nextWriteInSeconds(id)).toBeUndefined();
    const after = new Exposition(await metrics.registry.metrics());
    expect(after.value('agent_coordinator_github_writes_queued')).toBe(0);
    expect(after.value('agent_coordinator_github_write_wait_seconds_count')).toBe(6);
    expect(after.value('agent_coordinator_github_write_wait_seconds_sum')).toBe(
      60 + 120 + 180 + 240 + 300,
    );
  });

  it('keeps the last fifth of the window for the critical path, which goes at once', async () => {
    const time = new ManualTime();
    const clock = time.clock();
    const budget = new WriteBudget({
      reservations: new WriteReservationStore(handles[0]!.db),
      limits: { ...LIMITS, perWindow: 5, burst: 5 },
      clock,
    });
    const id = ++installation;
    const granted: Granted[] = [];
    // Four status edits fill what other writes may use of a window of five; the fifth waits.
    const edits = acquireAll(
      budget,
      time,
      id,
      Array.from({ length: 5 }, (_, i) => ({ label: `edit ${i}`, priority: 'report' as const })),
      granted,
    );
    await time.until(() => clock.sleeping && sending === 0);
    expect(granted.map((g) => g.label)).toEqual(['edit 0', 'edit 1', 'edit 2', 'edit 3']);
    // A dispatch arriving now takes the reserved slot without waiting for the window to move.
    await acquireAll(budget, time, id, [{ label: 'dispatch', priority: 'advance' }], granted);
    expect(granted.map((g) => g.label).slice(4)).toEqual(['dispatch']);
    expect(granted.at(-1)!.at).toBe(granted[0]!.at);
    expect(budget.queued).toBe(1);
    // The waiting edit goes once the first write leaves the window.
    await stepUntilDone(time, [{ budget, clock }], edits);
    expect(granted.at(-1)!.label).toBe('edit 4');
    expect(Math.round((granted.at(-1)!.at - granted[0]!.at) / 1000)).toBe(60);
  });

  it('costs a few statements a write, whatever its priority', async () => {
    const budget = new WriteBudget({ reservations: new WriteReservationStore(handles[0]!.db) });
    const id = ++installation;
    const cost = async (priority: WritePriority, createsContent: boolean) =>
      (
        await countStatements(async () => {
          const ticket = await budget.acquire(id, { priority, createsContent });
          await ticket.sent();
        })
      ).statements;
    // The reservation (its transaction: begin, the lock, the window's count, the prune, the
    // insert, commit), the hour's count for a write that creates content, and the answer's stamp.
    expect(await cost('advance', false)).toBe(7);
    expect(await cost('report', false)).toBe(7);
    expect(await cost('prepare', true)).toBe(8);
  });

  it('counts each write’s reservation for the delivery that asked for it', async () => {
    const budget = new WriteBudget({ reservations: new WriteReservationStore(handles[0]!.db) });
    const id = ++installation;
    const write = { priority: 'advance', createsContent: false } as const;
    let bGranted!: () => void;
    const bWasGranted = new Promise<void>((resolve) => (bGranted = resolve));
    // Two deliveries side by side: the first starts the queue's pump; the second's write waits
    // behind the first's reservation, and the first stays open until the second is granted.
    const [a, b] = await Promise.all([
      countStatements(async () => {
        const ticket = await budget.acquire(id, write);
        await bWasGranted;
        await ticket.sent();
      }),
      countStatements(async () => {
        const ticket = await budget.acquire(id, write);
        bGranted();
        await ticket.sent();
      }),
    ]);
    // Each: its reservation (6) and its answer's stamp.
    expect([a.statements, b.statements]).toEqual([7, 7]);
  });

  it('clears the wait’s timer when a more urgent write wakes the queue early', async () => {
    const time = new ManualTime();
    const clock = time.clock();
    const budget = new WriteBudget({
      reservations: new WriteReservationStore(handles[0]!.db),
      limits: { ...LIMITS, perWindow: 1, burst: 1 },
      clock,
    });
    const id = ++installation;
    const granted: Granted[] = [];
    await acquireAll(budget, time, id, [{ label: 'first', priority: 'report' }], granted);
    const edit = acquireAll(budget, time, id, [{ label: 'edit', priority: 'report' }], granted);
    await time.until(() => clock.sleeps === 1);
    const merge = acquireAll(budget, time, id, [{ label: 'merge', priority: 'advance' }], granted);
    // Woken, it asks again, is told to wait again, and waits once: the first wait is gone.
    await time.until(() => clock.sleeps === 2);
    expect(time.sleepersOf(clock)).toBe(1);
    await stepUntilDone(time, [{ budget, clock }], Promise.all([edit, merge]));
    expect(granted.map((g) => g.label)).toEqual(['first', 'merge', 'edit']);
  });

  it('closing fails the waiting writes and ends their waits', async () => {
    const time = new ManualTime();
    const clock = time.clock();
    const budget = new WriteBudget({
      reservations: new WriteReservationStore(handles[0]!.db),
      limits: { ...LIMITS, perWindow: 1, burst: 1 },
      clock,
    });
    const id = ++installation;
    await (await budget.acquire(id, { priority: 'report', createsContent: false })).sent();
    const waiting = budget.acquire(id, { priority: 'report', createsContent: false });
    await time.until(() => clock.sleeping);
    budget.close();
    await expect(waiting).rejects.toThrow('the write budget is closed');
    // Nothing is left waiting for the window to move: no timer holds the process.
    expect(clock.sleeping).toBe(false);
    expect(budget.queued).toBe(0);
  });

  it('closing lets a write go whose reservation is under way once its queue woke', async () => {
    const time = new ManualTime();
    const clock = time.clock();
    const store = new WriteReservationStore(handles[0]!.db);
    const held: { gate?: Promise<void>; reserving?: () => void } = {};
    const budget = new WriteBudget({
      reservations: {
        reserve: async (...args) => {
          held.reserving?.();
          await held.gate;
          return store.reserve(...args);
        },
        markSent: (id, at) => store.markSent(id, at),
      },
      limits: { ...LIMITS, perWindow: 1, burst: 1 },
      clock,
    });
    const id = ++installation;
    const granted: Granted[] = [];
    await acquireAll(budget, time, id, [{ label: 'a', priority: 'report' }], granted);
    const rest = acquireAll(
      budget,
      time,
      id,
      [
        { label: 'b', priority: 'report' },
        { label: 'c', priority: 'report' },
      ],
      granted,
    );
    // b goes a minute later; c waits another.
    await time.until(() => clock.sleeps === 1);
    time.advanceTo(time.nextWake()!);
    await time.until(() => clock.sleeps === 2 && sending === 0);
    expect(granted.map((g) => g.label)).toEqual(['a', 'b']);
    // Woken, the queue asks again for c; the budget closes while it asks, and the window has
    // room: c goes.
    let open!: () => void;
    held.gate = new Promise<void>((resolve) => (open = resolve));
    const asking = new Promise<void>((resolve) => (held.reserving = resolve));
    time.advanceTo(time.nextWake()!);
    await asking;
    budget.close();
    open();
    await rest;
    expect(granted.map((g) => g.label)).toEqual(['a', 'b', 'c']);
  });

  it('the real clock’s wait, ended early, leaves no timer behind', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const wake = new AbortController();
    const slept = REAL_CLOCK.sleep(3_600_000, wake.signal);
    expect(timers()).toBe(before + 1);
    wake.abort();
    await slept;
    expect(timers()).toBe(before);
  });

  it('loses no write that queues in front of one whose reservation is under way', async () => {
    const time = new ManualTime();
    const store = new WriteReservationStore(handles[0]!.db);
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    let reserving!: () => void;
    const reserveStarted = new Promise<void>((resolve) => (reserving = resolve));
    const budget = new WriteBudget({
      reservations: {
        reserve: async (...args) => {
          reserving();
          await gate;
          return store.reserve(...args);
        },
        markSent: (id, at) => store.markSent(id, at),
      },
      limits: LIMITS,
      clock: time.clock(),
    });
    const id = ++installation;
    const granted: Granted[] = [];
    const first = acquireAll(
      budget,
      time,
      id,
      [{ label: 'check run', priority: 'report' }],
      granted,
    );
    await reserveStarted;
    const urgent = acquireAll(budget, time, id, [{ label: 'merge', priority: 'advance' }], granted);
    openGate();
    await Promise.all([first, urgent]);
    expect(granted.map((g) => g.label)).toEqual(['check run', 'merge']);
  });

  it('lets a write that creates nothing pass one held by the hourly content limit', async () => {
    const time = new ManualTime();
    const clock = time.clock();
    const budget = new WriteBudget({
      reservations: new WriteReservationStore(handles[0]!.db),
      limits: { ...LIMITS, perWindow: 100, creatingPerLongWindow: 1 },
      clock,
    });
    const id = ++installation;
    const granted: Granted[] = [];
    await acquireAll(
      budget,
      time,
      id,
      [{ label: 'comment', priority: 'prepare', createsContent: true }],
      granted,
    );
    const rest = acquireAll(
      budget,
      time,
      id,
      [
        { label: 'reply', priority: 'advance', createsContent: true },
        { label: 'check run', priority: 'report' },
      ],
      granted,
    );
    await time.until(() => clock.sleeping);
    expect(granted.map((g) => g.label)).toEqual(['comment', 'check run']);
    expect(await budget.nextWriteInSeconds(id)).toBe(3600);
    await stepUntilDone(time, [{ budget, clock }], rest);
    expect(granted.map((g) => g.label)).toEqual(['comment', 'check run', 'reply']);
  });

  it('two replicas on one database never exceed the window or the pace together', async () => {
    const time = new ManualTime();
    const limits = GITHUB_WRITE_LIMITS;
    const parts = handles.map((handle) => {
      const clock = time.clock();
      return {
        clock,
        budget: new WriteBudget({
          reservations: new WriteReservationStore(handle.db),
          limits,
          clock,
        }),
      };
    });
    const id = ++installation;
    const granted: Granted[] = [];
    const priorities: WritePriority[] = ['advance', 'prepare', 'report'];
    // 250 writes, arriving together on both replicas.
    const all = Promise.all(
      parts.map((part, replica) =>
        acquireAll(
          part.budget,
          time,
          id,
          Array.from({ length: 125 }, (_, i) => ({
            label: `${replica}:${i}`,
            priority: priorities[i % 3]!,
          })),
          granted,
        ),
      ),
    );
    await stepUntilDone(time, parts, all);
    expect(granted).toHaveLength(250);
    const times = granted.map((g) => g.at).sort((a, b) => a - b);
    let max = 0;
    for (let end = 0, start = 0; end < times.length; end++) {
      while (times[end]! - times[start]! >= 60_000) start++;
      max = Math.max(max, end - start + 1);
    }
    expect(max).toBe(80);
    // Never more than the burst at once, and never the window in one go.
    const atOnce = new Map<number, number>();
    for (const t of times) atOnce.set(t, (atOnce.get(t) ?? 0) + 1);
    expect(Math.max(...atOnce.values())).toBe(limits.burst);
    // Both replicas wrote: the budget is shared, not split or taken by one.
    expect(new Set(granted.slice(0, 80).map((g) => g.label.split(':')[0])).size).toBe(2);
    // 250 at 80 a minute, a burst of them at once: the pace alone needs 0.75 s for each of the
    // rest; the window's reserve (a third of them are status edits, which stop at 64 in the
    // window) adds a little.
    const lastS = (times.at(-1)! - times[0]!) / 1000;
    expect(lastS).toBeGreaterThanOrEqual((250 - limits.burst) * 0.75);
    expect(lastS).toBeLessThan(4 * 60);
  });
});

describe('which requests are writes', () => {
  it('counts every non-GET request and GraphQL mutations, not token requests or queries', () => {
    expect(classifyWrite({ method: 'GET', url: '/repos/{owner}/{repo}' })).toBeNull();
    expect(
      classifyWrite({ method: 'POST', url: '/app/installations/{installation_id}/access_tokens' }),
    ).toBeNull();
    expect(
      classifyWrite({
        method: 'POST',
        url: 'http://h/api/graphql',
        query: 'query { viewer { login } }',
      }),
    ).toBeNull();
    expect(
      classifyWrite({
        method: 'POST',
        url: 'http://h/api/graphql',
        query:
          '  mutation($id: ID!) { dequeuePullRequest(input: { id: $id }) { clientMutationId } }',
        request: { writePriority: 'advance' },
      }),
    ).toEqual({ priority: 'advance', createsContent: false });
    expect(
      classifyWrite({
        method: 'PUT',
        url: '/repos/{owner}/{repo}/pulls/{pull_number}/merge',
        request: { writePriority: 'advance' },
      }),
    ).toEqual({ priority: 'advance', createsContent: false });
    expect(
      classifyWrite({
        method: 'POST',
        url: '/repos/{owner}/{repo}/issues/{issue_number}/comments',
      }),
    ).toEqual({ priority: 'report', createsContent: true });
    expect(
      classifyWrite({ method: 'PATCH', url: '/repos/{owner}/{repo}/issues/comments/{comment_id}' }),
    ).toEqual({ priority: 'report', createsContent: false });
    expect(classifyWrite({ method: 'POST', url: '/repos/{owner}/{repo}/check-runs' })).toEqual({
      priority: 'report',
      createsContent: false,
    });
  });
});
