import { readdirSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsFolder } from '../../src/store/database.js';
import { MAINTAINER, REPO, SPEC_EXAMPLE_PLAN, statusComment } from '../e2e/harness.js';
import { startGitHubDouble, type GitHubDouble } from '../github-double/index.js';
import {
  startTestCoordinator,
  TEST_APP_ID,
  TEST_WEBHOOK_SECRET,
  type TestCoordinator,
} from '../helpers/app.js';
import { createEmptyDatabase, type TestDatabase } from '../helpers/postgres.js';
import { startFanout, type Fanout } from './fanout.js';

type Pull = { number: number; head: { ref: string; sha: string } };

/**
 * Two coordinators on one Postgres database (docs/running.md: "several coordinator processes may
 * share one database"), started together on an empty database, each receiving every webhook
 * and sweeping whenever it likes.
 */
describe('two coordinator processes on one database', () => {
  let double: GitHubDouble;
  let database: TestDatabase;
  let fanout: Fanout | undefined;
  const apps: TestCoordinator[] = [];
  const clock = { now: new Date() };
  const sweeping = new Set<Promise<unknown>>();

  beforeAll(async () => {
    double = await startGitHubDouble({ webhookSecret: TEST_WEBHOOK_SECRET, appId: TEST_APP_ID });
    database = await createEmptyDatabase();
  });
  afterAll(async () => {
    await Promise.allSettled([...sweeping]);
    for (const app of apps) await app.close();
    await fanout?.close();
    await double?.close();
    await database?.drop();
  });

  /** Both sweep at once; one holds the sweep lock, the other skips (or finds nothing to do). */
  const sweepBoth = () => {
    const both = Promise.all(apps.map((app) => app.sweep()));
    sweeping.add(both);
    void both.finally(() => sweeping.delete(both)).catch(() => {});
    return both;
  };

  /** Until GitHub and both apps have nothing left to say to each other (bounded, no sleeps). */
  const quiet = async () => {
    for (let round = 0; round < 100; round++) {
      const before = double.deliveries().length + double.requests.length;
      await double.waitForDeliveries();
      await double.waitForWorkers();
      await Promise.all(apps.map((app) => app.processor.whenDrained()));
      await Promise.all([...sweeping]);
      await double.waitForDeliveries();
      if (double.deliveries().length + double.requests.length === before) return;
    }
    throw new Error('the apps and the double never went quiet');
  };

  it('start together on an empty database: the migrations are applied once', async () => {
    const started = await Promise.all(
      [0, 1].map(() =>
        startTestCoordinator({
          databaseUrl: database.url,
          githubBaseUrl: double.apiUrl,
          now: () => clock.now,
          processor: { retryDelayMs: () => 50 },
          sweepGraceMs: 30_000,
        }),
      ),
    );
    apps.push(...started);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const applied = await client.query('select hash from drizzle.__drizzle_migrations');
      const files = readdirSync(migrationsFolder()).filter((f) => f.endsWith('.sql'));
      expect(applied.rowCount).toBe(files.length);
    } finally {
      await client.end();
    }
    for (const app of apps) expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
  });

  it('both answer 2xx to every delivery; every effect happens once', async () => {
    expect(apps).toHaveLength(2);
    const started = Date.now();
    fanout = await startFanout(() => apps.map((app) => `${app.url}/api/github/webhooks`));
    double.setWebhookUrl(fanout.url);
    await double.createRepo({
      owner: 'octo-org',
      name: 'widgets',
      files: {
        'README.md': '# widgets\n',
        '.github/agent-coordinator.yml': 'merge:\n  requireApproval: false\n',
      },
    });
    await double.setPermission(REPO, MAINTAINER, 'maintain');
    double.setWorker(() => ({ kind: 'pr', costUsd: 0.5 }));

    // Both sweep whenever a webhook has been answered, racing each other and the handlers.
    let sweepsDuringFlow = 0;
    double.on('webhook-answered', () => {
      if (sweepsDuringFlow >= 40) return;
      sweepsDuringFlow++;
      void sweepBoth().catch(() => {});
    });

    const issue = await double.openIssue(REPO, {
      title: 'Login',
      body: `Add login.\n\n${SPEC_EXAMPLE_PLAN}`,
      user: MAINTAINER,
    });
    await double.addLabel(REPO, issue, 'agent', MAINTAINER);
    const issueState = () => (double.issue(REPO, issue) as { state: string }).state;
    await quiet();
    for (let round = 0; round < 10 && issueState() === 'open'; round++) {
      clock.now = new Date(clock.now.getTime() + 31_000);
      await sweepBoth();
      await quiet();
    }

    expect(issueState()).toBe('closed');
    expect(double.labels(REPO, issue)).toContain('agent:done');

    // Both answered 2xx to every delivery: one stored it (202), the other saw a duplicate (200).
    const deliveries = double.deliveries();
    expect(deliveries.length).toBeGreaterThan(20);
    for (const d of deliveries) {
      expect(d.statusCode, `${d.event}.${d.action}`).toBe(202);
      expect(
        [...(fanout.answers.get(d.guid) ?? [])].sort(),
        `${d.event}.${d.action} answers`,
      ).toEqual([200, 202]);
      expect((await apps[0]!.store.deliveries.get(d.guid))?.status).toBe('done');
    }

    // Each (task, attempt) dispatched once.
    const perAttempt: Record<string, number> = {};
    for (const run of double.runs(REPO)) {
      const key = `${run.inputs.task_id}#${run.inputs.attempt}`;
      perAttempt[key] = (perAttempt[key] ?? 0) + 1;
    }
    expect(perAttempt).toEqual({
      'task_001#1': 1,
      'task_002#1': 1,
      'task_003#1': 1,
      'task_004#1': 1,
    });

    // Each PR merged once, in dependency order, with one merge call each.
    const pulls = double.pulls(REPO) as Pull[];
    const taskOf = new Map(pulls.map((p) => [p.number, p.head.ref.split('/')[2]]));
    const mergeCalls = double.requests.filter(
      (r) => r.method === 'PUT' && r.path.endsWith('/merge'),
    );
    expect(mergeCalls.every((r) => r.status === 200)).toBe(true);
    const merged = mergeCalls.map((r) =>
      taskOf.get(Number(/\/pulls\/(\d+)\/merge$/.exec(r.path)![1])),
    );
    expect(merged).toHaveLength(4);
    expect(new Set(merged).size).toBe(4);
    expect(merged[0]).toBe('task_001');
    expect(merged[3]).toBe('task_004');

    // One status comment, one order check per PR head, one done label, one close.
    expect(statusComment(double, issue)).toContain('every task is merged');
    for (const pull of pulls) {
      const checks = (double.checkRuns(REPO, pull.head.sha) as Array<{ name: string }>).filter(
        (c) => c.name === 'agent-coordinator/order',
      );
      expect(checks, `order checks on #${pull.number}`).toHaveLength(1);
    }
    // The done label and the close happened once (both are idempotent on GitHub: a second
    // call, from a process finishing an interrupted close-out, would change nothing).
    const labelled = double
      .deliveries({ event: 'issues', action: 'labeled' })
      .filter((d) => (d.payload.label as { name: string }).name === 'agent:done');
    expect(labelled).toHaveLength(1);
    expect(double.deliveries({ event: 'issues', action: 'closed' })).toHaveLength(1);
    // One branch created per task.
    const refs = double.requests.filter(
      (r) => r.method === 'POST' && r.path.endsWith('/git/refs') && r.status === 201,
    );
    expect(refs).toHaveLength(4);

    double.assertNoViolations();
    const handledBy = await Promise.all(
      apps.map((app) => app.logs.lines.filter((l) => l.includes('"delivery handled"')).length),
    );
    console.log(
      `two-processes: ${deliveries.length} deliveries (handled ${handledBy.join(' + ')}), ${sweepsDuringFlow} concurrent sweep pairs, ${Date.now() - started} ms`,
    );
  }, 60_000);
});
