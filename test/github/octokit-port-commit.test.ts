import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOctokitPort } from '../../src/github/octokit-port.js';
import { TestOctokit } from '../helpers/app.js';

const API = 'https://api.github.com';
const repo = { owner: 'acme', repo: 'widgets' };
const HEAD = 'a'.repeat(40);
const FROM = 'b'.repeat(40);
const BASE = 'c'.repeat(40);

// GitHub's `git-commit` answer, trimmed to the fields the port reads plus the ones that name it.
const commit = (parents: unknown) => ({
  sha: HEAD,
  message: "Merge branch 'main' into agent/1/a",
  parents,
});
const parent = (sha: string) => ({
  sha,
  url: `${API}/repos/acme/widgets/git/commits/${sha}`,
  html_url: `https://github.com/acme/widgets/commit/${sha}`,
});

/** The port's read of a pushed commit's parents, which the coordinator's update is told by. */
describe("the GitHub port's commit parents", () => {
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
      .get(`/repos/acme/widgets/git/commits/${HEAD}`)
      .reply(status, body as nock.Body);

  it('reads the parents in order, first parent first', async () => {
    answer(200, commit([parent(FROM), parent(BASE)]));
    expect(await port().commitParents(repo, HEAD)).toEqual([FROM, BASE]);
  });

  it('answers null for a commit GitHub does not have', async () => {
    answer(404, { message: 'Not Found' });
    expect(await port().commitParents(repo, HEAD)).toBeNull();
  });

  it('throws on a failed read, so that nothing is decided from it', async () => {
    answer(502, { message: 'Server Error' });
    await expect(port().commitParents(repo, HEAD)).rejects.toMatchObject({ status: 502 });
  });

  it('throws on an answer without parents', async () => {
    answer(200, commit(undefined));
    await expect(port().commitParents(repo, HEAD)).rejects.toThrow('without its parents');
  });
});
