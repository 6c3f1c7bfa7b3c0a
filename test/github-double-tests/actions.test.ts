import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WORKER_INPUTS, manualWorker } from '../github-double/index.js';
import { expectClean, startWorld, stopWorld, type World } from './helpers.js';

const owner = 'acme';
const repoName = 'widgets';

function inputs(over: Record<string, unknown> = {}): Record<string, unknown> {
  const base: Record<string, string> = Object.fromEntries(WORKER_INPUTS.map((n) => [n, '']));
  return {
    ...base,
    task_id: 'task_001',
    issue: '1',
    attempt: '1',
    mode: 'work',
    coordinator_url: 'http://coordinator.test',
    ...over,
  };
}

describe('actions: workflow_dispatch and the simulated worker', () => {
  let w: World;
  beforeEach(async () => {
    w = await startWorld();
  });
  afterEach(async () => {
    await stopWorld(w);
    expectClean(w.double);
  });

  async function createTaskBranch(branch = 'agent/1/task_001'): Promise<void> {
    const main = w.double.branch(w.repo, 'main')!;
    await w.octokit.rest.git.createRef({
      owner,
      repo: repoName,
      ref: `refs/heads/${branch}`,
      sha: main.sha,
    });
  }

  it('refuses undeclared inputs, non-string values and unknown refs with 422', async () => {
    const { octokit, double } = w;
    await createTaskBranch();
    const dispatch = (ref: string, body: Record<string, unknown>) =>
      octokit.request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', {
        owner,
        repo: repoName,
        workflow_id: 'agent-worker.yml',
        ref,
        inputs: body,
      });
    await expect(dispatch('agent/1/task_001', inputs({ surprise: 'x' }))).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('Unexpected inputs provided: ["surprise"]'),
    });
    await expect(dispatch('agent/1/task_001', inputs({ attempt: 1 }))).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining("'attempt' must be a string"),
    });
    await expect(dispatch('agent/9/nope', inputs())).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('No ref found for: agent/9/nope'),
    });
    await expect(
      octokit.request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', {
        owner,
        repo: repoName,
        workflow_id: 'missing.yml',
        ref: 'main',
      }),
    ).rejects.toMatchObject({ status: 404 });
    expect(double.runs(w.repo)).toHaveLength(0);
    // GitHub-side validation failures are the app's mistakes but not spec violations.
    expect(double.violations).toHaveLength(0);
  });

  it('answers return_run_details with the run, and the worker opens a marked PR', async () => {
    const { octokit, double, receiver, repo } = w;
    await double.openIssue(repo, { title: 'Login', user: 'alice' });
    await createTaskBranch();
    const res = await octokit.request(
      'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
      {
        owner,
        repo: repoName,
        workflow_id: 'agent-worker.yml',
        ref: 'agent/1/task_001',
        inputs: inputs(),
        return_run_details: true,
      },
    );
    expect(res.status).toBe(200);
    const dispatchedAt = double.branch(repo, 'agent/1/task_001')!.sha;
    const runId = (res.data as { workflow_run_id: number }).workflow_run_id;
    expect(runId).toBeGreaterThan(2 ** 31);
    await double.waitForWorkers();
    await double.waitForDeliveries();

    const run = double.run(runId)!;
    expect(run).toMatchObject({
      status: 'completed',
      conclusion: 'success',
      event: 'workflow_dispatch',
      head_branch: 'agent/1/task_001',
      display_title: 'agent-coordinator #1 task_001 attempt 1',
      inputs: expect.objectContaining({ mode: 'work' }),
    });
    const { data: viaApi } = await octokit.rest.actions.getWorkflowRun({
      owner,
      repo: repoName,
      run_id: runId,
    });
    expect(viaApi.id).toBe(runId);

    const pulls = double.pulls(repo);
    expect(pulls).toHaveLength(1);
    const pr = pulls[0]!;
    expect(pr).toMatchObject({
      head: { ref: 'agent/1/task_001' },
      base: { ref: 'main' },
      user: { login: 'agent-coordinator[bot]', type: 'Bot' },
    });
    expect(String(pr['body'])).toContain(
      '<!-- agent-coordinator:task issue=1 task=task_001 attempt=1 -->',
    );
    expect(String(pr['body'])).toMatch(
      /<!-- agent-coordinator:usage cost_usd=[\d.]+ input_tokens=\d+ output_tokens=\d+ -->/,
    );

    expect(receiver.names()).toEqual([
      'issues.opened',
      'push',
      'workflow_run.requested',
      'check_run.created',
      'workflow_job.queued',
      'workflow_run.in_progress',
      'workflow_job.in_progress',
      'push',
      'pull_request.opened',
      'check_run.completed',
      'check_suite.completed',
      'workflow_job.completed',
      'workflow_run.completed',
    ]);
    const { data: jobs } = await octokit.rest.actions.listJobsForWorkflowRun({
      owner,
      repo: repoName,
      run_id: runId,
    });
    expect(jobs.jobs).toEqual([
      expect.objectContaining({
        run_id: runId,
        status: 'completed',
        conclusion: 'success',
        html_url: expect.stringContaining(`/actions/runs/${runId}/job/`),
      }),
    ]);
    const completed = receiver.of('workflow_run', 'completed')[0]!.payload;
    expect(completed['installation']).toMatchObject({ id: w.installationId });
    expect(completed['workflow_run']).toMatchObject({ id: runId, conclusion: 'success' });
    // GitHub runs a dispatched workflow on the branch's head at dispatch and lists its jobs
    // there, as GitHub Actions' check runs in the run's own suite; the PR the worker opened on
    // a new commit is not at that head, so none is named.
    const suiteId = Number(double.run(runId)!['check_suite_id']);
    const { data: onCommit } = await octokit.rest.checks.listForRef({
      owner,
      repo: repoName,
      ref: dispatchedAt,
    });
    expect(onCommit.check_runs).toEqual([
      expect.objectContaining({
        id: jobs.jobs[0]!.id,
        name: 'work',
        status: 'completed',
        conclusion: 'success',
        app: expect.objectContaining({ slug: 'github-actions' }),
        check_suite: { id: suiteId },
        pull_requests: [],
      }),
    ]);
    expect(receiver.of('check_suite', 'completed')[0]!.payload['check_suite']).toMatchObject({
      id: suiteId,
      head_branch: 'agent/1/task_001',
      head_sha: dispatchedAt,
      app: { slug: 'github-actions' },
      pull_requests: [],
    });

    // A second attempt in fix mode updates the same PR: edited body, then synchronize.
    await octokit.request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', {
      owner,
      repo: repoName,
      workflow_id: 'agent-worker.yml',
      ref: 'agent/1/task_001',
      inputs: inputs({ attempt: '2', mode: 'fix' }),
    });
    const fixedAt = String((pr['head'] as { sha: string }).sha);
    await double.waitForWorkers();
    await double.waitForDeliveries();
    expect(double.pulls(repo)).toHaveLength(1);
    expect(String(double.pull(repo, Number(pr['number']))['body'])).toContain('attempt=2');
    // The fix ran on the PR's head: its job's check run is there, and while the PR's head and
    // branch are the suite's, the suite names the PR.
    const [fixJob] = receiver.of('check_run', 'created').slice(-1);
    expect(fixJob!.payload['check_run']).toMatchObject({
      head_sha: fixedAt,
      check_suite: { head_branch: 'agent/1/task_001' },
      pull_requests: [expect.objectContaining({ number: pr['number'] })],
    });
    expect(
      receiver
        .names()
        .filter((n) => !n.startsWith('workflow_job.') && !n.startsWith('check_'))
        .slice(-6),
    ).toEqual([
      'workflow_run.requested',
      'workflow_run.in_progress',
      'pull_request.edited',
      'push',
      'pull_request.synchronize',
      'workflow_run.completed',
    ]);
  });

  it('answers 204 without return_run_details, or when the knob forces it', async () => {
    const { octokit, double } = w;
    double.setWorker(manualWorker);
    await createTaskBranch();
    const plain = await octokit.rest.actions.createWorkflowDispatch({
      owner,
      repo: repoName,
      workflow_id: 'agent-worker.yml',
      ref: 'agent/1/task_001',
      inputs: inputs() as Record<string, string>,
    });
    expect(plain.status).toBe(204);
    double.dispatchReturnsNoContent = true;
    const forced = await octokit.request(
      'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
      {
        owner,
        repo: repoName,
        workflow_id: 'agent-worker.yml',
        ref: 'agent/1/task_001',
        inputs: inputs({ attempt: '2' }),
        return_run_details: true,
      },
    );
    expect(forced.status).toBe(204);
    const { data } = await octokit.rest.actions.listWorkflowRunsForRepo({
      owner,
      repo: repoName,
      branch: 'agent/1/task_001',
      event: 'workflow_dispatch',
      status: 'queued',
      created: `>=${new Date(Date.now() - 60_000).toISOString()}`,
    });
    expect(data.total_count).toBe(2);
    const { data: future } = await octokit.rest.actions.listWorkflowRunsForRepo({
      owner,
      repo: repoName,
      created: `>${new Date(Date.now() + 60_000).toISOString()}`,
    });
    expect(future.total_count).toBe(0);
    expect(data.workflow_runs.map((r) => r.display_title)).toEqual([
      'agent-coordinator #1 task_001 attempt 2',
      'agent-coordinator #1 task_001 attempt 1',
    ]);
  });

  it('plays failures, hangs until cancelled, and posts plans as the App (its token)', async () => {
    const { octokit, double, repo } = w;
    const issue = await double.openIssue(repo, { title: 'Plan me', user: 'alice' });
    await createTaskBranch('agent/1/plan');
    await createTaskBranch('agent/1/task_001');
    double.setWorker((run) =>
      run.inputs['mode'] === 'plan'
        ? { kind: 'plan', tasksBlock: '- id: a\n  title: A\n  deps: []' }
        : run.inputs['attempt'] === '1'
          ? { kind: 'fail', conclusion: 'timed_out' }
          : { kind: 'hang' },
    );
    const dispatch = async (ref: string, extra: Record<string, unknown>) => {
      const res = await octokit.request(
        'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
        {
          owner,
          repo: repoName,
          workflow_id: 'agent-worker.yml',
          ref,
          inputs: inputs({ issue: String(issue), ...extra }),
          return_run_details: true,
        },
      );
      return (res.data as { workflow_run_id: number }).workflow_run_id;
    };
    const planRun = await dispatch('agent/1/plan', { task_id: 'plan', mode: 'plan' });
    const failRun = await dispatch('agent/1/task_001', {});
    const hangRun = await dispatch('agent/1/task_001', { attempt: '2' });
    await double.waitForWorkers();
    expect(double.run(failRun)).toMatchObject({ status: 'completed', conclusion: 'timed_out' });
    expect(double.run(hangRun)).toMatchObject({ status: 'in_progress', conclusion: null });
    const planComment = double.comments(repo, issue).at(-1)!;
    expect(planComment['user']).toMatchObject({ login: `${double.appSlug}[bot]`, type: 'Bot' });
    expect(planComment['performed_via_github_app']).toMatchObject({ id: double.appId });
    expect(String(planComment['body'])).toContain('```tasks\n- id: a');
    expect(String(planComment['body'])).toContain(
      `<!-- agent-coordinator:plan run_id=${planRun} -->`,
    );

    await octokit.rest.actions.cancelWorkflowRun({ owner, repo: repoName, run_id: hangRun });
    expect(double.run(hangRun)).toMatchObject({ status: 'completed', conclusion: 'cancelled' });
    await expect(
      octokit.rest.actions.cancelWorkflowRun({ owner, repo: repoName, run_id: hangRun }),
    ).rejects.toMatchObject({ status: 409 });
    expect(double.pulls(repo)).toHaveLength(0);
  });

  it('lets a test drive a manual run step by step', async () => {
    const { octokit, double, receiver } = w;
    double.setWorker(null);
    await createTaskBranch();
    const res = await octokit.request(
      'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
      {
        owner,
        repo: repoName,
        workflow_id: 'agent-worker.yml',
        ref: 'agent/1/task_001',
        inputs: inputs(),
        return_run_details: true,
      },
    );
    const runId = (res.data as { workflow_run_id: number }).workflow_run_id;
    expect(double.run(runId)).toMatchObject({ status: 'queued' });
    await double.startWorkflowRun(runId);
    await double.completeWorkflowRun(runId, 'failure');
    expect(receiver.of('workflow_run').map((h) => h.action)).toEqual([
      'requested',
      'in_progress',
      'completed',
    ]);
    expect(receiver.of('workflow_job').map((h) => h.action)).toEqual([
      'queued',
      'in_progress',
      'completed',
    ]);
    expect(double.run(runId)).toMatchObject({ conclusion: 'failure' });
  });

  it("lists a run's jobs on another branch's PR head, naming no PR of another branch", async () => {
    const { octokit, double, receiver, repo } = w;
    double.setWorker(null);
    const pr = await double.openPr(repo, { head: 'agent/1/a', title: 'A', by: 'alice' });
    const head = double.branch(repo, 'agent/1/a')!.sha;
    // A stacked task's branch starts at its dependency's PR head (docs/stacking.md).
    await octokit.rest.git.createRef({
      owner,
      repo: repoName,
      ref: 'refs/heads/agent/1/b',
      sha: head,
    });
    const res = await octokit.request(
      'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
      {
        owner,
        repo: repoName,
        workflow_id: 'agent-worker.yml',
        ref: 'agent/1/b',
        inputs: inputs({ task_id: 'b' }),
        return_run_details: true,
      },
    );
    const runId = (res.data as { workflow_run_id: number }).workflow_run_id;
    await double.startWorkflowRun(runId);
    // The runner reads the workflow's jobs: they replace the one the run was made with.
    await double.startJobs(runId, ['assignment', 'agent']);
    await double.finishJob(runId, 'assignment', 'success');
    await double.finishJob(runId, 'agent', 'failure');
    await double.completeWorkflowRun(runId, 'failure');
    await double.waitForDeliveries();

    const { data } = await octokit.rest.checks.listForRef({ owner, repo: repoName, ref: head });
    expect(data.check_runs.map((c) => [c.name, c.conclusion, c.app?.slug])).toEqual([
      ['agent', 'failure', 'github-actions'],
      ['assignment', 'success', 'github-actions'],
    ]);
    expect(data.check_runs.map((c) => c.pull_requests)).toEqual([[], []]);
    const suites = receiver.of('check_suite', 'completed').map((h) => h.payload['check_suite']);
    expect(suites).toEqual([
      expect.objectContaining({
        head_sha: head,
        head_branch: 'agent/1/b',
        conclusion: 'failure',
        pull_requests: [],
      }),
    ]);
    // The same commit's own branch still names its PR.
    const { data: own } = await octokit.rest.checks.create({
      owner,
      repo: repoName,
      name: 'order',
      head_sha: head,
    });
    expect(own.pull_requests.map((p) => p.number)).toEqual([pr]);
  });
});
