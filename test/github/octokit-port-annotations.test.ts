import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOctokitPort } from '../../src/github/octokit-port.js';
import { TestOctokit } from '../helpers/app.js';

const API = 'https://api.github.com';
const repo = { owner: 'acme', repo: 'widgets' };

// GitHub's answers, trimmed to the fields the port reads plus the ones that tell jobs apart.
const job = (id: number, checkRunId: number, runAttempt = 1, name = 'work') => ({
  id,
  run_id: 77,
  run_attempt: runAttempt,
  name,
  status: 'completed',
  conclusion: 'failure',
  check_run_url: `${API}/repos/acme/widgets/check-runs/${checkRunId}`,
});
const annotation = (level: string, message: string) => ({
  path: '.github',
  blob_href: 'https://github.com/acme/widgets/blob/abc/.github',
  start_line: 1,
  end_line: 1,
  start_column: null,
  end_column: null,
  annotation_level: level,
  title: '',
  message,
  raw_details: '',
});

/** The port's one read of what a worker run said: its jobs, then each job's check-run annotations. */
describe("the GitHub port's job annotations", () => {
  beforeAll(() => nock.disableNetConnect());
  afterAll(() => nock.enableNetConnect());
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    expect(pending).toEqual([]);
  });

  const port = () =>
    createOctokitPort(
      new TestOctokit({
        auth: 'ghs_test',
      }),
    );

  it("lists the run's latest jobs and returns the annotations of their check runs", async () => {
    nock(API)
      .get('/repos/acme/widgets/actions/runs/77/jobs')
      .query({ filter: 'latest', per_page: '100' })
      .reply(200, { total_count: 1, jobs: [job(501, 9001)] })
      .get('/repos/acme/widgets/check-runs/9001/annotations')
      .query({ per_page: '100' })
      .reply(200, [
        annotation('warning', 'Node.js 16 actions are deprecated.'),
        annotation('failure', 'agent-coordinator: no_changes (the agent left nothing)'),
        annotation('failure', 'Process completed with exit code 1.'),
        annotation(
          'notice',
          'agent-coordinator-usage: cost_usd=0.5 input_tokens=1 output_tokens=2',
        ),
      ]);
    expect(await port().runAnnotations(repo, 77)).toEqual([
      { level: 'warning', message: 'Node.js 16 actions are deprecated.' },
      { level: 'failure', message: 'agent-coordinator: no_changes (the agent left nothing)' },
      { level: 'failure', message: 'Process completed with exit code 1.' },
      {
        level: 'notice',
        message: 'agent-coordinator-usage: cost_usd=0.5 input_tokens=1 output_tokens=2',
      },
    ]);
  });

  it("reads a re-run's own jobs only: none it did not run again, whose attempt said its part", async () => {
    nock(API)
      .get('/repos/acme/widgets/actions/runs/77/attempts/3/jobs')
      .query({ per_page: '100' })
      .reply(200, {
        total_count: 3,
        jobs: [
          job(501, 9001, 1, 'assignment'),
          job(602, 9102, 2, 'agent'),
          job(703, 9203, 3, 'publish'),
        ],
      })
      .get('/repos/acme/widgets/check-runs/9203/annotations')
      .query({ per_page: '100' })
      .reply(200, [
        annotation(
          'notice',
          'agent-coordinator-usage: cost_usd=0.5 input_tokens=1 output_tokens=2',
        ),
      ]);
    expect(await port().runAnnotations(repo, 77, 3)).toEqual([
      {
        level: 'notice',
        message: 'agent-coordinator-usage: cost_usd=0.5 input_tokens=1 output_tokens=2',
      },
    ]);
  });

  it('lets a refusal of the annotations read through to the caller', async () => {
    nock(API)
      .get('/repos/acme/widgets/actions/runs/77/jobs')
      .query(true)
      .reply(200, { total_count: 1, jobs: [job(501, 9001)] })
      .get('/repos/acme/widgets/check-runs/9001/annotations')
      .query(true)
      .reply(403, { message: 'Resource not accessible by integration' });
    await expect(port().runAnnotations(repo, 77)).rejects.toMatchObject({ status: 403 });
  });
});
