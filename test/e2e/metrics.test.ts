import { afterEach, describe, expect, it } from 'vitest';
import { REQUIRED_METRICS, scrape } from '../helpers/prometheus.js';
import {
  MAINTAINER,
  REPO,
  SPEC_EXAMPLE_PLAN,
  repositoryIdOf,
  startScenario,
  type Scenario,
  closeScenario,
} from './harness.js';

type Pull = { number: number; state: string; head: { ref: string } };

/** `GET /metrics` over HTTP while the docs/tasks-block.md example runs on the GitHub double, and after. */
describe('/metrics during a run (GitHub double)', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const pulls = () => s.double.pulls(REPO) as Pull[];
  const approveAllOpen = async () => {
    for (const pr of pulls().filter((p) => p.state === 'open'))
      await s.double.comment(REPO, pr.number, '/approve', MAINTAINER);
    await s.settle();
  };

  it('exposes every metric with the numbers of the run, mid-run and at the end', async () => {
    // One worker at a time, so a ready task waits in the dispatch queue.
    s = await startScenario({ config: 'concurrency:\n  maxParallel: 1\n' });
    s.double.setWorker(() => ({ kind: 'pr', costUsd: 0.5 }));
    const issue = await s.double.openIssue(REPO, {
      title: 'Login',
      body: `Add login.\n\n${SPEC_EXAMPLE_PLAN}`,
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    const run = await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue);
    const { installationId } = await s.app.store.runs.repositoryOf(run!);
    const installation = String(installationId);

    // task_001 has its PR; the others wait for it.
    let m = await scrape(s.app.url);
    for (const [name, type] of Object.entries(REQUIRED_METRICS))
      expect(m.types.get(name), name).toBe(type);
    expect(m.value('agent_coordinator_tasks', { state: 'in_review' })).toBe(1);
    expect(m.value('agent_coordinator_tasks', { state: 'pending' })).toBe(3);
    expect(m.sum('agent_coordinator_tasks')).toBe(4);
    expect(m.value('agent_coordinator_tasks_running', { repository: REPO })).toBe(0);
    expect(m.value('agent_coordinator_dispatch_queue_depth', { repository: REPO })).toBe(0);
    expect(
      m.value('agent_coordinator_decision_seconds_count', { decision: 'schedule' }),
    ).toBeGreaterThan(0);
    expect(
      m.value('agent_coordinator_webhook_handling_seconds_count', { event: 'issues' }),
    ).toBeGreaterThan(0);
    expect(m.value('agent_coordinator_attempts_completed_total', { conclusion: 'success' })).toBe(
      1,
    );
    expect(m.value('agent_coordinator_spend_usd_total')).toBe(0.5);
    // The double answers every request with GitHub's x-ratelimit-* headers (limit 5000).
    const core = { installation, resource: 'core' };
    expect(m.value('agent_coordinator_github_rate_limit_limit', core)).toBe(5000);
    const remaining = m.value('agent_coordinator_github_rate_limit_remaining', core)!;
    expect(remaining).toBeGreaterThan(0);
    expect(remaining).toBeLessThan(5000);
    expect(
      m.value('agent_coordinator_github_rate_limit_reset_timestamp_seconds', core),
    ).toBeGreaterThan(Date.now() / 1000);
    expect(m.value('agent_coordinator_webhook_lag_seconds')).toBe(0);
    expect(m.value('agent_coordinator_webhook_deliveries', { status: 'pending' })).toBe(0);
    expect(m.value('agent_coordinator_webhook_deliveries', { status: 'failed' })).toBe(0);
    // Tests step the sweep by hand: none ran yet.
    expect(m.value('agent_coordinator_sweep_seconds_count')).toBe(0);

    // task_001 merges; task_002 (priority 4) is dispatched and its run left queued, task_003 waits.
    s.double.setWorker(() => ({ kind: 'manual' }));
    await approveAllOpen();
    m = await scrape(s.app.url);
    expect(m.value('agent_coordinator_tasks', { state: 'merged' })).toBe(1);
    expect(m.value('agent_coordinator_tasks', { state: 'running' })).toBe(1);
    expect(m.value('agent_coordinator_tasks', { state: 'pending' })).toBe(2);
    expect(m.value('agent_coordinator_tasks_running', { repository: REPO })).toBe(1);
    expect(m.value('agent_coordinator_dispatch_queue_depth', { repository: REPO })).toBe(1);
    expect(
      m.value('agent_coordinator_decision_seconds_count', { decision: 'merge' }),
    ).toBeGreaterThan(0);
    expect(m.value('agent_coordinator_github_rate_limit_remaining', core)).toBeLessThan(remaining);

    // The worker finishes task_002; task_003 follows; everything is approved and merged.
    s.double.setWorker(() => ({ kind: 'pr', costUsd: 0.5 }));
    const task002 = s.double.runs(REPO).find((r) => r.head_branch === 'agent/1/task_002')!;
    await s.double.playWorker(task002.id as number, { kind: 'pr', costUsd: 0.5 });
    await s.settle();
    for (
      let round = 0;
      round < 6 && (s.double.issue(REPO, issue) as { state: string }).state === 'open';
      round++
    )
      await approveAllOpen();
    expect((s.double.issue(REPO, issue) as { state: string }).state).toBe('closed');
    expect(await s.app.sweep()).toBeDefined();

    m = await scrape(s.app.url);
    for (const [name, type] of Object.entries(REQUIRED_METRICS))
      expect(m.types.get(name), name).toBe(type);
    // The run is finished: no task of an unfinished run is left.
    expect(m.sum('agent_coordinator_tasks')).toBe(0);
    expect(m.all('agent_coordinator_tasks_running')).toEqual([]);
    expect(m.value('agent_coordinator_attempts_completed_total', { conclusion: 'success' })).toBe(
      4,
    );
    expect(m.value('agent_coordinator_spend_usd_total')).toBe(2);
    expect(m.value('agent_coordinator_sweep_seconds_count')).toBe(1);
    expect(m.value('agent_coordinator_sweep_seconds_sum')).toBeGreaterThan(0);
    expect(m.value('agent_coordinator_webhook_lag_seconds')).toBe(0);
    expect(m.value('agent_coordinator_webhook_deliveries', { status: 'failed' })).toBe(0);
    expect(m.all('agent_coordinator_webhooks_handled_total', { outcome: 'failed' })).toEqual([]);
  });
});
