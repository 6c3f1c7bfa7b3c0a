import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectClean, startWorld, stopWorld, userOctokit, type World } from './helpers.js';

const owner = 'acme';
const repoName = 'widgets';

describe('checks and statuses', () => {
  let w: World;
  beforeEach(async () => {
    w = await startWorld();
  });
  afterEach(async () => {
    await stopWorld(w);
    expectClean(w.double);
  });

  it("creates and completes the app's check run with webhooks and a completed suite", async () => {
    const { double, octokit, repo, receiver } = w;
    const pr = await double.openPr(repo, {
      head: 'agent/1/task_001',
      title: 'T',
      by: 'agent-coordinator[bot]',
    });
    const sha = double.branch(repo, 'agent/1/task_001')!.sha;
    const { data: created } = await octokit.rest.checks.create({
      owner,
      repo: repoName,
      name: 'agent-coordinator/order',
      head_sha: sha,
      status: 'in_progress',
      output: { title: 'Waiting', summary: 'waiting for task_000 (#3)' },
    });
    expect(created.id).toBeGreaterThan(2 ** 31);
    expect(created.pull_requests.map((p) => p.number)).toEqual([pr]);
    await octokit.rest.checks.update({
      owner,
      repo: repoName,
      check_run_id: created.id,
      conclusion: 'success',
      output: { title: 'Ready', summary: 'deps merged' },
    });
    const { data: list } = await octokit.rest.checks.listForRef({
      owner,
      repo: repoName,
      ref: 'agent/1/task_001',
    });
    expect(list.check_runs).toEqual([
      expect.objectContaining({
        name: 'agent-coordinator/order',
        status: 'completed',
        conclusion: 'success',
      }),
    ]);
    await double.waitForDeliveries();
    expect(receiver.names().slice(-3)).toEqual([
      'check_run.created',
      'check_run.completed',
      'check_suite.completed',
    ]);
    expect(receiver.of('check_suite', 'completed')[0]!.payload['check_suite']).toMatchObject({
      conclusion: 'success',
      head_sha: sha,
    });
  });

  it("names a fork's PR from the branch, numbered in the fork, and delivers nothing of the fork", async () => {
    const { double, octokit, repo, receiver } = w;
    const own = await double.openPr(repo, { head: 'agent/1/a', title: 'T', by: 'someone' });
    const fork = double.fork(repo, 'outsider');
    await double.waitForDeliveries();
    const heard = receiver.names().length;
    const forked = await double.openPr(fork, {
      head: 'agent/1/a',
      headRepo: repo,
      title: 'Sync',
      by: 'outsider',
    });
    await double.waitForDeliveries();
    // The fork numbers from 1, and the App, not installed there, hears nothing of it.
    expect([own, forked]).toEqual([1, 1]);
    expect(receiver.names().length).toBe(heard);
    const sha = double.branch(repo, 'agent/1/a')!.sha;
    const { data: created } = await octokit.rest.checks.create({
      owner,
      repo: repoName,
      name: 'ci',
      head_sha: sha,
      status: 'completed',
      conclusion: 'success',
    });
    const ids = [repo, fork].map((r) => (double.repository(r) as { id: number }).id);
    expect(created.pull_requests.map((p) => [p.number, p.head.repo.id, p.base.repo.id])).toEqual([
      [own, ids[0], ids[0]],
      [forked, ids[0], ids[1]],
    ]);
  });

  it('keeps only the latest run per name by default, and filters by name', async () => {
    const { double, octokit, repo } = w;
    const sha = double.branch(repo, 'main')!.sha;
    await double.setCheck(repo, sha, 'ci/test', 'completed', 'failure');
    await double.setCheck(repo, sha, 'ci/test', 'completed', 'success');
    await double.setCheck(repo, sha, 'ci/lint', 'queued');
    const { data: latest } = await octokit.rest.checks.listForRef({
      owner,
      repo: repoName,
      ref: sha,
    });
    expect(latest.check_runs.map((r) => `${r.name}:${r.conclusion ?? r.status}`).sort()).toEqual([
      'ci/lint:queued',
      'ci/test:success',
    ]);
    const { data: all } = await octokit.rest.checks.listForRef({
      owner,
      repo: repoName,
      ref: sha,
      filter: 'all',
      check_name: 'ci/test',
    });
    expect(all.total_count).toBe(2);
    // Another CI service's App: a GitHub Actions check run is a job of a workflow run (runCi).
    expect(all.check_runs[0]?.app?.slug).toBe('other-ci');
  });

  it('only lets a GitHub App write check runs, and only its own', async () => {
    const { double, octokit, repo } = w;
    const sha = double.branch(repo, 'main')!.sha;
    const alice = userOctokit(double, 'alice');
    await expect(
      alice.rest.checks.create({ owner, repo: repoName, name: 'x', head_sha: sha }),
    ).rejects.toMatchObject({ status: 403 });
    const ciRun = await double.setCheck(repo, sha, 'ci/test', 'in_progress');
    await expect(
      octokit.rest.checks.update({
        owner,
        repo: repoName,
        check_run_id: ciRun,
        status: 'completed',
        conclusion: 'success',
      }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(
      octokit.rest.checks.create({ owner, repo: repoName, name: 'x', head_sha: '0'.repeat(40) }),
    ).rejects.toMatchObject({ status: 422 });
  });

  it('combines commit statuses', async () => {
    const { double, octokit, repo, receiver } = w;
    const sha = double.branch(repo, 'main')!.sha;
    const combined = async () =>
      (await octokit.rest.repos.getCombinedStatusForRef({ owner, repo: repoName, ref: 'main' }))
        .data;
    expect(await combined()).toMatchObject({ state: 'pending', total_count: 0 });
    // The App only reads statuses (app.yml): a CI account posts them.
    await double.setPermission(repo, 'ci-bot', 'write');
    await userOctokit(double, 'ci-bot').rest.repos.createCommitStatus({
      owner,
      repo: repoName,
      sha,
      state: 'success',
      context: 'legacy/ci',
    });
    expect(await combined()).toMatchObject({ state: 'success', total_count: 1 });
    await double.setStatus(repo, sha, 'other', 'failure');
    expect(await combined()).toMatchObject({ state: 'failure', total_count: 2 });
    await double.waitForDeliveries();
    expect(receiver.of('status')).toHaveLength(2);
  });
});
