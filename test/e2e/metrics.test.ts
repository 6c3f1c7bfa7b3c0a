import { afterEach, describe, expect, it } from 'vitest';
import { REQUIRED_METRICS, scrape } from '../helpers/prometheus.js';
import {
  MAINTAINER,
  REPO,
  SPEC_EXAMPLE_PLAN,
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

  it('names no repository, owner, installation or issue while private runs are in flight', async () => {
    s = await startScenario({ config: 'concurrency:\n  maxParallel: 1\n' });
    // A second installation, on another account, with a private repository of its own.
    const PAYROLL = 'initech-secret/payroll-internal';
    await s.double.createRepo({
      owner: 'initech-secret',
      name: 'payroll-internal',
      private: true,
      files: { '.github/agent-coordinator.yml': 'concurrency:\n  maxParallel: 1\n' },
    });
    await s.double.setPermission(PAYROLL, MAINTAINER, 'maintain');
    // Workers that never finish: every run stays in flight, a task of each waits behind it.
    s.double.setWorker(() => ({ kind: 'manual' }));
    const titles = ['Rotate the Initech payroll keys', 'Widgets secret launch'];
    for (const [repo, title] of [
      [PAYROLL, titles[0]!],
      [REPO, titles[1]!],
    ] as const) {
      const issue = await s.double.openIssue(repo, {
        title,
        body: `Plan.\n\n${SPEC_EXAMPLE_PLAN}`,
        user: MAINTAINER,
      });
      await s.double.addLabel(repo, issue, 'agent', MAINTAINER);
    }
    await s.settle();
    const payrollTask = s.double.runs(PAYROLL).find((r) => r.head_branch === 'agent/1/task_001')!;
    await s.double.playWorker(payrollTask.id as number, { kind: 'pr', costUsd: 0.25 });
    await s.settle();

    const m = await scrape(s.app.url);
    // The figures are there, added up over both repositories...
    expect(m.value('agent_coordinator_tasks_running')).toBe(1);
    expect(m.value('agent_coordinator_tasks', { state: 'in_review' })).toBe(1);
    expect(
      m.value('agent_coordinator_github_rate_limit_remaining', { resource: 'core' }),
    ).toBeGreaterThan(0);
    // ...and nothing that says whose they are: every name and id the double knows is absent,
    // in label values and anywhere else in the text.
    const secrets = new Set<string>(titles);
    for (const fullName of s.double.repositories()) {
      const [owner, name] = fullName.split('/') as [string, string];
      secrets.add(fullName).add(owner).add(name);
      secrets.add(String((s.double.repository(fullName) as { id: number }).id));
    }
    for (const { id, account } of s.double.installations()) secrets.add(String(id)).add(account);
    expect(s.double.installations()).toHaveLength(2);
    const text = m.text.toLowerCase();
    for (const secret of secrets) expect(text, secret).not.toContain(secret.toLowerCase());
    const labelNames = new Set(m.samples.flatMap((sample) => Object.keys(sample.labels)));
    for (const forbidden of ['repository', 'owner', 'repo', 'installation', 'issue', 'title'])
      expect(labelNames).not.toContain(forbidden);
  });

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

    // task_001 has its PR; the others wait for it.
    let m = await scrape(s.app.url);
    for (const [name, type] of Object.entries(REQUIRED_METRICS))
      expect(m.types.get(name), name).toBe(type);
    expect(m.value('agent_coordinator_tasks', { state: 'in_review' })).toBe(1);
    expect(m.value('agent_coordinator_tasks', { state: 'pending' })).toBe(3);
    expect(m.sum('agent_coordinator_tasks')).toBe(4);
    expect(m.value('agent_coordinator_tasks_running')).toBe(0);
    expect(m.value('agent_coordinator_dispatch_queue_depth')).toBe(0);
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
    const core = { resource: 'core' };
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
    expect(m.value('agent_coordinator_tasks_running')).toBe(1);
    expect(m.value('agent_coordinator_dispatch_queue_depth')).toBe(1);
    expect(m.value('agent_coordinator_dispatch_queue_depth_max')).toBe(1);
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
    expect(m.value('agent_coordinator_tasks_running')).toBe(0);
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
