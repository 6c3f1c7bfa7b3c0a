import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { layeredIssue, tasksBlock } from '../../bench/lib/graphs.js';
import type { WriteLimits } from '../../src/store/write-reservations.js';
import { MAINTAINER, REPO } from '../e2e/harness.js';
import { startGitHubDouble, type GitHubDouble } from '../github-double/index.js';
import {
  startTestCoordinator,
  TEST_APP_ID,
  TEST_WEBHOOK_SECRET,
  type TestCoordinator,
} from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { Exposition } from '../helpers/prometheus.js';
import { startFanout, type Fanout } from './fanout.js';

/**
 * GitHub's limits with the windows scaled down 4 times (80 writes in 15 s, 500 content creations
 * in 15 min), on real time. At 80 a minute the run's ~250 writes (4.1 a task) would take over 3
 * minutes; with the windows scaled, the run is still faster than the budget in its bursts
 * (dispatches and branches of a whole layer at once), so the budget is what holds it back, over
 * at least three whole windows. The budget's clock is the real
 * one because the run is real (webhooks, workers, two processes); the window logic itself is
 * tested on a stepped clock in write-budget.test.ts.
 */
const SCALE = 4;
const LIMITS: WriteLimits = {
  perWindow: 80,
  windowMs: 60_000 / SCALE,
  burst: 16,
  criticalBurst: 8,
  creatingPerLongWindow: 500,
  longWindowMs: 3_600_000 / SCALE,
  inFlightLeaseMs: 60_000,
};
const ISSUES = 2;
const TASKS_PER_ISSUE = 30;
const CONFIG = [
  'plan:',
  '  maxTasks: 100',
  'concurrency:',
  '  maxParallel: 1000',
  'merge:',
  '  requireApproval: false',
  '',
].join('\n');

describe('the write budget with two replicas, 60 tasks', () => {
  let double: GitHubDouble;
  let database: TestDatabase;
  let fanout: Fanout | undefined;
  const apps: TestCoordinator[] = [];

  beforeAll(async () => {
    double = await startGitHubDouble({ webhookSecret: TEST_WEBHOOK_SECRET, appId: TEST_APP_ID });
    // The double refuses content writes past GitHub's 80, over the same scaled window.
    double.contentWritesWindowMs = LIMITS.windowMs;
    database = await createTestDatabase(inject('templateDatabase'));
    for (let i = 0; i < 2; i++)
      apps.push(
        await startTestCoordinator({
          databaseUrl: database.url,
          githubBaseUrl: double.apiUrl,
          processor: { retryDelayMs: () => 50 },
          writeBudget: { limits: LIMITS },
        }),
      );
    fanout = await startFanout(() => apps.map((app) => `${app.url}/api/github/webhooks`));
    double.setWebhookUrl(fanout.url);
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await fanout?.close();
    await double?.close();
    await database?.drop();
  });

  /** Until GitHub and both apps have nothing left to say to each other (bounded, no sleeps). */
  const quiet = async () => {
    for (let round = 0; round < 200; round++) {
      const before = double.deliveries().length + double.requests.length;
      await double.waitForDeliveries();
      await double.waitForWorkers();
      await Promise.all(apps.map((app) => app.processor.whenDrained()));
      await double.waitForDeliveries();
      if (double.deliveries().length + double.requests.length === before) return;
    }
    throw new Error('the apps and the double never went quiet');
  };

  it('two issues of 30 tasks merge, never more than 80 writes in any window', async () => {
    const started = Date.now();
    await double.createRepo({
      owner: 'octo-org',
      name: 'widgets',
      files: { 'README.md': '# widgets\n', '.github/agent-coordinator.yml': CONFIG },
    });
    await double.setPermission(REPO, MAINTAINER, 'maintain');
    double.setWorker(() => ({ kind: 'pr', costUsd: 0.01 }));
    const issues: number[] = [];
    for (let i = 0; i < ISSUES; i++) {
      const tasks = layeredIssue(TASKS_PER_ISSUE, 6, 100 + i);
      issues.push(
        await double.openIssue(REPO, {
          title: `Feature ${i}`,
          body: `Build feature ${i}.\n\n${tasksBlock(tasks)}\n`,
          user: MAINTAINER,
        }),
      );
    }
    for (const issue of issues) await double.addLabel(REPO, issue, 'agent', MAINTAINER);
    const open = () =>
      issues.filter((n) => (double.issue(REPO, n) as { state: string }).state === 'open');
    await quiet();
    // Anything a webhook left undone (a write that failed, a late run) the sweep picks up.
    for (let round = 0; round < 20 && open().length > 0; round++) {
      await Promise.all(apps.map((app) => app.sweep()));
      await quiet();
    }
    expect(open()).toEqual([]);
    const merged = (double.pulls(REPO) as Array<{ merged: boolean }>).filter((p) => p.merged);
    expect(merged).toHaveLength(ISSUES * TASKS_PER_ISSUE);

    // GitHub's side: every write the App made, in the order the double received them.
    const most = double.maxWritesInWindow(double.botLogin, LIMITS.windowMs);
    expect(most).toBeLessThanOrEqual(LIMITS.perWindow);
    double.assertNoViolations();

    // Every write went through the budget of one replica or the other. How many waited, and how
    // many status edits showed the wait, are reported (they depend on the machine's speed).
    let waited = 0;
    let slow = 0;
    for (const app of apps) {
      const metrics = new Exposition(await app.metrics.registry.metrics());
      waited += metrics.value('agent_coordinator_github_write_wait_seconds_count') ?? 0;
      slow +=
        (metrics.value('agent_coordinator_github_write_wait_seconds_count') ?? 0) -
        (metrics.value('agent_coordinator_github_write_wait_seconds_bucket', { le: '1' }) ?? 0);
    }
    const byRoute = double.writesByRoute(double.botLogin);
    const writes = [...byRoute.values()].reduce((a, b) => a + b, 0);
    expect(waited).toBe(writes);
    const told = double.requests.filter(
      (r) =>
        r.method === 'PATCH' &&
        /GitHub write budget: next write in \d+ s/.test(
          String((r.body as { body?: unknown }).body),
        ),
    );
    console.log(
      `write budget fleet: ${merged.length} tasks in ${((Date.now() - started) / 1000).toFixed(0)} s; ${writes} writes (${(writes / merged.length).toFixed(2)} per task), at most ${most} in any ${LIMITS.windowMs / 1000} s; ${slow} waited over 1 s, ${told.length} status edits showed the wait; by route: ${[
        ...byRoute,
      ]
        .sort((a, b) => b[1] - a[1])
        .map(([route, n]) => `${route} ${(n / merged.length).toFixed(2)}`)
        .join('; ')}`,
    );
  }, 400_000);
});
