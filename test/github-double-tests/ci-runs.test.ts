import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectClean, startWorld, stopWorld, type World } from './helpers.js';

const owner = 'acme';
const repoName = 'widgets';
const BOT = 'agent-coordinator[bot]';

const FAILING_TEST = {
  conclusion: 'failure' as const,
  annotations: [
    {
      message: 'expected 2 to be 3',
      annotation_level: 'failure' as const,
      path: 'src/sum.test.ts',
      start_line: 12,
    },
  ],
  steps: [
    { name: 'actions/checkout@v4', lines: ['Syncing repository: acme/widgets'] },
    {
      name: 'npm test',
      lines: ['> vitest run', 'FAIL src/sum.test.ts > sums', 'expected 2 to be 3'],
    },
  ],
};

/** GitHub Actions CI on a PR: jobs as check runs, their annotations and logs, and re-runs. */
describe('actions: CI runs, job logs and rerun-failed-jobs', () => {
  let w: World;
  let pr: number;
  let sha: string;
  beforeEach(async () => {
    w = await startWorld();
    pr = await w.double.openPr(w.repo, { head: 'agent/1/task_001', title: 'Task 1', by: BOT });
    sha = w.double.branch(w.repo, 'agent/1/task_001')!.sha;
  });
  afterEach(async () => {
    await stopWorld(w);
    expectClean(w.double);
  });

  async function checkRunsOnHead() {
    const { data } = await w.octokit.rest.checks.listForRef({ owner, repo: repoName, ref: sha });
    return data.check_runs;
  }

  it('a failing job is a GitHub Actions check run with its annotations and a redirect to its log', async () => {
    const runId = await w.double.runCi(w.repo, sha, {
      jobs: [
        { name: 'test', attempts: [FAILING_TEST] },
        { name: 'lint', attempts: [{ conclusion: 'success' }] },
      ],
    });
    expect(w.double.run(runId)).toMatchObject({ conclusion: 'failure', run_attempt: 1 });
    const [lint, test] = await checkRunsOnHead();
    expect(test).toMatchObject({
      name: 'test',
      status: 'completed',
      conclusion: 'failure',
      app: { slug: 'github-actions' },
      details_url: `${w.double.url}/acme/widgets/actions/runs/${runId}/job/${test!.id}`,
      output: { annotations_count: 1 },
      pull_requests: [{ number: pr }],
    });
    expect(lint).toMatchObject({ name: 'lint', conclusion: 'success' });

    const { data: jobs } = await w.octokit.rest.actions.listJobsForWorkflowRun({
      owner,
      repo: repoName,
      run_id: runId,
    });
    const testJob = jobs.jobs.find((j) => j.name === 'test')!;
    expect(testJob).toMatchObject({
      id: test!.id,
      check_run_url: `${w.double.apiUrl}/repos/acme/widgets/check-runs/${test!.id}`,
      conclusion: 'failure',
      steps: [
        { name: 'actions/checkout@v4', conclusion: 'success', number: 1 },
        { name: 'npm test', conclusion: 'failure', number: 2 },
      ],
    });

    const { data: annotations } = await w.octokit.rest.checks.listAnnotations({
      owner,
      repo: repoName,
      check_run_id: test!.id,
    });
    expect(annotations).toEqual([
      expect.objectContaining({
        path: 'src/sum.test.ts',
        start_line: 12,
        annotation_level: 'failure',
        message: 'expected 2 to be 3',
      }),
    ]);

    // GitHub answers 302 to a short-lived URL; Octokit follows it to the plain text.
    const redirect = await w.octokit.rest.actions.downloadJobLogsForWorkflowRun({
      owner,
      repo: repoName,
      job_id: test!.id,
      request: { redirect: 'manual' },
    });
    expect(redirect.status).toBe(302);
    const location = String(redirect.headers.location);
    expect(location).toMatch(new RegExp(`^${w.double.url}/_logs/jobs/${test!.id}\\?sig=`));
    const { data: log } = await w.octokit.rest.actions.downloadJobLogsForWorkflowRun({
      owner,
      repo: repoName,
      job_id: test!.id,
    });
    const lines = String(log)
      .trimEnd()
      .split('\n')
      .map((l) => l.replace(/^\d{4}-\d\d-\d\dT[\d:.]+Z /, ''));
    expect(lines).toEqual([
      '##[group]Run actions/checkout@v4',
      '##[endgroup]',
      'Syncing repository: acme/widgets',
      '##[group]Run npm test',
      '##[endgroup]',
      '> vitest run',
      'FAIL src/sum.test.ts > sums',
      'expected 2 to be 3',
      '##[error]Process completed with exit code 1.',
    ]);
    // The URL needs no credentials but its signature.
    expect((await fetch(location)).status).toBe(200);
    expect((await fetch(location.replace(/sig=.*/, 'sig=forged'))).status).toBe(403);
    await expect(
      w.octokit.rest.actions.downloadJobLogsForWorkflowRun({ owner, repo: repoName, job_id: 1 }),
    ).rejects.toMatchObject({ status: 404 });

    await w.double.waitForDeliveries();
    const names = w.receiver.names();
    expect(names).toContain('workflow_run.requested');
    expect(names).toContain('workflow_run.completed');
    expect(w.receiver.of('check_run', 'completed').map((h) => h.payload['check_run'])).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'test', conclusion: 'failure', id: test!.id }),
      ]),
    );
  });

  it('rerun-failed-jobs: a new attempt of the same run re-runs only the failed job, as a new check run', async () => {
    const runId = await w.double.runCi(w.repo, sha, {
      by: 'someone',
      jobs: [
        { name: 'test', attempts: [FAILING_TEST, { conclusion: 'success' }] },
        { name: 'lint', attempts: [{ conclusion: 'success' }] },
      ],
    });
    const firstTest = (await checkRunsOnHead()).find((c) => c.name === 'test')!;
    const before = w.receiver.received.length;
    const answer = await w.octokit.rest.actions.reRunWorkflowFailedJobs({
      owner,
      repo: repoName,
      run_id: runId,
    });
    expect(answer.status).toBe(201);
    expect(answer.data).toEqual({});
    await w.double.waitFor(
      (d) => {
        const run = d.run(runId) as { run_attempt: number; status: string } | undefined;
        return run?.run_attempt === 2 && run.status === 'completed';
      },
      { description: 'the second attempt to complete' },
    );
    await w.double.waitForDeliveries();
    expect(w.double.run(runId)).toMatchObject({
      id: runId,
      run_attempt: 2,
      conclusion: 'success',
      // The run keeps its actor; the re-run is the App's.
      actor: { login: 'someone' },
      triggering_actor: { login: BOT },
      previous_attempt_url: `${w.double.apiUrl}/repos/acme/widgets/actions/runs/${runId}/attempts/1`,
    });
    const latest = await checkRunsOnHead();
    const retried = latest.find((c) => c.name === 'test')!;
    expect(retried).toMatchObject({ conclusion: 'success' });
    expect(retried.id).not.toBe(firstTest.id);
    const { data: all } = await w.octokit.rest.actions.listJobsForWorkflowRun({
      owner,
      repo: repoName,
      run_id: runId,
      filter: 'all',
    });
    expect(all.jobs.map((j) => [j.name, j.run_attempt, j.conclusion])).toEqual([
      ['test', 1, 'failure'],
      ['lint', 1, 'success'],
      ['test', 2, 'success'],
    ]);
    const { data: newest } = await w.octokit.rest.actions.listJobsForWorkflowRun({
      owner,
      repo: repoName,
      run_id: runId,
    });
    expect(newest.jobs.map((j) => [j.name, j.run_attempt])).toEqual([
      ['test', 2],
      ['lint', 1],
    ]);
    // Each attempt's jobs as they stood then, a job the re-run did not run with its own attempt.
    const ofAttempt = async (attempt_number: number) =>
      (
        await w.octokit.rest.actions.listJobsForWorkflowRunAttempt({
          owner,
          repo: repoName,
          run_id: runId,
          attempt_number,
        })
      ).data.jobs.map((j) => [j.name, j.run_attempt]);
    expect(await ofAttempt(1)).toEqual([
      ['test', 1],
      ['lint', 1],
    ]);
    expect(await ofAttempt(2)).toEqual([
      ['test', 2],
      ['lint', 1],
    ]);
    await expect(ofAttempt(3)).rejects.toMatchObject({ status: 404 });
    // As GitHub sends them: the run back to requested with the new attempt, then its jobs.
    const sent = w.receiver.received.slice(before);
    const requested = sent.find((h) => h.event === 'workflow_run' && h.action === 'requested')!;
    expect(requested.payload['workflow_run']).toMatchObject({
      id: runId,
      run_attempt: 2,
      status: 'queued',
    });
    expect(sent.map((h) => `${h.event}.${h.action}`)).toEqual(
      expect.arrayContaining([
        'check_run.created',
        'workflow_job.queued',
        'workflow_run.in_progress',
        'check_run.completed',
        'workflow_run.completed',
      ]),
    );
    // Nothing failed any more: GitHub refuses to re-run failed jobs.
    await expect(
      w.octokit.rest.actions.reRunWorkflowFailedJobs({ owner, repo: repoName, run_id: runId }),
    ).rejects.toMatchObject({ status: 403 });
  });

  it('refuses to re-run a run that is still going; a job that fails again stays failed', async () => {
    const runId = await w.double.runCi(w.repo, sha, {
      jobs: [{ name: 'test', attempts: [FAILING_TEST] }],
      play: false,
    });
    await expect(
      w.octokit.rest.actions.reRunWorkflowFailedJobs({ owner, repo: repoName, run_id: runId }),
    ).rejects.toMatchObject({
      status: 403,
      response: { data: { message: 'This workflow is already running' } },
    });
    await w.double.completeWorkflowRun(runId, 'failure');
    await w.double.rerunFailedJobs(runId, 'alice');
    expect(w.double.run(runId)).toMatchObject({ run_attempt: 2, conclusion: 'failure' });
    expect(w.double.jobsOf(runId).map((j) => [j.runAttempt, j.conclusion])).toEqual([
      [1, 'failure'],
      [2, 'failure'],
    ]);
  });

  it('holds an attempt marked hold (a re-run or the first) queued until releaseCi plays it', async () => {
    const runId = await w.double.runCi(w.repo, sha, {
      jobs: [{ name: 'test', attempts: [FAILING_TEST, { conclusion: 'success', hold: true }] }],
    });
    expect(w.double.ciHeld(runId)).toBe(false);
    await w.octokit.rest.actions.reRunWorkflowFailedJobs({ owner, repo: repoName, run_id: runId });
    await w.double.waitFor((d) => d.ciHeld(runId), { description: 'the re-run to be held' });
    await w.double.waitForDeliveries();
    expect(w.double.run(runId)).toMatchObject({ run_attempt: 2, status: 'queued' });
    const queued = (await checkRunsOnHead()).find((c) => c.name === 'test')!;
    expect(queued).toMatchObject({ status: 'queued', conclusion: null });
    expect(w.receiver.of('workflow_run', 'completed')).toHaveLength(1);

    await w.double.releaseCi(runId);
    expect(w.double.ciHeld(runId)).toBe(false);
    expect(w.double.run(runId)).toMatchObject({ run_attempt: 2, conclusion: 'success' });
    await w.double.waitForDeliveries();
    expect(w.receiver.of('workflow_run', 'completed')).toHaveLength(2);
    await expect(w.double.releaseCi(runId)).rejects.toThrow(/no held attempt/);

    const first = await w.double.runCi(w.repo, sha, {
      jobs: [{ name: 'lint', attempts: [{ conclusion: 'success', hold: true }] }],
    });
    expect(w.double.run(first)).toMatchObject({ status: 'queued' });
    await w.double.releaseCi(first);
    expect(w.double.run(first)).toMatchObject({ status: 'completed', conclusion: 'success' });
  });

  it("a fork's PR on the same commit runs the base repository's CI there, in a check suite of its own", async () => {
    const own = await w.double.runCi(w.repo, sha, {
      jobs: [{ name: 'test', attempts: [{ conclusion: 'success' }] }],
    });
    w.double.pullRequestCi(w.repo, [{ name: 'test', attempts: [{ conclusion: 'success' }] }], {
      fromForks: [{ name: 'test', attempts: [FAILING_TEST] }],
    });
    // The fork copies the branch, so its PR's head is the same commit.
    const forkPr = await w.double.openPr(w.repo, {
      head: 'agent/1/task_001',
      title: 'Same commit',
      by: 'outsider',
      fromFork: true,
    });
    const fork = w.double.runs(w.repo).find((r) => r.id !== own)!;
    await w.double.releaseCi(fork.id as number);
    await w.double.waitForDeliveries();

    const { data: runs } = await w.octokit.rest.actions.listWorkflowRunsForRepo({
      owner,
      repo: repoName,
      head_sha: sha,
    });
    expect(runs.workflow_runs.map((r) => [r.id, r.event, r.head_repository.full_name])).toEqual([
      [fork.id, 'pull_request', 'outsider/widgets'],
      [own, 'pull_request', 'acme/widgets'],
    ]);
    const forkRun = runs.workflow_runs[0]!;
    expect(forkRun).toMatchObject({ head_sha: sha, repository: { full_name: 'acme/widgets' } });
    const { data: bySuite } = await w.octokit.rest.actions.listWorkflowRunsForRepo({
      owner,
      repo: repoName,
      check_suite_id: forkRun.check_suite_id!,
    });
    expect(bySuite.workflow_runs.map((r) => r.id)).toEqual([fork.id]);

    // `latest` keeps one check run of a name per suite: both runs' `test` are on the commit.
    const checks = await checkRunsOnHead();
    expect(checks.map((c) => [c.name, c.conclusion, c.check_suite?.id])).toEqual([
      ['test', 'failure', forkRun.check_suite_id],
      ['test', 'success', runs.workflow_runs[1]!.check_suite_id],
    ]);
    // A suite of a fork's branch has no head_branch and names no PR, not even the one of the
    // base repository on the same commit.
    expect(checks[0]!.pull_requests).toEqual([]);
    expect(checks[1]!.pull_requests.map((p) => p.number)).toEqual([pr]);
    const forkSuite = w.receiver
      .of('check_suite', 'completed')
      .map((h) => h.payload['check_suite'] as { id: number; head_branch: string | null })
      .find((c) => c.id === forkRun.check_suite_id)!;
    expect(forkSuite).toMatchObject({ head_branch: null, pull_requests: [] });
    expect(w.double.pulls(w.repo).find((p) => p['number'] === forkPr)).toMatchObject({
      head: { sha, repo: { full_name: 'outsider/widgets' } },
    });
  });

  it("the worker's failed job has a log with its error line", async () => {
    w.double.setWorker(() => ({ kind: 'fail', reason: 'agent_failed', detail: 'exit 2' }));
    const { data: main } = await w.octokit.rest.git.getRef({
      owner,
      repo: repoName,
      ref: 'heads/main',
    });
    await w.octokit.rest.git.createRef({
      owner,
      repo: repoName,
      ref: 'refs/heads/agent/2/task_001',
      sha: main.object.sha,
    });
    const dispatch = await w.octokit.request(
      'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
      {
        owner,
        repo: repoName,
        workflow_id: 'agent-worker.yml',
        ref: 'agent/2/task_001',
        inputs: {
          task_id: 'task_001',
          issue: '2',
          attempt: '1',
          mode: 'work',
          coordinator_url: 'http://coordinator.test',
        },
        return_run_details: true,
      },
    );
    const runId = (dispatch.data as { workflow_run_id: number }).workflow_run_id;
    await w.double.waitFor((d) => d.run(runId)?.['status'] === 'completed', {
      description: 'the worker run to fail',
    });
    const jobId = w.double.jobsOf(runId)[0]!.id;
    const { data: log } = await w.octokit.rest.actions.downloadJobLogsForWorkflowRun({
      owner,
      repo: repoName,
      job_id: jobId,
    });
    expect(String(log)).toMatch(/ ##\[error\]agent-coordinator: agent_failed \(exit 2\)\n/);
  });
});
