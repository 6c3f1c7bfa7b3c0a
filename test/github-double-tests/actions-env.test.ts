import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Octokit } from '@octokit/rest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WORKER_RUN_NAME, WORKER_WORKFLOW } from '../github-double/index.js';
import { expectClean, startWorld, stopWorld, type World } from './helpers.js';

describe('github double: the environment of an action step', () => {
  let w: World;

  beforeEach(async () => {
    w = await startWorld();
    w.double.setWorker(null);
  });

  afterEach(async () => {
    await stopWorld(w);
    expectClean(w.double);
  });

  async function dispatch(workflow: string, inputs: Record<string, string>): Promise<number> {
    const { data } = await w.octokit.request(
      'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
      {
        owner: 'acme',
        repo: 'widgets',
        workflow_id: workflow,
        ref: 'main',
        inputs,
        return_run_details: true,
      },
    );
    return (data as { workflow_run_id: number }).workflow_run_id;
  }

  it('is what GitHub gives a JavaScript action in a workflow_dispatch run', async () => {
    const runId = await dispatch(WORKER_WORKFLOW, {
      task_id: 'api',
      issue: '7',
      attempt: '1',
      mode: 'work',
      coordinator_url: 'http://coordinator.test',
    });
    const run = w.double.run(runId)!;
    expect(run).toMatchObject({
      run_attempt: 1,
      run_number: 1,
      display_title: 'agent-coordinator #7 api attempt 1',
    });
    expect(WORKER_RUN_NAME).toContain('${{ inputs.issue }}');
    expect(typeof run['created_at']).toBe('string');

    const workspace = await mkdtemp(join(tmpdir(), 'ws-'));
    const env = await w.double.actionsEnv(runId, {
      workspace,
      inputs: { 'coordinator url': 'https://c.example', task_id: 'api' },
      idToken: true,
    });
    const repo = w.double.repository(w.repo);
    expect(env).toMatchObject({
      GITHUB_ACTIONS: 'true',
      CI: 'true',
      GITHUB_REPOSITORY: 'acme/widgets',
      GITHUB_REPOSITORY_ID: String(repo['id']),
      GITHUB_REPOSITORY_OWNER: 'acme',
      GITHUB_REPOSITORY_OWNER_ID: String((repo['owner'] as { id: number }).id),
      GITHUB_RUN_ID: String(runId),
      GITHUB_RUN_NUMBER: '1',
      GITHUB_RUN_ATTEMPT: '1',
      GITHUB_REF: 'refs/heads/main',
      GITHUB_REF_NAME: 'main',
      GITHUB_REF_TYPE: 'branch',
      GITHUB_SHA: run['head_sha'],
      GITHUB_EVENT_NAME: 'workflow_dispatch',
      GITHUB_WORKFLOW: 'agent-coordinator worker',
      GITHUB_WORKFLOW_REF: `acme/widgets/.github/workflows/${WORKER_WORKFLOW}@refs/heads/main`,
      GITHUB_WORKFLOW_SHA: run['head_sha'],
      GITHUB_ACTOR: w.double.botLogin,
      GITHUB_SERVER_URL: w.double.url,
      GITHUB_API_URL: w.double.apiUrl,
      GITHUB_GRAPHQL_URL: w.double.graphqlUrl,
      GITHUB_WORKSPACE: workspace,
      RUNNER_OS: 'Linux',
      INPUT_COORDINATOR_URL: 'https://c.example',
      INPUT_TASK_ID: 'api',
      ACTIONS_ID_TOKEN_REQUEST_URL: w.double.oidc.requestUrl(runId),
    });
    for (const name of [
      'GITHUB_OUTPUT',
      'GITHUB_STEP_SUMMARY',
      'GITHUB_ENV',
      'GITHUB_PATH',
      'GITHUB_STATE',
    ])
      expect((await stat(env[name]!)).isFile()).toBe(true);
    expect(env['RUNNER_TEMP']).toBeTruthy();
    const event = JSON.parse(await readFile(env['GITHUB_EVENT_PATH']!, 'utf8')) as Record<
      string,
      unknown
    >;
    expect(event).toMatchObject({
      ref: 'refs/heads/main',
      inputs: { task_id: 'api', issue: '7', attempt: '1', mode: 'work' },
      workflow: `.github/workflows/${WORKER_WORKFLOW}`,
      repository: { full_name: 'acme/widgets' },
    });
  });

  it('sets the OIDC request variables only when the job has id-token: write', async () => {
    await w.double.addWorkflow(w.repo, { file: 'plain.yml', name: 'plain' });
    const runId = await dispatch('plain.yml', {});
    const env = await w.double.actionsEnv(runId);
    expect(env).not.toHaveProperty('ACTIONS_ID_TOKEN_REQUEST_URL');
    expect(env).not.toHaveProperty('ACTIONS_ID_TOKEN_REQUEST_TOKEN');
    await expect(w.double.actionsEnv(runId, { idToken: true })).rejects.toThrow(/id-token: write/);
  });

  it("applies action.yml defaults, ${{ github.token }} as the job's GITHUB_TOKEN", async () => {
    const runId = await dispatch(WORKER_WORKFLOW, {
      task_id: 'plan',
      issue: '1',
      attempt: '1',
      mode: 'plan',
      coordinator_url: 'http://coordinator.test',
    });
    const dir = await mkdtemp(join(tmpdir(), 'action-'));
    const actionYml = join(dir, 'action.yml');
    await writeFile(
      actionYml,
      'name: x\ninputs:\n  token:\n    default: ${{ github.token }}\n  depth:\n    default: 1\nruns:\n  using: node20\n  main: index.js\n',
    );
    const env = await w.double.actionsEnv(runId, { actionYml, inputs: { depth: '0' } });
    expect(env['INPUT_DEPTH']).toBe('0');
    const octokit = new Octokit({ baseUrl: w.double.apiUrl, auth: env['INPUT_TOKEN'] });
    const readme = await octokit.rest.repos.getContent({
      owner: 'acme',
      repo: 'widgets',
      path: 'README.md',
    });
    expect(readme.status).toBe(200);
  });
});
