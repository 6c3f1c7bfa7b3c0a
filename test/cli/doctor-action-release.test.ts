import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkActionRelease } from '../../src/cli/doctor/action-release.js';
import { DoctorClient } from '../../src/cli/doctor/client.js';
import { TEST_APP_ID, TEST_PRIVATE_KEY } from '../helpers/app.js';

/**
 * The doctor's look-up of the pinned release against GitHub's REST API (strict nock: every
 * call expected, none left over), for the cases the double does not model: an annotated tag,
 * and GitHub not answering.
 */
const API = 'https://api.github.com';
const ACTION = 'agent-coordinator/agent-coordinator/actions/worker';
const REPO = '/repos/agent-coordinator/agent-coordinator';
const COMMIT = 'c0ffee'.padEnd(40, '0');
const TAG_OBJECT = '7a9'.padEnd(40, '1');

const client = async () => {
  const gh = await DoctorClient.create({
    appId: TEST_APP_ID,
    privateKey: TEST_PRIVATE_KEY,
    owner: 'octo-org',
    repo: 'widgets',
  });
  nock(API)
    .post('/app/installations/7/access_tokens')
    .reply(201, { token: 'ghs_test', expires_at: '2099-01-01T00:00:00Z' });
  await gh.useInstallation(7);
  return gh;
};
// Octokit sends the ref's slash as %2F (one path parameter); GitHub takes either.
const refPath = (tag: string) => new RegExp(`^${REPO}/git/ref/tags(/|%2F)${tag}$`);

beforeEach(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  nock.enableNetConnect();
  expect(pending, 'GitHub mocks never called').toEqual([]);
});

describe("doctor: the worker action's pinned release", () => {
  it('follows an annotated tag to its commit', async () => {
    const gh = await client();
    nock(API)
      .get(refPath('v1.2.3'))
      .reply(200, { ref: 'refs/tags/v1.2.3', object: { type: 'tag', sha: TAG_OBJECT } })
      .get(`${REPO}/git/tags/${TAG_OBJECT}`)
      .reply(200, { tag: 'v1.2.3', sha: TAG_OBJECT, object: { type: 'commit', sha: COMMIT } });
    const finding = await checkActionRelease(gh, { ref: COMMIT, version: '1.2.3' }, ACTION);
    expect(finding).toEqual({
      status: 'ok',
      subject: 'worker action release v1.2.3',
      detail: `agent-coordinator/agent-coordinator has the tag v1.2.3 (${COMMIT})`,
    });
  });

  it('says it could not check when GitHub does not answer as expected, never that the tag is missing', async () => {
    const gh = await client();
    nock(API).get(refPath('v0')).reply(500, { message: 'Server Error' });
    const finding = await checkActionRelease(gh, { ref: 'v0' }, ACTION);
    expect(finding?.status).toBe('unknown');
    expect(finding?.detail).toContain(
      'could not look up the tag in agent-coordinator/agent-coordinator (HTTP 500',
    );
  });

  it('leaves alone a ref that is no release: a branch, or a commit with no version comment', async () => {
    const gh = await client();
    expect(await checkActionRelease(gh, { ref: 'main' }, ACTION)).toBeUndefined();
    expect(await checkActionRelease(gh, { ref: COMMIT }, ACTION)).toBeUndefined();
    // No call was made: the installation's token was never even asked for.
    expect(nock.pendingMocks()).toEqual([`POST ${API}:443/app/installations/7/access_tokens`]);
    nock.cleanAll();
  });
});
