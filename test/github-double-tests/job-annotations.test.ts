import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WORKER_INPUTS } from '../github-double/index.js';
import { expectClean, startWorld, stopWorld, type World } from './helpers.js';

const owner = 'acme';
const repoName = 'widgets';
const BRANCH = 'agent/1/task_001';

describe("actions: a job's annotations on its check run", () => {
  let w: World;
  beforeEach(async () => {
    w = await startWorld();
    const main = w.double.branch(w.repo, 'main')!;
    await w.octokit.rest.git.createRef({
      owner,
      repo: repoName,
      ref: `refs/heads/${BRANCH}`,
      sha: main.sha,
    });
  });
  afterEach(async () => {
    await stopWorld(w);
    expectClean(w.double);
  });

  async function dispatch(): Promise<number> {
    const inputs = {
      ...Object.fromEntries(WORKER_INPUTS.map((n) => [n, ''])),
      task_id: 'task_001',
      issue: '1',
      attempt: '1',
      mode: 'work',
      coordinator_url: 'http://coordinator.test',
    };
    const res = await w.octokit.request(
      'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
      {
        owner,
        repo: repoName,
        workflow_id: 'agent-worker.yml',
        ref: BRANCH,
        inputs,
        return_run_details: true,
      },
    );
    return (res.data as { workflow_run_id: number }).workflow_run_id;
  }

  async function annotationsOf(runId: number) {
    const { data } = await w.octokit.rest.actions.listJobsForWorkflowRun({
      owner,
      repo: repoName,
      run_id: runId,
    });
    const url = data.jobs[0]!.check_run_url!;
    const checkRunId = Number(url.split('/').at(-1));
    const { data: annotations } = await w.octokit.rest.checks.listAnnotations({
      owner,
      repo: repoName,
      check_run_id: checkRunId,
    });
    return { url, annotations };
  }

  it("serves the failing worker's error annotation at the job's check_run_url", async () => {
    w.double.setWorker(() => ({
      kind: 'fail',
      reason: 'workflow_files_changed',
      detail: 'changed .github/workflows/ci.yml',
    }));
    const runId = await dispatch();
    await w.double.waitForWorkers();
    const { url, annotations } = await annotationsOf(runId);
    expect(url).toMatch(/\/repos\/acme\/widgets\/check-runs\/\d+$/);
    expect(annotations).toEqual([
      expect.objectContaining({
        path: '.github',
        start_line: 1,
        annotation_level: 'failure',
        message: 'agent-coordinator: workflow_files_changed (changed .github/workflows/ci.yml)',
      }),
    ]);
  });

  it('records annotations only while the job runs, and 404s an unknown check run', async () => {
    w.double.setWorker(null);
    const runId = await dispatch();
    expect(() =>
      w.double.annotateJob(runId, [{ message: 'x', annotation_level: 'failure' }]),
    ).toThrow(/not running/);
    await w.double.startWorkflowRun(runId);
    w.double.annotateJob(runId, [
      { message: 'lint', annotation_level: 'warning', path: 'src/a.ts', start_line: 3 },
    ]);
    await w.double.completeWorkflowRun(runId, 'failure');
    const { annotations } = await annotationsOf(runId);
    expect(annotations).toEqual([
      expect.objectContaining({ path: 'src/a.ts', start_line: 3, end_line: 3, message: 'lint' }),
    ]);
    await expect(
      w.octokit.rest.checks.listAnnotations({ owner, repo: repoName, check_run_id: 1 }),
    ).rejects.toMatchObject({ status: 404 });
  });
});
