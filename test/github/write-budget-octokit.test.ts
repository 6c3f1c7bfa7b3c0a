import { eq } from 'drizzle-orm';
import nock from 'nock';
import { Probot, type ProbotOctokit } from 'probot';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { CoordinatorOctokit } from '../../src/github/coordinator-octokit.js';
import { WriteBudget } from '../../src/github/write-budget.js';
import { withWriteBudget } from '../../src/github/write-budget-octokit.js';
import { createLogger } from '../../src/logger.js';
import { githubWriteReservations } from '../../db/schema.js';
import { openDatabase, type DatabaseHandle } from '../../src/store/database.js';
import { WriteReservationStore } from '../../src/store/write-reservations.js';
import { LogCapture, TEST_APP_ID, TEST_PRIVATE_KEY } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';

const API = 'https://api.github.com';
const INSTALLATION = 2 ** 33 + 21;
const REPO = { owner: 'o', repo: 'r' };

/**
 * The production client with the write budget: the budget is an installation's one write
 * limiter. The throttling plugin no longer starts writes one a second in its own order, and still
 * waits out GitHub's `retry-after` on a secondary rate limit. nock fails on any unplanned call.
 */
describe('the production Octokit with the write budget', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let logs: LogCapture;

  beforeAll(async () => {
    nock.disableNetConnect();
    database = await createTestDatabase(inject('templateDatabase'));
    handle = await openDatabase({ databaseUrl: database.url, poolSize: 4 });
  });
  afterAll(async () => {
    nock.enableNetConnect();
    await handle.close();
    await database.drop();
  });
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    expect(pending).toEqual([]);
  });

  const clientOf = async (Octokit: typeof ProbotOctokit) => {
    logs = new LogCapture();
    const budget = new WriteBudget({ reservations: new WriteReservationStore(handle.db) });
    const probot = new Probot({
      appId: TEST_APP_ID,
      privateKey: TEST_PRIVATE_KEY,
      Octokit: withWriteBudget(Octokit, budget),
      log: createLogger({ level: 'warn', destination: logs }),
    });
    nock(API)
      .post(`/app/installations/${INSTALLATION}/access_tokens`)
      .reply(201, { token: 'ghs_test', permissions: {} });
    return probot.auth(INSTALLATION);
  };

  const reservations = async () =>
    (
      await handle.db
        .select({ id: githubWriteReservations.id })
        .from(githubWriteReservations)
        .where(eq(githubWriteReservations.installationId, INSTALLATION))
    ).length;

  it("sends an installation's writes as the budget grants them, not a second apart", async () => {
    const octokit = await clientOf(CoordinatorOctokit);
    const before = await reservations();
    // With the throttling plugin's write limiters, five writes start one a second apart (three
    // for a route that notifies people): the last reaches GitHub at least 4 s after the first.
    const WRITES = 5;
    const arrivals: number[] = [];
    const arrive = () => arrivals.push(performance.now());
    nock(API)
      .patch(/\/repos\/o\/r\/issues\/comments\/\d+$/)
      .times(WRITES - 1)
      .reply(() => (arrive(), [200, {}]))
      .post('/repos/o/r/actions/workflows/worker.yml/dispatches')
      .reply(() => (arrive(), [204]));
    await Promise.all([
      ...Array.from({ length: WRITES - 1 }, (_, i) =>
        octokit.rest.issues.updateComment({ ...REPO, comment_id: i + 1, body: 'status' }),
      ),
      octokit.request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', {
        ...REPO,
        workflow_id: 'worker.yml',
        ref: 'main',
      }),
    ]);
    expect(arrivals).toHaveLength(WRITES);
    // Only the budget's reservations (a few statements each) come between them: well under the
    // plugin's one second, whatever the machine's load.
    expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeLessThan(1000);
    // Each counted once by the installation's budget.
    expect((await reservations()) - before).toBe(WRITES);
  });

  it("still waits out GitHub's retry-after on a secondary rate limit, and retries", async () => {
    // retry-after in milliseconds rather than seconds, so the test waits 1 ms.
    const Fast = CoordinatorOctokit.defaults((options: Record<string, unknown>) => ({
      ...options,
      throttle: { ...(options.throttle as object), retryAfterBaseValue: 1 },
    })) as typeof ProbotOctokit;
    const octokit = await clientOf(Fast);
    const before = await reservations();
    nock(API)
      .post('/repos/o/r/issues/7/comments')
      .reply(
        403,
        { message: 'You have exceeded a secondary rate limit. Please wait a few minutes.' },
        { 'retry-after': '1' },
      )
      .post('/repos/o/r/issues/7/comments')
      .reply(201, { id: 99 });
    const { data } = await octokit.rest.issues.createComment({
      ...REPO,
      issue_number: 7,
      body: 'hello',
    });
    expect(data).toEqual({ id: 99 });
    expect(logs.text()).toContain('secondary rate limit: retrying in 1 s');
    // The retry is the same write: the budget counted it once.
    expect((await reservations()) - before).toBe(1);
  });
});
