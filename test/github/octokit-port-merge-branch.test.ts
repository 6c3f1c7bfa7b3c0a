import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOctokitPort } from '../../src/github/octokit-port.js';
import { expectClean, startWorld, stopWorld, type World } from '../github-double-tests/helpers.js';

const repo = { owner: 'acme', repo: 'widgets' };
const BRANCH = 'agent/1/task_001';

/**
 * `GitHubPort.mergeIntoBranch` against the double: the merge commit and its parents, nothing to
 * merge, and GitHub's refusals (403, 404, 409) come back as answers with GitHub's own message;
 * anything else, a rate limit included, throws.
 */
describe("the GitHub port's merge into a branch", () => {
  let w: World;
  beforeEach(async () => {
    w = await startWorld();
    await w.double.setPermission(w.repo, 'alice', 'maintain');
    await w.double.openPr(w.repo, { head: BRANCH, title: 'T', by: 'agent-coordinator[bot]' });
  });
  afterEach(async () => {
    await stopWorld(w);
    expectClean(w.double);
  });

  const port = () => createOctokitPort(w.octokit);
  const head = () => w.double.branch(w.repo, BRANCH)!.sha;
  const main = () => w.double.branch(w.repo, 'main')!.sha;
  const merge = (into = BRANCH, from = 'main') =>
    port().mergeIntoBranch(repo, { into, head: from, message: `Merge branch 'main' into ${into}` });

  it('answers the merge commit it pushed, the branch’s head its first parent; then nothing to merge', async () => {
    await w.double.advanceBranch(w.repo, 'main');
    const before = head();
    const answer = await merge();
    expect(answer).toEqual({ status: 201, sha: head(), parents: [before, main()] });
    expect(await merge()).toEqual({ status: 204 });
    expect(await merge(BRANCH, main())).toEqual({ status: 204 });
  });

  it('answers 404 for a branch or a head that does not exist', async () => {
    expect(await merge('agent/1/gone')).toEqual({ status: 404, message: 'Base does not exist' });
    expect(await merge(BRANCH, 'gone')).toEqual({ status: 404, message: 'Head does not exist' });
  });

  it('answers 409 on a conflict', async () => {
    await w.double.pushCommit(w.repo, BRANCH, {
      message: 'Ours',
      files: { 'README.md': 'ours\n' },
      by: 'alice',
    });
    await w.double.pushCommit(w.repo, 'main', {
      message: 'Theirs',
      files: { 'README.md': 'theirs\n' },
      by: 'alice',
    });
    expect(await merge()).toEqual({ status: 409, message: 'Merge conflict' });
  });

  it('answers 403 with GitHub’s message when the merge would change a workflow file', async () => {
    await w.double.pushCommit(w.repo, 'main', {
      message: 'Add CI',
      files: { '.github/workflows/ci.yml': 'on: push\n' },
      by: 'alice',
    });
    expect(await merge()).toEqual({
      status: 403,
      message:
        'refusing to allow a GitHub App to create or update workflow .github/workflows/ci.yml without workflows permission',
    });
  });

  it.each<{ name: string; status: number; headers: Record<string, string>; message: string }>([
    {
      name: 'a secondary rate limit (403 with retry-after)',
      status: 403,
      headers: { 'retry-after': '1' },
      message: 'You have exceeded a secondary rate limit.',
    },
    {
      name: 'the primary rate limit (403, no requests left)',
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' },
      message: 'API rate limit exceeded for installation ID 1.',
    },
    { name: 'a server error', status: 502, headers: {}, message: 'Server Error' },
  ])('throws on $name: it refuses nothing', async ({ status, headers, message }) => {
    await w.double.advanceBranch(w.repo, 'main');
    w.double.faults.add({
      method: 'POST',
      path: /\/merges$/,
      status,
      headers,
      body: { message, documentation_url: 'https://docs.github.com/rest' },
    });
    await expect(merge()).rejects.toMatchObject({ status });
  });
});

/** `rerunFailedJobs` sorts its 403s by the same rule: a rate limit refuses nothing. */
describe("the GitHub port's re-run of failed jobs", () => {
  let w: World;
  beforeEach(async () => {
    w = await startWorld();
  });
  afterEach(async () => {
    await stopWorld(w);
    expectClean(w.double);
  });

  it('throws on a 403 whose headers say it is a rate limit, whatever its message', async () => {
    const sha = w.double.branch(w.repo, 'main')!.sha;
    const failed = await w.double.runCi(w.repo, sha, {
      jobs: [{ name: 'test', attempts: [{ conclusion: 'failure' }] }],
    });
    w.double.faults.add({
      method: 'POST',
      path: /\/rerun-failed-jobs$/,
      status: 403,
      headers: { 'retry-after': '1' },
      body: { message: 'Forbidden', documentation_url: 'https://docs.github.com/rest' },
    });
    await expect(createOctokitPort(w.octokit).rerunFailedJobs(repo, failed)).rejects.toMatchObject({
      status: 403,
    });
  });
});
