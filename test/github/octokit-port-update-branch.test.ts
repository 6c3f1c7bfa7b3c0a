import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOctokitPort } from '../../src/github/octokit-port.js';
import { expectClean, startWorld, stopWorld, type World } from '../github-double-tests/helpers.js';

const repo = { owner: 'acme', repo: 'widgets' };
const BRANCH = 'agent/1/task_001';

/**
 * `GitHubPort.updateBranch` against the double: GitHub's refusals (403, 422) come back as
 * answers with GitHub's own message; anything else, a rate limit included, throws.
 */
describe("the GitHub port's update-branch", () => {
  let w: World;
  let pr: number;
  beforeEach(async () => {
    w = await startWorld();
    await w.double.setPermission(w.repo, 'alice', 'maintain');
    pr = await w.double.openPr(w.repo, { head: BRANCH, title: 'T', by: 'agent-coordinator[bot]' });
  });
  afterEach(async () => {
    await stopWorld(w);
    expectClean(w.double);
  });

  const port = () => createOctokitPort(w.octokit);
  const head = () => w.double.branch(w.repo, BRANCH)!.sha;

  it('updates a branch behind its base, and answers 422 with a head that moved', async () => {
    await w.double.advanceBranch(w.repo, 'main');
    const before = head();
    expect(await port().updateBranch(repo, pr, 'f'.repeat(40))).toEqual({
      ok: false,
      status: 422,
      message: "expected head sha didn't match current head ref.",
    });
    expect(await port().updateBranch(repo, pr, before)).toEqual({ ok: true });
    expect(head()).not.toBe(before);
  });

  it('answers 403 with GitHub’s message when the merge would change a workflow file', async () => {
    await w.double.pushCommit(w.repo, 'main', {
      message: 'Add CI',
      files: { '.github/workflows/ci.yml': 'on: push\n' },
      by: 'alice',
    });
    expect(await port().updateBranch(repo, pr, head())).toEqual({
      ok: false,
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
      method: 'PUT',
      path: /\/update-branch$/,
      status,
      headers,
      body: { message, documentation_url: 'https://docs.github.com/rest' },
    });
    await expect(port().updateBranch(repo, pr, head())).rejects.toMatchObject({ status });
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
