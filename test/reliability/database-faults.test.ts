import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  MAINTAINER,
  REPO,
  SPEC_EXAMPLE_PLAN,
  startScenario,
  statusComment,
  type Scenario,
} from '../e2e/harness.js';
import { createTestDatabase, TEST_SERVER_URL, type TestDatabase } from '../helpers/postgres.js';
import { drainScenario, redeliverFailed } from './reliability-helpers.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

const CONFIG = 'merge:\n  requireApproval: false\n';

type Pull = { number: number; head: { ref: string } };

/**
 * Drive the scenario to the end: GitHub redelivers what was answered non-2xx (simulated: the
 * test sends it again with its delivery id), deliveries and their retries run, and the sweep is
 * stepped by hand with the clock past its grace.
 */
async function finish(
  s: Scenario,
  issue: number,
): Promise<{ sweeps: number; failedSweeps: number; resent: number }> {
  const resent = new Set<string>();
  const issueState = () => (s.double.issue(REPO, issue) as { state: string }).state;
  let sweeps = 0;
  let failedSweeps = 0;
  // A sweep that loses its connection fails as a whole (the cron logs it and runs the next one).
  const sweep = async () => {
    sweeps++;
    await s.app.sweep().catch(() => failedSweeps++);
  };
  await redeliverFailed(s, resent);
  await drainScenario(s);
  for (let round = 0; round < 12 && issueState() === 'open'; round++) {
    s.clock.advance(31_000);
    await sweep();
    await redeliverFailed(s, resent);
    await drainScenario(s);
  }
  await sweep();
  await drainScenario(s);
  return { sweeps, failedSweeps, resent: resent.size };
}

/** The run completed, every PR merged once in dependency order, every attempt dispatched once. */
async function expectCompleted(s: Scenario, issue: number): Promise<void> {
  expect((s.double.issue(REPO, issue) as { state: string }).state).toBe('closed');
  expect(s.double.labels(REPO, issue)).toContain('agent:done');
  const taskOf = new Map(
    (s.double.pulls(REPO) as Pull[]).map((p) => [p.number, p.head.ref.split('/')[2]]),
  );
  const merges = s.double.requests
    .filter((r) => r.method === 'PUT' && r.path.endsWith('/merge') && r.status === 200)
    .map((r) => taskOf.get(Number(/\/pulls\/(\d+)\/merge$/.exec(r.path)![1])));
  expect(merges).toHaveLength(4);
  expect(new Set(merges).size).toBe(4);
  expect(merges[0]).toBe('task_001');
  expect(merges[3]).toBe('task_004');
  const perAttempt: Record<string, number> = {};
  for (const run of s.double.runs(REPO)) {
    const key = `${run.inputs.task_id}#${run.inputs.attempt}`;
    perAttempt[key] = (perAttempt[key] ?? 0) + 1;
  }
  expect(perAttempt).toEqual({
    'task_001#1': 1,
    'task_002#1': 1,
    'task_003#1': 1,
    'task_004#1': 1,
  });
  expect(statusComment(s.double, issue)).toContain('every task is merged');
  // None lost: every delivery GitHub sent is recorded and handled.
  for (const d of s.double.deliveries())
    expect((await s.app.store.deliveries.get(d.guid))?.status, `${d.event}.${d.action}`).toBe(
      'done',
    );
  s.double.assertNoViolations();
}

async function openAndLabel(s: Scenario): Promise<number> {
  const issue = await s.double.openIssue(REPO, {
    title: 'Login',
    body: `Add login.\n\n${SPEC_EXAMPLE_PLAN}`,
    user: MAINTAINER,
  });
  s.double.setWorker(() => ({ kind: 'pr', costUsd: 0.5 }));
  await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
  return issue;
}

describe('database faults', () => {
  let admin: pg.Client;
  const databases: TestDatabase[] = [];
  const scenarios: Scenario[] = [];
  const proxies: TcpProxy[] = [];
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: TEST_SERVER_URL });
    await admin.connect();
  });
  afterAll(async () => {
    // The proxies first: a query left waiting on a connection the faults half-closed then fails
    // at once, instead of holding the app's pool (and so its close) past the hook's timeout.
    for (const p of proxies) await p.close();
    for (const s of scenarios) await s.close();
    await admin?.end();
    for (const d of databases) await d.drop();
  });

  it('loses no delivery when its connections are killed (pg_terminate_backend) mid-flow, and recovers by itself', async () => {
    const started = Date.now();
    const database = await createTestDatabase(inject('templateDatabase'));
    databases.push(database);
    const s = await startScenario({
      databaseUrl: database.url,
      config: CONFIG,
      processor: { retryDelayMs: () => 50 },
      sweepGraceMs: 30_000,
    });
    scenarios.push(s);

    // Kill every backend of the app's database as webhooks go out (racing ingest) and as the
    // app writes to GitHub (racing its handlers), a bounded number of times.
    const MAX_KILLS = 16;
    let kills = 0;
    let terminated = 0;
    let killing = Promise.resolve();
    const kill = () => {
      if (kills >= MAX_KILLS) return;
      kills++;
      killing = killing.then(async () => {
        const { rowCount } = await admin.query(
          'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
          [database.name],
        );
        terminated += rowCount ?? 0;
      });
    };
    s.double.on('webhook-sent', kill);
    s.double.on('request', (entry) => {
      if (entry.method !== 'GET') kill();
    });

    const issue = await openAndLabel(s);
    const { sweeps, failedSweeps, resent } = await finish(s, issue);
    await killing;

    await expectCompleted(s, issue);
    expect(terminated).toBeGreaterThan(0);
    // It noticed: deliveries were refused or handlings failed, and it carried on.
    const failed = s.app.logs.lines.filter((l) =>
      /could not store webhook delivery|handling failed|delivery inbox drain failed|database connection lost/.test(
        l,
      ),
    ).length;
    expect(failed).toBeGreaterThan(0);
    console.log(
      `database-faults (terminate): ${terminated} backends killed in ${kills} rounds, ${failed} errors logged, ${resent} deliveries resent, ${sweeps} sweeps (${failedSweeps} failed), ${Date.now() - started} ms`,
    );
  }, 60_000);

  it('answers 503 while the database is unreachable, stores nothing, then handles everything once it is back', async () => {
    const started = Date.now();
    const database = await createTestDatabase(inject('templateDatabase'));
    databases.push(database);
    const server = new URL(TEST_SERVER_URL);
    const proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 5432) });
    proxies.push(proxy);
    const proxied = new URL(database.url);
    proxied.port = String(proxy.port);
    const s = await startScenario({
      databaseUrl: proxied.toString(),
      config: CONFIG,
      processor: { retryDelayMs: () => 50 },
      sweepGraceMs: 30_000,
    });
    scenarios.push(s);
    const health = async () => {
      const response = await fetch(`${s.app.url}/healthz`);
      return { status: response.status, body: (await response.json()) as unknown };
    };
    expect((await health()).status).toBe(200);

    // Cut the database off the moment the first PR is merged: the merge's own bookkeeping and
    // the webhooks GitHub sends about it meet a database that is not there.
    let cutOnce = false;
    s.double.on('request', (entry) => {
      if (cutOnce || entry.method !== 'PUT' || !entry.path.endsWith('/merge')) return;
      cutOnce = true;
      proxy.cut();
    });
    const issue = await openAndLabel(s);
    await s.settle();
    expect(proxy.isCut).toBe(true);

    // While cut: unhealthy, and webhooks are refused (so GitHub keeps them), not half-stored.
    expect(await health()).toEqual({
      status: 503,
      body: { status: 'degraded', database: 'unreachable' },
    });
    const refused = s.double.deliveries().filter((d) => d.statusCode !== 202);
    expect(refused.length).toBeGreaterThan(0);
    for (const d of refused) expect(d.statusCode).toBe(503);
    const probe = await s.app.send('issues', refused[0]!.payload, { id: 'probe-while-cut' });
    expect(probe.status).toBe(503);
    // A sweep has nothing to stand on either; it fails without taking the process down.
    await expect(s.app.sweep()).rejects.toThrow();

    proxy.restore();
    expect((await health()).status).toBe(200);
    // Nothing sent while it was cut was stored. (One racing the cut may have been stored with
    // its answer lost: it waits in the inbox, and its redelivery is a duplicate.)
    expect(await s.app.store.deliveries.get('probe-while-cut')).toBeUndefined();

    const { sweeps, resent } = await finish(s, issue);
    expect(resent).toBe(refused.length);
    await expectCompleted(s, issue);
    console.log(
      `database-faults (unreachable): ${refused.length} deliveries refused while cut, ${resent} resent, ${sweeps} sweeps, ${Date.now() - started} ms`,
    );
  }, 60_000);
});
