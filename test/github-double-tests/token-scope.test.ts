import { Octokit } from '@octokit/rest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WORKER_WORKFLOW } from '../github-double/index.js';
import { appOctokit, expectClean, startWorld, stopWorld, type World } from './helpers.js';

function tokenOctokit(w: World, token: string): Octokit {
  return new Octokit({
    baseUrl: w.double.apiUrl,
    auth: token,
    request: { retries: 0 },
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
}

interface TokenAnswer {
  token: string;
  permissions: Record<string, string>;
  repository_selection: string;
  repositories?: { full_name: string }[];
}

describe('github double: scoped installation tokens', () => {
  let w: World;
  let gadgetsId: number;

  beforeEach(async () => {
    w = await startWorld();
    await w.double.createRepo({ owner: 'acme', name: 'gadgets' });
    await w.double.createRepo({ owner: 'globex', name: 'other' });
    gadgetsId = Number(w.double.repository('acme/gadgets')['id']);
  });

  afterEach(async () => {
    await stopWorld(w);
    expectClean(w.double);
  });

  async function mint(body: Record<string, unknown>): Promise<TokenAnswer> {
    const { data } = await appOctokit(w.double).request(
      'POST /app/installations/{installation_id}/access_tokens',
      { installation_id: w.installationId, ...body },
    );
    return data as TokenAnswer;
  }

  it('answers with the permissions and repositories the token holds', async () => {
    const scoped = await mint({
      repositories: ['widgets'],
      permissions: { issues: 'write', contents: 'read' },
    });
    expect(scoped.permissions).toEqual({ issues: 'write', contents: 'read', metadata: 'read' });
    expect(scoped.repository_selection).toBe('selected');
    expect(scoped.repositories?.map((r) => r.full_name)).toEqual(['acme/widgets']);

    const whole = await mint({});
    expect(whole.repository_selection).toBe('all');
    expect(whole.repositories).toBeUndefined();
    expect(whole.permissions).toMatchObject({ contents: 'write', statuses: 'read' });
  });

  it('refuses a permission the installation lacks and a repository outside it (422)', async () => {
    await expect(mint({ permissions: { administration: 'write' } })).rejects.toMatchObject({
      status: 422,
      response: {
        data: { message: 'The permissions requested are not granted to this installation.' },
      },
    });
    await expect(mint({ permissions: { statuses: 'write' } })).rejects.toMatchObject({
      status: 422,
    });
    const outside =
      'There is at least one repository that does not exist or is not accessible to the parent installation.';
    await expect(mint({ repositories: ['other'] })).rejects.toMatchObject({
      status: 422,
      response: { data: { message: outside } },
    });
    const globexId = Number(w.double.repository('globex/other')['id']);
    await expect(mint({ repository_ids: [globexId] })).rejects.toMatchObject({ status: 422 });
  });

  it('reaches only its repositories (404 elsewhere) and only with its permissions (403)', async () => {
    const scoped = await mint({ repository_ids: [gadgetsId], permissions: { issues: 'write' } });
    const octokit = tokenOctokit(w, scoped.token);
    await expect(octokit.rest.repos.get({ owner: 'acme', repo: 'widgets' })).rejects.toMatchObject({
      status: 404,
    });
    const issue = await octokit.rest.issues.create({ owner: 'acme', repo: 'gadgets', title: 'x' });
    expect(issue.status).toBe(201);
    const main = w.double.branch('acme/gadgets', 'main')!.sha;
    const refused = octokit.rest.git.createRef({
      owner: 'acme',
      repo: 'gadgets',
      ref: 'refs/heads/new',
      sha: main,
    });
    await expect(refused).rejects.toMatchObject({
      status: 403,
      response: {
        data: {
          message: 'Resource not accessible by integration',
          documentation_url: expect.stringMatching(/^https:\/\/docs\.github\.com\/rest\/git\/refs/),
          status: '403',
        },
      },
    });
    expect(w.double.branch('acme/gadgets', 'new')).toBeUndefined();
  });

  it("plays a job's GITHUB_TOKEN: its repository, its permissions, revoked when the job ends", async () => {
    await w.double.setPermission(w.repo, 'alice', 'write');
    w.double.setWorker(null);
    const { data } = await w.octokit.request(
      'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
      {
        owner: 'acme',
        repo: 'widgets',
        workflow_id: WORKER_WORKFLOW,
        ref: 'main',
        inputs: {
          task_id: 'plan',
          issue: '1',
          attempt: '1',
          mode: 'plan',
          coordinator_url: 'http://coordinator.test',
        },
        return_run_details: true,
      },
    );
    const runId = (data as { workflow_run_id: number }).workflow_run_id;
    const octokit = tokenOctokit(w, w.double.jobToken(runId));
    const file = await octokit.rest.repos.getContent({
      owner: 'acme',
      repo: 'widgets',
      path: 'README.md',
    });
    expect(file.status).toBe(200);
    // The worker workflow asks for contents: read only.
    await expect(
      octokit.rest.issues.createComment({
        owner: 'acme',
        repo: 'widgets',
        issue_number: 1,
        body: 'x',
      }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(octokit.rest.repos.get({ owner: 'acme', repo: 'gadgets' })).rejects.toMatchObject({
      status: 404,
    });
    await w.double.completeWorkflowRun(runId, 'success');
    await expect(
      octokit.rest.repos.getContent({ owner: 'acme', repo: 'widgets', path: 'README.md' }),
    ).rejects.toMatchObject({ status: 401 });
  });
});
