import { Octokit } from '@octokit/rest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectClean, startWorld, stopWorld, userOctokit, type World } from './helpers.js';

const owner = 'acme';
const repoName = 'widgets';

describe('pulls: mergeability, merge, update-branch, merges into a branch, reviews', () => {
  let w: World;
  beforeEach(async () => {
    w = await startWorld();
  });
  afterEach(async () => {
    await stopWorld(w);
    expectClean(w.double);
  });

  it('merges with a sha guard: stale sha 409, then success sends closed(merged) and push', async () => {
    const { double, octokit, repo, receiver } = w;
    const n = await double.openPr(repo, {
      head: 'agent/1/task_001',
      title: 'Task 1',
      by: 'agent-coordinator[bot]',
    });
    const { data: pr } = await octokit.rest.pulls.get({ owner, repo: repoName, pull_number: n });
    expect(pr).toMatchObject({
      mergeable: true,
      mergeable_state: 'clean',
      merged: false,
      head: { ref: 'agent/1/task_001', repo: { full_name: 'acme/widgets' } },
    });
    const staleSha = pr.head.sha;
    await double.pushCommit(repo, 'agent/1/task_001', {
      message: 'more',
      by: 'agent-coordinator[bot]',
    });
    await expect(
      octokit.rest.pulls.merge({
        owner,
        repo: repoName,
        pull_number: n,
        sha: staleSha,
        merge_method: 'squash',
      }),
    ).rejects.toMatchObject({ status: 409 });
    const head = double.branch(repo, 'agent/1/task_001')!.sha;
    const { data: merged } = await octokit.rest.pulls.merge({
      owner,
      repo: repoName,
      pull_number: n,
      sha: head,
      merge_method: 'squash',
    });
    expect(merged.merged).toBe(true);
    expect(double.branch(repo, 'main')!.sha).toBe(merged.sha);
    expect(double.commitParents(repo, merged.sha)).toHaveLength(1);
    expect(double.commitMessage(repo, merged.sha)).toMatch(/^Task 1 \(#\d+\)/);
    await double.waitForDeliveries();
    const closed = receiver.of('pull_request', 'closed')[0]!.payload;
    expect(closed['pull_request']).toMatchObject({
      merged: true,
      merge_commit_sha: merged.sha,
      state: 'closed',
    });
    expect(closed['sender']).toMatchObject({ login: 'agent-coordinator[bot]', type: 'Bot' });
    expect(receiver.names().slice(-2)).toEqual(['pull_request.closed', 'push']);
    await expect(
      octokit.rest.pulls.merge({ owner, repo: repoName, pull_number: n }),
    ).rejects.toMatchObject({ status: 405 });
  });

  it('refuses to merge a dirty PR with 405 and update-branch answers 422 on conflict', async () => {
    const { double, octokit, repo } = w;
    const n = await double.openPr(repo, {
      head: 'feature',
      title: 'F',
      by: 'alice',
      files: { 'README.md': 'mine\n' },
    });
    await double.pushCommit(repo, 'main', {
      message: 'theirs',
      files: { 'README.md': 'theirs\n' },
      by: 'bob',
    });
    const { data: pr } = await octokit.rest.pulls.get({ owner, repo: repoName, pull_number: n });
    expect(pr).toMatchObject({ mergeable: false, mergeable_state: 'dirty' });
    await expect(
      octokit.rest.pulls.merge({ owner, repo: repoName, pull_number: n }),
    ).rejects.toMatchObject({ status: 405 });
    await expect(
      octokit.rest.pulls.updateBranch({ owner, repo: repoName, pull_number: n }),
    ).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('merge conflict'),
    });
    // A test can also force the conflict flag on an otherwise clean PR.
    const m = await double.openPr(repo, { head: 'other', title: 'O', by: 'alice' });
    await double.setConflict(repo, m, true);
    expect(double.pull(repo, m)).toMatchObject({ mergeable_state: 'dirty' });
  });

  it('refuses an App’s update-branch whose merge would change a workflow file (403); a person’s goes through', async () => {
    const { double, octokit, repo } = w;
    const n = await double.openPr(repo, {
      head: 'agent/1/task_001',
      title: 'T',
      by: 'agent-coordinator[bot]',
    });
    await double.setPermission(repo, 'alice', 'maintain');
    await double.pushCommit(repo, 'main', {
      message: 'Add CI',
      files: { '.github/workflows/ci.yml': 'on: push\n' },
      by: 'alice',
    });
    const head = double.branch(repo, 'agent/1/task_001')!.sha;
    await expect(
      octokit.rest.pulls.updateBranch({ owner, repo: repoName, pull_number: n }),
    ).rejects.toMatchObject({
      status: 403,
      response: {
        data: {
          message:
            'refusing to allow a GitHub App to create or update workflow .github/workflows/ci.yml without workflows permission',
        },
      },
    });
    // Nothing was pushed, and the PR reads mergeable all the same: only a comparison tells it
    // is behind.
    const { data: pr } = await octokit.rest.pulls.get({ owner, repo: repoName, pull_number: n });
    expect(pr.head.sha).toBe(head);
    expect(pr.mergeable).toBe(true);
    const upd = await userOctokit(double, 'alice').rest.pulls.updateBranch({
      owner,
      repo: repoName,
      pull_number: n,
    });
    expect(upd.status).toBe(202);
  });

  it('defers update-branch past its 202 when asked: the merge lands at release, or not at all once the head moved', async () => {
    const { double, octokit, repo } = w;
    const head = 'agent/1/task_001';
    const a = await double.openPr(repo, { head, title: 'A', by: 'agent-coordinator[bot]' });
    const b = await double.openPr(repo, {
      head: 'agent/1/task_002',
      title: 'B',
      by: 'agent-coordinator[bot]',
    });
    const base = await double.advanceBranch(repo, 'main');
    double.deferBranchUpdates = true;
    const from = double.branch(repo, head)!.sha;
    for (const n of [a, b]) {
      const answer = await octokit.rest.pulls.updateBranch({
        owner,
        repo: repoName,
        pull_number: n,
      });
      expect(answer.status).toBe(202);
    }
    expect(double.heldBranchUpdates(repo)).toEqual([a, b]);
    expect(double.branch(repo, head)!.sha).toBe(from);
    // A push lands on b's head in the meantime: its update makes nothing.
    await double.pushCommit(repo, 'agent/1/task_002', { message: 'more', by: 'alice' });
    const landed = await double.releaseBranchUpdates();
    expect(landed).toEqual([{ number: a, sha: double.branch(repo, head)!.sha }, { number: b }]);
    expect(double.heldBranchUpdates(repo)).toEqual([]);
    // GitHub's update merge: the old head its first parent, the base's head its second.
    const { data: commit } = await octokit.rest.git.getCommit({
      owner,
      repo: repoName,
      commit_sha: landed[0]!.sha!,
    });
    expect(commit.parents.map((p) => p.sha)).toEqual([from, base]);
    expect(commit.message).toBe(`Merge branch 'main' into ${head}`);
    await expect(
      octokit.rest.git.getCommit({ owner, repo: repoName, commit_sha: 'f'.repeat(40) }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('holds a merge into a PR’s branch when asked: answered at release, merged into the branch as it is then', async () => {
    const { double, octokit, repo, receiver } = w;
    const head = 'agent/1/task_001';
    const n = await double.openPr(repo, { head, title: 'A', by: 'agent-coordinator[bot]' });
    const base = await double.advanceBranch(repo, 'main');
    double.deferBranchUpdates = true;
    const asked = octokit.rest.repos.merge({ owner, repo: repoName, base: head, head: 'main' });
    await double.waitFor(() => double.heldBranchUpdates(repo).length > 0 || undefined, {
      timeoutMs: 5_000,
      description: 'the merge held',
    });
    expect(double.heldBranchUpdates(repo)).toEqual([n]);
    // A person's push lands first: the merge's first parent is their head.
    const pushed = await double.pushCommit(repo, head, { message: 'more', by: 'alice' });
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const [landed] = await double.releaseBranchUpdates({ answerAfter: answered });
    // Its webhooks came before its answer.
    expect(receiver.names().slice(-2)).toEqual(['push', 'pull_request.synchronize']);
    answer();
    const { status, data } = await asked;
    expect(status).toBe(201);
    expect(data.sha).toBe(landed!.sha);
    expect(data.sha).toBe(double.branch(repo, head)!.sha);
    expect(data.parents.map((p) => p.sha)).toEqual([pushed, base]);
    // Nothing left to merge: 204.
    double.deferBranchUpdates = false;
    const again = await octokit.rest.repos.merge({
      owner,
      repo: repoName,
      base: head,
      head: 'main',
    });
    expect(again.status).toBe(204);
  });

  it('takes a person’s merge of a branch pushed from their machine as git makes it', async () => {
    const { double, repo, receiver } = w;
    const n = await double.openPr(repo, { head: 'feature', title: 'F', by: 'alice' });
    const head = double.branch(repo, 'feature')!.sha;
    const main = await double.pushCommit(repo, 'main', {
      message: 'Add CI',
      files: { '.github/workflows/ci.yml': 'on: push\n' },
      by: 'bob',
    });
    // A merge commit: first parent the branch's head, then what was merged in.
    const merged = await double.mergeInto(repo, 'feature', 'main', 'alice');
    expect(double.commitParents(repo, merged)).toEqual([head, main]);
    expect(double.file(repo, 'feature', '.github/workflows/ci.yml')).toBe('on: push\n');
    expect(double.pull(repo, n)).toMatchObject({ head: { sha: merged } });
    await double.waitForDeliveries();
    expect(receiver.names().slice(-2)).toEqual(['push', 'pull_request.synchronize']);
    // Already holds it: nothing to push. Behind only: a fast-forward.
    expect(await double.mergeInto(repo, 'feature', main, 'alice')).toBe(merged);
    expect(await double.mergeInto(repo, 'main', 'feature', 'alice')).toBe(merged);
    expect(double.branch(repo, 'main')!.sha).toBe(merged);
  });

  it('updates a behind branch (strict protection), then merges', async () => {
    const { double, octokit, repo, receiver } = w;
    await double.setRequiredChecks(repo, 'main', [], { strict: true });
    const n = await double.openPr(repo, {
      head: 'agent/1/task_001',
      title: 'T',
      by: 'agent-coordinator[bot]',
    });
    await expect(
      octokit.rest.pulls.updateBranch({ owner, repo: repoName, pull_number: n }),
    ).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('There are no new commits on the base branch'),
    });
    await double.advanceBranch(repo, 'main');
    const { data: behind } = await octokit.rest.pulls.get({
      owner,
      repo: repoName,
      pull_number: n,
    });
    expect(behind.mergeable_state).toBe('behind');
    const { data: cmp } = await octokit.rest.repos.compareCommitsWithBasehead({
      owner,
      repo: repoName,
      basehead: `main...agent/1/task_001`,
    });
    expect(cmp).toMatchObject({ status: 'diverged', ahead_by: 1, behind_by: 1 });
    await expect(
      octokit.rest.pulls.merge({ owner, repo: repoName, pull_number: n }),
    ).rejects.toMatchObject({ status: 405 });
    const upd = await octokit.rest.pulls.updateBranch({
      owner,
      repo: repoName,
      pull_number: n,
      expected_head_sha: behind.head.sha,
    });
    expect(upd.status).toBe(202);
    const { data: after } = await octokit.rest.pulls.get({ owner, repo: repoName, pull_number: n });
    expect(after.mergeable_state).toBe('clean');
    expect(after.head.sha).not.toBe(behind.head.sha);
    await double.waitForDeliveries();
    expect(receiver.names().slice(-2)).toEqual(['push', 'pull_request.synchronize']);
    await octokit.rest.pulls.merge({ owner, repo: repoName, pull_number: n, sha: after.head.sha });
    expect(double.pull(repo, n)).toMatchObject({ merged: true });
  });

  it('blocks on required checks until they pass; other pending checks make it unstable', async () => {
    const { double, octokit, repo } = w;
    await double.setRequiredChecks(repo, 'main', ['ci/test']);
    const n = await double.openPr(repo, {
      head: 'agent/1/task_001',
      title: 'T',
      by: 'agent-coordinator[bot]',
    });
    const sha = double.branch(repo, 'agent/1/task_001')!.sha;
    expect(double.pull(repo, n)).toMatchObject({ mergeable_state: 'blocked' });
    await expect(
      octokit.rest.pulls.merge({ owner, repo: repoName, pull_number: n }),
    ).rejects.toMatchObject({
      status: 405,
      message: expect.stringContaining('Required status check "ci/test" is expected'),
    });
    await double.setCheck(repo, sha, 'ci/test', 'in_progress');
    await double.setCheck(repo, sha, 'ci/test', 'completed', 'success');
    await octokit.rest.checks.create({
      owner,
      repo: repoName,
      name: 'agent-coordinator/order',
      head_sha: sha,
      status: 'in_progress',
    });
    expect(double.pull(repo, n)).toMatchObject({ mergeable_state: 'unstable', mergeable: true });
    await octokit.rest.pulls.merge({ owner, repo: repoName, pull_number: n });
  });

  it("counts a required check pinned to an App only from that App; a workflow token's check is GitHub Actions'", async () => {
    const { double, octokit, repo } = w;
    const order = 'agent-coordinator/order';
    const n = await double.openPr(repo, {
      head: 'agent/1/task_001',
      title: 'T',
      by: 'agent-coordinator[bot]',
    });
    const sha = double.branch(repo, 'agent/1/task_001')!.sha;
    // The agent's code in a CI job of the PR, with a "permissive" GITHUB_TOKEN.
    const run = await double.runCi(repo, sha, {
      jobs: [{ name: 'test', attempts: [{ conclusion: 'success' }] }],
      play: false,
    });
    const workflow = new Octokit({
      baseUrl: double.apiUrl,
      auth: double.jobToken(run, { contents: 'write', pull_requests: 'write', checks: 'write' }),
    });
    const { data: forged } = await workflow.rest.checks.create({
      owner,
      repo: repoName,
      name: order,
      head_sha: sha,
      status: 'completed',
      conclusion: 'success',
    });
    expect(forged.app?.slug).toBe('github-actions');

    // Required from any source, the workflow's check passes it (`unstable`: only the job that
    // wrote it, not required, is still running).
    await double.setRequiredChecks(repo, 'main', [order]);
    expect(double.pull(repo, n)).toMatchObject({ mergeable_state: 'unstable' });

    // Pinned to this App, only this App's check counts.
    await double.setRequiredChecks(repo, 'main', [order], { apps: { [order]: double.appId } });
    const { data: branch } = await octokit.rest.repos.getBranch({
      owner,
      repo: repoName,
      branch: 'main',
    });
    expect(branch.protection.required_status_checks?.checks).toEqual([
      { context: order, app_id: double.appId },
    ]);
    expect(double.pull(repo, n)).toMatchObject({ mergeable_state: 'blocked' });
    await expect(
      workflow.rest.pulls.merge({ owner, repo: repoName, pull_number: n }),
    ).rejects.toMatchObject({
      status: 405,
      message: expect.stringContaining(`Required status check "${order}" is expected`),
    });
    await octokit.rest.checks.create({
      owner,
      repo: repoName,
      name: order,
      head_sha: sha,
      status: 'completed',
      conclusion: 'success',
    });
    expect(double.pull(repo, n)).toMatchObject({ mergeable_state: 'unstable' });
  });

  it('lists by head owner:branch, base and state; fork PRs keep their own head repository', async () => {
    const { double, octokit, repo } = w;
    const a = await double.openPr(repo, {
      head: 'agent/1/task_001',
      title: 'A',
      by: 'agent-coordinator[bot]',
    });
    const fork = await double.openPr(repo, {
      head: 'agent/1/task_001',
      title: 'Look-alike',
      by: 'mallory',
      fromFork: true,
    });
    const { data: byHead } = await octokit.rest.pulls.list({
      owner,
      repo: repoName,
      head: 'acme:agent/1/task_001',
      state: 'open',
    });
    expect(byHead.map((p) => p.number)).toEqual([a]);
    const { data: forkPr } = await octokit.rest.pulls.get({
      owner,
      repo: repoName,
      pull_number: fork,
    });
    expect(forkPr.head.repo?.full_name).toBe('mallory/widgets');
    expect(forkPr.head.ref).toBe('agent/1/task_001');
    await double.closePr(repo, fork, 'alice');
    const { data: closed } = await octokit.rest.pulls.list({
      owner,
      repo: repoName,
      state: 'closed',
    });
    expect(closed.map((p) => p.number)).toEqual([fork]);
    const { data: all } = await octokit.rest.pulls.list({
      owner,
      repo: repoName,
      state: 'all',
      base: 'main',
    });
    expect(all).toHaveLength(2);
  });

  it('creates PRs like GitHub: duplicates and empty PRs are 422', async () => {
    const { double, octokit, repo, receiver } = w;
    const main = double.branch(repo, 'main')!.sha;
    await octokit.rest.git.createRef({
      owner,
      repo: repoName,
      ref: 'refs/heads/agent/2/t',
      sha: main,
    });
    await expect(
      octokit.rest.git.createRef({ owner, repo: repoName, ref: 'refs/heads/agent/2/t', sha: main }),
    ).rejects.toMatchObject({ status: 422 });
    await expect(
      octokit.rest.pulls.create({
        owner,
        repo: repoName,
        head: 'agent/2/t',
        base: 'main',
        title: 'empty',
      }),
    ).rejects.toMatchObject({ status: 422 });
    await double.pushCommit(repo, 'agent/2/t', { message: 'work', by: 'agent-coordinator[bot]' });
    const { data: pr } = await octokit.rest.pulls.create({
      owner,
      repo: repoName,
      head: 'agent/2/t',
      base: 'main',
      title: 'T',
      body: 'b',
    });
    await expect(
      octokit.rest.pulls.create({
        owner,
        repo: repoName,
        head: 'agent/2/t',
        base: 'main',
        title: 'again',
      }),
    ).rejects.toMatchObject({ status: 422 });
    const { data: ref } = await octokit.rest.git.getRef({
      owner,
      repo: repoName,
      ref: 'heads/agent/2/t',
    });
    expect(ref.object.sha).toBe(pr.head.sha);
    await octokit.rest.pulls.update({
      owner,
      repo: repoName,
      pull_number: pr.number,
      body: 'new body',
    });
    await double.waitForDeliveries();
    const edited = receiver.of('pull_request', 'edited')[0]!.payload;
    expect(edited['changes']).toEqual({ body: { from: 'b' } });
    // Deleting the head branch closes the PR, as on GitHub.
    await octokit.rest.git.deleteRef({ owner, repo: repoName, ref: 'heads/agent/2/t' });
    expect(double.pull(repo, pr.number)).toMatchObject({ state: 'closed', merged: false });
  });

  it('records reviews; an author cannot approve their own PR', async () => {
    const { double, octokit, repo, receiver } = w;
    const n = await double.openPr(repo, { head: 'f', title: 'F', by: 'alice' });
    await double.approvePr(repo, n, 'bob');
    const alice = userOctokit(double, 'alice');
    await expect(
      alice.rest.pulls.createReview({ owner, repo: repoName, pull_number: n, event: 'APPROVE' }),
    ).rejects.toMatchObject({ status: 422 });
    const { data: reviews } = await octokit.rest.pulls.listReviews({
      owner,
      repo: repoName,
      pull_number: n,
    });
    expect(reviews.map((r) => [r.user?.login, r.state])).toEqual([['bob', 'APPROVED']]);
    const submitted = receiver.of('pull_request_review', 'submitted')[0]!.payload;
    expect(submitted['review']).toMatchObject({ state: 'approved' });
  });

  it('answers mergeable: null while "recomputing", and lists omit mergeability like GitHub', async () => {
    const { double, octokit, repo } = w;
    double.mergeabilityLag = 1;
    const n = await double.openPr(repo, {
      head: 'agent/1/task_001',
      title: 'T',
      by: 'agent-coordinator[bot]',
    });
    const first = await octokit.rest.pulls.get({ owner, repo: repoName, pull_number: n });
    expect(first.data).toMatchObject({ mergeable: null, mergeable_state: 'unknown' });
    const second = await octokit.rest.pulls.get({ owner, repo: repoName, pull_number: n });
    expect(second.data).toMatchObject({ mergeable: true, mergeable_state: 'clean' });
    await double.advanceBranch(repo, 'main');
    const gql = await octokit.graphql<{
      repository: { pullRequest: { mergeable: string; mergeStateStatus: string } };
    }>(
      `query($n: Int!) { repository(owner: "acme", name: "widgets") { pullRequest(number: $n) { mergeable mergeStateStatus } } }`,
      { n },
    );
    expect(gql.repository.pullRequest).toEqual({
      mergeable: 'UNKNOWN',
      mergeStateStatus: 'UNKNOWN',
    });
    // Merging decides on fresh data, as GitHub does.
    await octokit.rest.pulls.merge({ owner, repo: repoName, pull_number: n });
    const { data: list } = await octokit.rest.pulls.list({ owner, repo: repoName, state: 'all' });
    expect(list[0]).not.toHaveProperty('mergeable_state');
    expect(list[0]).toHaveProperty('merged_at');
  });
});
