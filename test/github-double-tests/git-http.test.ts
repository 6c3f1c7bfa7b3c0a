import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectClean, startWorld, stopWorld, type World } from './helpers.js';

interface GitRun {
  code: number;
  stdout: string;
  stderr: string;
}

const WORKFLOW = '.github/workflows/agent-worker.yml';

// The real git CLI, authenticated the way the worker is (src/worker/git.ts): an
// `http.<serverUrl>/.extraheader` carrying basic base64("x-access-token:<token>").
class GitClient {
  readonly home = mkdtempSync(join(tmpdir(), 'double-git-client-'));

  constructor(
    private readonly serverUrl: string,
    private readonly auth: { token?: string; bearer?: boolean } = {},
  ) {}

  run(
    args: string[],
    cwd = this.home,
    extraEnv: NodeJS.ProcessEnv = {},
    input?: string,
  ): Promise<GitRun> {
    const header = this.auth.token
      ? this.auth.bearer
        ? `AUTHORIZATION: Bearer ${this.auth.token}`
        : `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${this.auth.token}`).toString('base64')}`
      : undefined;
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: this.home,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      GIT_AUTHOR_NAME: 'agent-coordinator[bot]',
      GIT_AUTHOR_EMAIL: 'agent-coordinator[bot]@users.noreply.github.com',
      GIT_COMMITTER_NAME: 'agent-coordinator[bot]',
      GIT_COMMITTER_EMAIL: 'agent-coordinator[bot]@users.noreply.github.com',
      ...(header
        ? {
            GIT_CONFIG_COUNT: '1',
            GIT_CONFIG_KEY_0: `http.${this.serverUrl}/.extraheader`,
            GIT_CONFIG_VALUE_0: header,
          }
        : {}),
      ...extraEnv,
    };
    return new Promise((resolve) => {
      const child = execFile('git', args, { cwd, env }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      });
      child.stdin?.on('error', () => {});
      child.stdin?.end(input ?? '');
    });
  }

  async ok(args: string[], cwd?: string): Promise<string> {
    const r = await this.run(args, cwd);
    if (r.code !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout.trim();
  }

  async clone(url: string): Promise<string> {
    const dir = mkdtempSync(join(this.home, 'clone-'));
    await this.ok(['clone', '--quiet', url, dir]);
    return dir;
  }

  async commitFile(dir: string, path: string, content: string, message: string): Promise<string> {
    writeFileSync(join(dir, path), content);
    await this.ok(['add', '--all'], dir);
    await this.ok(['commit', '--quiet', '-m', message], dir);
    return this.ok(['rev-parse', 'HEAD'], dir);
  }

  dispose(): void {
    rmSync(this.home, { recursive: true, force: true });
  }
}

describe('git smart HTTP', () => {
  let w: World;
  const clients: GitClient[] = [];
  const client = (auth?: { token?: string; bearer?: boolean }): GitClient => {
    const c = new GitClient(w.double.serverUrl, auth);
    clients.push(c);
    return c;
  };

  beforeEach(async () => {
    w = await startWorld();
  });
  afterEach(async () => {
    await stopWorld(w);
    for (const c of clients.splice(0)) c.dispose();
    expectClean(w.double);
  });

  it('clones, pushes a new branch and an update: the API and the push webhooks agree with git', async () => {
    const { double, octokit, repo } = w;
    const git = client({ token: double.createInstallationToken('acme') });
    const started = performance.now();
    const dir = await git.clone(double.gitUrl(repo));
    const cloned = performance.now();
    expect(await git.ok(['rev-parse', 'HEAD'], dir)).toBe(double.branch(repo, 'main')?.sha);

    await git.ok(['checkout', '--quiet', '-b', 'feature'], dir);
    const first = await git.commitFile(dir, 'hello.txt', 'hello\n', 'Add hello');
    const pushStarted = performance.now();
    await git.ok(['push', '--quiet', 'origin', 'feature'], dir);
    const pushed = performance.now();
    console.info(
      `git clone ${Math.round(cloned - started)} ms, push ${Math.round(pushed - pushStarted)} ms`,
    );
    const { data: branch } = await octokit.rest.repos.getBranch({
      owner: 'acme',
      repo: 'widgets',
      branch: 'feature',
    });
    expect(branch.commit.sha).toBe(first);
    expect(branch.commit.commit.message).toBe('Add hello');
    expect(double.file(repo, 'feature', 'hello.txt')).toBe('hello\n');
    const created = await double.waitFor(
      (d) => d.deliveries({ event: 'push' }).find((p) => p.payload['ref'] === 'refs/heads/feature'),
      { description: 'the push webhook for the new branch' },
    );
    expect(created.payload).toMatchObject({ created: true, after: first });
    expect(created.payload['sender']).toMatchObject({ login: 'agent-coordinator[bot]' });

    const second = await git.commitFile(dir, 'hello.txt', 'hello again\n', 'Change hello');
    await git.ok(['push', '--quiet', 'origin', 'feature'], dir);
    expect(double.branch(repo, 'feature')?.sha).toBe(second);
    const update = await double.waitFor(
      (d) => d.deliveries({ event: 'push' }).find((p) => p.payload['after'] === second),
      { description: 'the push webhook for the update' },
    );
    expect(update.payload).toMatchObject({ before: first, created: false, forced: false });
    expect(update.payload['commits']).toMatchObject([{ id: second, modified: ['hello.txt'] }]);

    // An annotated tag: the API sees the commit it points at; git keeps the tag object.
    await git.ok(['tag', '-a', 'v1', '-m', 'Version 1'], dir);
    const tag = await git.ok(['rev-parse', 'v1'], dir);
    await git.ok(['push', '--quiet', 'origin', 'v1'], dir);
    const { data: ref } = await octokit.rest.git.getRef({
      owner: 'acme',
      repo: 'widgets',
      ref: 'tags/v1',
    });
    expect(ref.object.sha).toBe(second);
    expect(await git.ok(['ls-remote', 'origin', 'refs/tags/v1'], dir)).toBe(`${tag}\trefs/tags/v1`);
  });

  it("fetches the API's own commits with the shas, trees and parents git computes", async () => {
    const { double, octokit, repo } = w;
    const git = client({ token: double.createInstallationToken('acme'), bearer: true });
    const dir = await git.clone(`${double.gitUrl(repo)}.git`);
    const n = await double.openPr(repo, {
      head: 'agent/1/task_001',
      title: 'Task 1',
      by: 'agent-coordinator[bot]',
      files: { 'src/deep/nested/file.ts': 'export {};\n', 'a-b.txt': 'x\n' },
    });
    const { data: merge } = await octokit.rest.pulls.merge({
      owner: 'acme',
      repo: 'widgets',
      pull_number: n,
    });
    await git.ok(['fetch', '--quiet', 'origin'], dir);
    expect(await git.ok(['rev-parse', 'origin/main'], dir)).toBe(merge.sha);
    // fsck re-hashes every object: the double's shas are git's.
    await git.ok(['fsck', '--strict', '--no-dangling'], dir);
    const { data: commit } = await octokit.rest.repos.getCommit({
      owner: 'acme',
      repo: 'widgets',
      ref: merge.sha,
    });
    expect(await git.ok(['rev-parse', `${merge.sha}^{tree}`], dir)).toBe(commit.commit.tree.sha);
    expect((await git.ok(['log', '--format=%P', '-1', merge.sha], dir)).split(' ')).toEqual(
      commit.parents.map((p) => p.sha),
    );
    expect(await git.ok(['cat-file', '-t', merge.sha], dir)).toBe('commit');
    expect(await git.ok(['show', `${merge.sha}:src/deep/nested/file.ts`], dir)).toBe('export {};');
    // As actions/checkout fetches: a fresh repository, one commit by sha, shallow.
    const checkout = mkdtempSync(join(git.home, 'checkout-'));
    await git.ok(['init', '--quiet', checkout]);
    await git.ok(['remote', 'add', 'origin', double.gitUrl(repo)], checkout);
    await git.ok(
      ['fetch', '--no-tags', '--depth=1', 'origin', `+${merge.sha}:refs/remotes/origin/main`],
      checkout,
    );
    expect(await git.ok(['rev-parse', 'refs/remotes/origin/main'], checkout)).toBe(merge.sha);
    await git.ok(['fetch', '--quiet', 'origin', `refs/pull/${n}/head`], dir);
    expect(await git.ok(['rev-parse', 'FETCH_HEAD'], dir)).toBe(
      (double.pull(repo, n)['head'] as { sha: string }).sha,
    );

    // A fork shares its parent's objects, as a GitHub fork network does.
    const fromFork = await double.openPr(repo, {
      head: 'patch-1',
      title: 'A fork PR',
      by: 'alice',
      fromFork: true,
    });
    const forkHead = (double.pull(repo, fromFork)['head'] as { sha: string }).sha;
    const fork = await git.clone(double.gitUrl('alice/widgets'));
    expect(await git.ok(['rev-parse', 'origin/patch-1'], fork)).toBe(forkHead);
    await git.ok(['fetch', '--quiet', 'origin', `refs/pull/${fromFork}/head`], dir);
    expect(await git.ok(['rev-parse', 'FETCH_HEAD'], dir)).toBe(forkHead);

    // Many local commits make many "have" lines: git gzips that request body.
    // Newer than what the remote has, so git offers them all before a common commit.
    const base = await git.ok(['rev-parse', 'HEAD'], dir);
    const now = Math.floor(Date.now() / 1000) + 60;
    const stream = Array.from(
      { length: 60 },
      (_, i) =>
        `commit refs/heads/local-${i}\ncommitter a <a@example.com> ${now + i} +0000\ndata ${String(i).length}\n${i}\nfrom ${base}\n`,
    ).join('');
    expect((await git.run(['fast-import', '--quiet'], dir, {}, stream)).code).toBe(0);
    const moved = await double.advanceBranch(repo, 'main');
    const traced = await git.run(['fetch', 'origin'], dir, {
      GIT_TRACE_CURL: '1',
      GIT_TRACE_CURL_NO_DATA: '1',
    });
    expect(traced.stderr).toContain('Content-Encoding: gzip');
    expect(await git.ok(['rev-parse', 'origin/main'], dir)).toBe(moved);
  });

  it('a push to a pull request branch moves its head and sends synchronize; a push deleting it closes it', async () => {
    const { double, octokit, repo, receiver } = w;
    const n = await double.openPr(repo, {
      head: 'agent/1/task_001',
      title: 'Task 1',
      by: 'agent-coordinator[bot]',
    });
    const git = client({ token: double.createInstallationToken('acme') });
    const dir = await git.clone(double.gitUrl(repo));
    await git.ok(['checkout', '--quiet', 'agent/1/task_001'], dir);
    const before = await git.ok(['rev-parse', 'HEAD'], dir);
    const sha = await git.commitFile(dir, 'more.txt', 'more\n', 'More work');
    await git.ok(['push', '--quiet', 'origin', 'HEAD'], dir);
    const { data: pr } = await octokit.rest.pulls.get({
      owner: 'acme',
      repo: 'widgets',
      pull_number: n,
    });
    expect(pr.head.sha).toBe(sha);
    await double.waitForDeliveries();
    expect(receiver.of('pull_request', 'synchronize')).toMatchObject([
      { payload: { before, after: sha, pull_request: { number: n } } },
    ]);

    await git.ok(['push', '--quiet', 'origin', '--delete', 'agent/1/task_001'], dir);
    expect(double.branch(repo, 'agent/1/task_001')).toBeUndefined();
    await double.waitForDeliveries();
    expect(receiver.of('pull_request', 'closed')).toHaveLength(1);
    expect(receiver.of('push').at(-1)?.payload).toMatchObject({ deleted: true, before: sha });
  });

  it('refuses a workflow change without `workflows` permission and moves no ref', async () => {
    const { double, repo } = w;
    const git = client({ token: double.createInstallationToken('acme') });
    const dir = await git.clone(double.gitUrl(repo));
    const main = double.branch(repo, 'main')?.sha;
    await git.commitFile(dir, WORKFLOW, 'name: changed\n', 'Change the worker');
    await git.ok(['branch', 'other'], dir);
    const refused = await git.run(['push', 'origin', 'HEAD:main', 'HEAD:refs/heads/other'], dir);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      `! [remote rejected] HEAD -> main (refusing to allow a GitHub App to create or update workflow \`${WORKFLOW}\` without \`workflows\` permission)`,
    );
    expect(double.branch(repo, 'main')?.sha).toBe(main);
    expect(double.branch(repo, 'other')).toBeUndefined();
    const deletion = await git.run(['push', 'origin', '--delete', 'main'], dir);
    expect(deletion.stderr).toContain('(refusing to delete the current branch: refs/heads/main)');
    const pullRef = await git.run(['push', 'origin', `${main}:refs/pull/1/head`], dir);
    expect(pullRef.stderr).toContain('(deny updating a hidden ref)');

    // Only an App that was granted `workflows` can mint a token with it.
    double.setAppPermissions({ contents: 'write', workflows: 'write', metadata: 'read' });
    const allowed = client({
      token: double.createInstallationToken('acme', {
        permissions: { contents: 'write', workflows: 'write' },
      }),
    });
    const sha = await allowed.ok(['rev-parse', 'HEAD'], dir);
    const ok = await allowed.run(['push', '--quiet', 'origin', 'HEAD:main'], dir);
    expect(ok.stderr).toBe('');
    expect(double.branch(repo, 'main')?.sha).toBe(sha);
    await double.waitForDeliveries();
    expect(double.deliveries({ event: 'push' }).map((d) => d.payload['after'])).toEqual([sha]);
  });

  it('refuses tokens that do not reach the repository, anonymous pushes and anonymous private clones', async () => {
    const { double, repo } = w;
    await double.createRepo({ owner: 'acme', name: 'gadgets' });
    await double.createRepo({ owner: 'acme', name: 'secret', private: true });
    await double.createRepo({ owner: 'umbrella', name: 'corp' });
    const dir = await client({ token: double.createInstallationToken('acme') }).clone(
      double.gitUrl(repo),
    );

    const otherInstallation = client({ token: double.createInstallationToken('umbrella') });
    const denied = await otherInstallation.run(['push', 'origin', 'HEAD:refs/heads/x'], dir);
    expect(denied.stderr).toContain(
      'remote: Permission to acme/widgets.git denied to agent-coordinator[bot].',
    );
    const hidden = await otherInstallation.run(['clone', double.gitUrl('acme/secret')]);
    expect(hidden.stderr).toContain('remote: Repository not found.');

    const forGadgets = client({
      token: double.createInstallationToken('acme', { repositories: ['acme/gadgets'] }),
    });
    const scoped = await forGadgets.run(['push', 'origin', 'HEAD:refs/heads/x'], dir);
    expect(scoped.stderr).toContain('remote: Permission to acme/widgets.git denied');
    expect((await forGadgets.run(['clone', double.gitUrl('acme/secret')])).stderr).toContain(
      'remote: Repository not found.',
    );

    const anonymous = client();
    const anonymousPush = await anonymous.run(['push', 'origin', 'HEAD:refs/heads/x'], dir);
    expect(anonymousPush.code).not.toBe(0);
    expect(anonymousPush.stderr).toMatch(/could not read Username|Authentication failed/);
    const anonymousClone = await anonymous.run(['clone', double.gitUrl('acme/secret')]);
    expect(anonymousClone.code).not.toBe(0);
    await anonymous.clone(double.gitUrl(repo));

    const token = double.createInstallationToken('acme');
    double.expireTokens();
    const expired = await fetch(`${double.gitUrl(repo)}/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(expired.status).toBe(401);
    expect(await expired.text()).toContain('Invalid username or token');
    expect(double.branch(repo, 'x')).toBeUndefined();
    expect(double.deliveries({ event: 'push' })).toEqual([]);
  });
});
