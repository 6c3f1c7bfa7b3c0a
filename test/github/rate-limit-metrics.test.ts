import nock from 'nock';
import { Probot, type ProbotOctokit } from 'probot';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CoordinatorOctokit } from '../../src/github/coordinator-octokit.js';
import { withRateLimitMetrics } from '../../src/github/rate-limit-metrics.js';
import { createLogger } from '../../src/logger.js';
import { createMetrics, type Metrics } from '../../src/metrics.js';
import { LogCapture, TEST_APP_ID, TEST_PRIVATE_KEY, TestOctokit } from '../helpers/app.js';
import { Exposition } from '../helpers/prometheus.js';

const API = 'https://api.github.com';
const INSTALLATION = 2 ** 33 + 9;

const rateLimitHeaders = (remaining: number, resource = 'core') => ({
  'x-ratelimit-limit': '5000',
  'x-ratelimit-remaining': String(remaining),
  'x-ratelimit-used': String(5000 - remaining),
  'x-ratelimit-reset': '1900000000',
  'x-ratelimit-resource': resource,
});

/** GitHub's x-ratelimit-* headers reach the gauges; nock fails on any unplanned call. */
describe('rate limit metrics', () => {
  beforeAll(() => nock.disableNetConnect());
  afterAll(() => nock.enableNetConnect());
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    expect(pending).toEqual([]);
  });

  const probotWith = (Octokit: typeof ProbotOctokit, metrics: Metrics) =>
    new Probot({
      appId: TEST_APP_ID,
      privateKey: TEST_PRIVATE_KEY,
      Octokit: withRateLimitMetrics(Octokit, metrics),
      log: createLogger({ level: 'silent', destination: new LogCapture() }),
    });
  const gauges = async (metrics: Metrics) => new Exposition(await metrics.registry.metrics());
  const labels = { resource: 'core' };

  it('records remaining, limit and reset from every answer, errors included, naming no installation', async () => {
    const metrics = createMetrics();
    const probot = probotWith(TestOctokit, metrics);
    nock(API)
      .post(`/app/installations/${INSTALLATION}/access_tokens`)
      .reply(201, { token: 'ghs_test', permissions: {} }, rateLimitHeaders(4321))
      .get('/repos/o/r')
      .reply(200, { id: 1 })
      .get('/repos/o/r/pulls')
      .reply(200, [], rateLimitHeaders(4000))
      .post('/graphql')
      .reply(200, { data: { viewer: { login: 'x' } } }, rateLimitHeaders(4900, 'graphql'))
      .get('/repos/o/r/issues')
      .reply(
        403,
        { message: 'API rate limit exceeded for installation ID 1.' },
        rateLimitHeaders(0),
      );
    const octokit = await probot.auth(INSTALLATION);

    await octokit.request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' });
    // Not 4321: the token request made on the way is the App's own (JWT) call, under its limit.
    let m = await gauges(metrics);
    expect(m.all('agent_coordinator_github_rate_limit_remaining')).toEqual([]);

    await octokit.request('GET /repos/{owner}/{repo}/pulls', { owner: 'o', repo: 'r' });
    m = await gauges(metrics);
    expect(m.value('agent_coordinator_github_rate_limit_remaining', labels)).toBe(4000);
    expect(m.value('agent_coordinator_github_rate_limit_limit', labels)).toBe(5000);
    expect(m.value('agent_coordinator_github_rate_limit_reset_timestamp_seconds', labels)).toBe(
      1900000000,
    );

    await octokit.graphql('{ viewer { login } }');
    await expect(
      octokit.request('GET /repos/{owner}/{repo}/issues', { owner: 'o', repo: 'r' }),
    ).rejects.toMatchObject({ status: 403 });
    m = await gauges(metrics);
    expect(m.value('agent_coordinator_github_rate_limit_remaining', labels)).toBe(0);
    expect(
      m.value('agent_coordinator_github_rate_limit_remaining', { ...labels, resource: 'graphql' }),
    ).toBe(4900);
    expect(m.all('agent_coordinator_github_rate_limit_remaining')).toHaveLength(2);
    expect(m.text).not.toContain(String(INSTALLATION));
  });

  it('reports nothing for the App (JWT) client, and composes with the production Octokit', async () => {
    const metrics = createMetrics();
    const probot = probotWith(CoordinatorOctokit, metrics);
    nock(API)
      .get('/app')
      .reply(200, { id: TEST_APP_ID, slug: 'app' }, rateLimitHeaders(4999))
      .post(`/app/installations/${INSTALLATION}/access_tokens`)
      .reply(201, { token: 'ghs_test', permissions: {} })
      .get('/repos/o/r')
      .reply(200, { id: 1 }, rateLimitHeaders(1234));

    await (await probot.auth()).request('GET /app');
    expect((await gauges(metrics)).all('agent_coordinator_github_rate_limit_remaining')).toEqual(
      [],
    );
    await (
      await probot.auth(INSTALLATION)
    ).request('GET /repos/{owner}/{repo}', {
      owner: 'o',
      repo: 'r',
    });
    const m = await gauges(metrics);
    expect(m.value('agent_coordinator_github_rate_limit_remaining', labels)).toBe(1234);
  });
});
