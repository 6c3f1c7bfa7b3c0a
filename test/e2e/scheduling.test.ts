import { GITHUB_WRITE_LIMITS } from '../../src/github/write-budget.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MAINTAINER,
  REPO,
  startScenario,
  statusComment,
  type Scenario,
  closeScenario,
} from './harness.js';

const independent = (n: number, extra: (i: number) => string[] = () => []) =>
  [
    '```tasks',
    ...Array.from({ length: n }, (_, i) => [
      `- id: t${String(i).padStart(2, '0')}`,
      `  title: Task ${i}`,
      ...extra(i),
    ]).flat(),
    '```',
  ].join('\n');

/** Concurrency, priority, the 204 fallback, crash-safe dispatch and coalesced status writes. */
describe('scheduling and dispatch (GitHub double)', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const start = async (body: string) => {
    const issue = await s.double.openIssue(REPO, { title: 'Many', body, user: MAINTAINER });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    return issue;
  };
  const inFlight = () => s.double.runs(REPO).filter((r) => r.status !== 'completed');

  it('keeps concurrency.maxParallel workers in flight, highest priority first', async () => {
    s = await startScenario({ config: 'concurrency:\n  maxParallel: 2\n' });
    s.double.setWorker(() => ({ kind: 'hang' }));
    await start(independent(5, (i) => [`  priority: ${i === 3 ? 5 : i === 4 ? 4 : 3}`]));
    expect(
      inFlight()
        .map((r) => r.inputs.task_id)
        .sort(),
    ).toEqual(['t03', 't04']);
    await s.double.completeWorkflowRun(inFlight()[0]!.id as number, 'failure');
    await s.settle();
    // The failed task retries, and outranks older priority-3 tasks.
    expect(inFlight()).toHaveLength(2);
    expect(
      inFlight()
        .map((r) => r.inputs.task_id)
        .sort(),
    ).toEqual(['t03', 't04']);
  });

  it('caps running tasks across repositories with COORDINATOR_MAX_PARALLEL', async () => {
    s = await startScenario({
      config: 'concurrency:\n  maxParallel: 10\n',
      env: { COORDINATOR_MAX_PARALLEL: '3' },
    });
    s.double.setWorker(() => ({ kind: 'hang' }));
    const issue = await start(independent(6));
    expect(inFlight()).toHaveLength(3);
    expect(statusComment(s.double, issue)).toContain('across all repositories');
  });

  it('matches a run by branch and run-name when the dispatch answers 204', async () => {
    s = await startScenario();
    s.double.dispatchReturnsNoContent = true;
    s.double.setWorker(() => ({ kind: 'pr' }));
    await start(independent(2));
    const attempts = await s.app.store.attempts.open();
    expect(attempts).toEqual([]);
    const runs = s.double.runs(REPO);
    expect(runs).toHaveLength(2);
    for (const run of runs)
      expect(await s.app.store.attempts.byWorkflowRun(run.id as number)).toBeDefined();
  });

  it('keeps a dispatch GitHub failed as an intent and sends it once the sweep confirms no run exists', async () => {
    s = await startScenario();
    s.double.setWorker(() => ({ kind: 'pr' }));
    s.double.faults.add({
      method: 'POST',
      path: /\/actions\/workflows\/.*\/dispatches$/,
      status: 502,
      times: 1,
    });
    await start(independent(1));
    expect(s.double.runs(REPO)).toHaveLength(0);
    const [intent] = await s.app.store.attempts.open();
    expect(intent?.attempt.phase).toBe('intent');
    // Within the grace period the sweep leaves it alone.
    expect((await s.app.sweep())?.redispatched).toBe(0);
    s.clock.advance(5 * 60_000);
    expect((await s.app.sweep())?.redispatched).toBe(1);
    await s.settle();
    expect(s.double.runs(REPO)).toHaveLength(1);
    expect(s.double.runs(REPO)[0]?.inputs.attempt).toBe('1');
    // Nothing left to repair: the next sweep dispatches nothing.
    s.clock.advance(5 * 60_000);
    expect((await s.app.sweep())?.redispatched).toBe(0);
    expect(s.double.runs(REPO)).toHaveLength(1);
  });

  it('finds runs whose webhooks were missed and adopts them instead of dispatching twice', async () => {
    s = await startScenario({
      subscribedEvents: [
        'issues',
        'issue_comment',
        'pull_request',
        'pull_request_review',
        'check_run',
        'check_suite',
        'merge_group',
      ],
    });
    s.double.dispatchReturnsNoContent = true; // no run id from the dispatch either
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await start(independent(1));
    expect(s.double.runs(REPO)).toHaveLength(1);
    const [open] = await s.app.store.attempts.open();
    expect(open?.attempt.workflowRunId).toBeNull();
    s.clock.advance(5 * 60_000);
    const report = await s.app.sweep();
    await s.settle();
    expect(report?.adopted).toBe(1);
    expect(report?.redispatched).toBe(0);
    expect(s.double.runs(REPO)).toHaveLength(1);
    const run = await s.app.store.runs.latestRun(
      (s.double.repository(REPO) as { id: number }).id,
      issue,
    );
    expect((await s.app.store.runs.task(run!.id, 't00'))?.state).toBe('in_review');
  });

  it('coalesces status comment writes: 50 tasks changing at once make a handful of edits', async () => {
    // 50 tasks at once are over 80 writes (a branch, a dispatch and a check run each), so the
    // write budget makes them wait for the window: a 3 s window here instead of GitHub's minute.
    const limits = { ...GITHUB_WRITE_LIMITS, windowMs: 3_000 };
    s = await startScenario({
      config: 'concurrency:\n  maxParallel: 50\nplan:\n  maxTasks: 50\n',
      writeBudget: { limits },
    });
    s.double.contentWritesWindowMs = limits.windowMs;
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await start(independent(50));
    expect(s.double.maxWritesInWindow(s.double.botLogin, limits.windowMs)).toBeLessThanOrEqual(80);
    expect(s.double.runs(REPO)).toHaveLength(50);
    const statusWrites = s.double.requests.filter(
      (r) =>
        (r.method === 'PATCH' && /\/issues\/comments\/\d+$/.test(r.path)) ||
        (r.method === 'POST' && r.path.endsWith(`/issues/${issue}/comments`)),
    );
    // 50 tasks × 4 state changes would be 200 writes uncoalesced.
    expect(statusWrites.length).toBeLessThanOrEqual(20);
    expect(statusComment(s.double, issue)).toContain('in_review');
  }, 60_000);
});
