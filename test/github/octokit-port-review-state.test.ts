import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOctokitPort } from '../../src/github/octokit-port.js';
import { TestOctokit } from '../helpers/app.js';

const API = 'https://api.github.com';
const repo = { owner: 'acme', repo: 'widgets' };
const REVIEW = 80;

// GitHub's `pull-request-review` answer, trimmed to the fields that name it and the state.
const review = (state: unknown) => ({
  id: REVIEW,
  user: { login: 'carol', type: 'User' },
  commit_id: 'a'.repeat(40),
  state,
});

/** The port's read of a review's state, which an approving review is recorded on. */
describe("the GitHub port's review state", () => {
  beforeAll(() => nock.disableNetConnect());
  afterAll(() => nock.enableNetConnect());
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    expect(pending).toEqual([]);
  });

  const port = () => createOctokitPort(new TestOctokit({ auth: 'ghs_test' }));
  const answer = (status: number, body: unknown) =>
    nock(API)
      .get(`/repos/acme/widgets/pulls/7/reviews/${REVIEW}`)
      .reply(status, body as nock.Body);

  it('reads the state as GitHub spells it', async () => {
    answer(200, review('DISMISSED'));
    expect(await port().reviewState(repo, 7, REVIEW)).toBe('DISMISSED');
  });

  it('answers null for a review GitHub does not have on the PR', async () => {
    answer(404, { message: 'Not Found' });
    expect(await port().reviewState(repo, 7, REVIEW)).toBeNull();
  });

  it('throws on a failed read, so that nothing is decided from it', async () => {
    answer(502, { message: 'Server Error' });
    await expect(port().reviewState(repo, 7, REVIEW)).rejects.toMatchObject({ status: 502 });
  });

  it('throws on an answer without a state', async () => {
    answer(200, review(undefined));
    await expect(port().reviewState(repo, 7, REVIEW)).rejects.toThrow('without its state');
  });
});
