import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from './helpers/git-fixture.js';
import { API, pullFixture, REPO, strictGitHub } from './helpers/github-mock.js';
import { createHarness, type Harness } from './helpers/harness.js';
import { errorLine } from './error-line.js';

const BRANCH = 'agent/7/task_001';
const HEAD_QUERY = { head: `acme:${BRANCH}`, state: 'open', per_page: '100' };

strictGitHub();

let h: Harness;
beforeEach(() => {
  h = createHarness(BRANCH);
});
afterEach(() => h.fx.cleanup());

describe('work mode', () => {
  it('attempt 1 commits, pushes and opens the PR with the task and usage markers', async () => {
    const mainHead = h.fx.originRev('main');
    let created: Record<string, unknown> | undefined;
    nock(API)
      .post(`${REPO}/pulls`, (body: Record<string, unknown>) => {
        created = body;
        return true;
      })
      .reply(201, (_uri, body) => ({
        ...pullFixture(12, BRANCH, ''),
        body: (body as { body: string }).body,
      }));

    const result = await h.run();

    expect(result.outcome).toMatchObject({ ok: true, pullRequest: { number: 12, created: true } });
    expect(result.exitCode).toBe(0);
    // The agent owned the checkout's .git/: nothing of it is left for a later step to run.
    expect(existsSync(join(h.fx.workspace, '.git'))).toBe(false);
    expect(result.log).toMatch(/^::notice::agent-coordinator: .*PR #12 opened$/m);

    const head = h.fx.originRev(BRANCH);
    expect(git(h.fx.origin, 'rev-parse', `${BRANCH}^`)).toBe(mainHead);
    expect(git(h.fx.origin, 'show', `${BRANCH}:feature.txt`)).toBe('attempt 1');
    expect(git(h.fx.origin, 'log', '-1', '--format=%an <%ae>', head)).toBe(
      'agent-coordinator[bot] <agent-coordinator[bot]@users.noreply.github.com>',
    );
    expect(git(h.fx.origin, 'log', '-1', '--format=%B', head)).toBe(
      'task_001: Add the feature file\n\nAgent-Coordinator-Task: 7/task_001/1',
    );

    expect(created).toMatchObject({
      head: BRANCH,
      base: 'main',
      title: '[#7] Add the feature file',
    });
    const body = created!.body as string;
    expect(body).toContain('Part of #7');
    expect(body).toContain('Added feature.txt for attempt 1.');
    expect(body).toContain('<!-- agent-coordinator:task issue=7 task=task_001 attempt=1 -->');
    expect(body).toContain(
      '<!-- agent-coordinator:usage cost_usd=0.25 input_tokens=1000 output_tokens=200 -->',
    );
  });

  it('attempt 2 starts again from the latest base, force-pushes and updates the same PR', async () => {
    // Attempt 1 happened: its commit is on the branch and the PR records its usage.
    const firstTry = h.fx.commitOnOrigin(
      BRANCH,
      { 'feature.txt': 'attempt 1\n' },
      'task_001: first try',
    );
    const newMain = h.fx.commitOnOrigin(
      'main',
      { 'README.md': '# widgets, moved on\n' },
      'meanwhile',
    );
    const oldBody = [
      'Task `task_001`: Add the feature file',
      'A note a reviewer added.',
      'Part of #7',
      '<!-- agent-coordinator:task issue=7 task=task_001 attempt=1 -->',
      '<!-- agent-coordinator:usage cost_usd=0.25 input_tokens=1000 output_tokens=200 -->',
    ].join('\n\n');
    let patched: { body: string } | undefined;
    nock(API)
      .get(`${REPO}/pulls`)
      .query(HEAD_QUERY)
      .reply(200, [pullFixture(12, BRANCH, oldBody)]);
    nock(API)
      .patch(`${REPO}/pulls/12`, (body: { body: string }) => {
        patched = body;
        return true;
      })
      .reply(200, pullFixture(12, BRANCH, 'updated'));

    const workspace = h.fx.freshWorkspace(BRANCH);
    const result = await h.run({ attempt: '2', feedback: 'Use a trailing newline.' }, workspace);

    expect(result.outcome).toMatchObject({ ok: true, pullRequest: { number: 12, created: false } });
    expect(git(h.fx.origin, 'rev-parse', `${BRANCH}^`)).toBe(newMain);
    expect(git(h.fx.origin, 'show', `${BRANCH}:feature.txt`)).toBe('attempt 2');
    expect(() => git(h.fx.origin, 'merge-base', '--is-ancestor', firstTry, BRANCH)).toThrow();
    expect(h.record()!.stdin).toContain('Use a trailing newline.');

    expect(patched!.body).toContain('A note a reviewer added.');
    expect(patched!.body).toContain(
      '<!-- agent-coordinator:task issue=7 task=task_001 attempt=2 -->',
    );
    expect(patched!.body).not.toContain('attempt=1 -->');
    expect(patched!.body.match(/agent-coordinator:usage/g)).toHaveLength(1);
    expect(patched!.body).toContain(
      '<!-- agent-coordinator:usage cost_usd=0.5 input_tokens=2000 output_tokens=400 -->',
    );
  });

  it('attempt 1 opens its PR in one call, and a re-run whose PR is open updates that one', async () => {
    // GitHub's answer when the branch has an open PR already (a re-run of the publish job).
    nock(API)
      .post(`${REPO}/pulls`)
      .reply(422, {
        message: 'Validation Failed',
        errors: [
          {
            resource: 'PullRequest',
            code: 'custom',
            message: `A pull request already exists for acme:${BRANCH}.`,
          },
        ],
      });
    const earlier =
      'Task `task_001`\n\n<!-- agent-coordinator:task issue=7 task=task_001 attempt=1 -->';
    nock(API)
      .get(`${REPO}/pulls`)
      .query(HEAD_QUERY)
      .reply(200, [pullFixture(12, BRANCH, earlier)]);
    let patched: { body: string } | undefined;
    nock(API)
      .patch(`${REPO}/pulls/12`, (body: { body: string }) => {
        patched = body;
        return true;
      })
      .reply(200, pullFixture(12, BRANCH, 'updated'));

    const result = await h.run();

    expect(result.outcome).toMatchObject({ ok: true, pullRequest: { number: 12, created: false } });
    expect(patched!.body).toContain(
      '<!-- agent-coordinator:task issue=7 task=task_001 attempt=1 -->',
    );
    expect(patched!.body).toContain('Added feature.txt for attempt 1.');
  });

  it('a retry takes no PR a person opened from the branch for its own, and opens its own', async () => {
    h.fx.commitOnOrigin(BRANCH, { 'feature.txt': 'attempt 1\n' }, 'task_001: first try');
    // Anyone who can read the repository can open a PR from the task branch onto any base.
    const lookAlike = {
      ...pullFixture(30, BRANCH, '<!-- agent-coordinator:usage cost_usd=999 -->'),
      user: { login: 'outsider', type: 'User' },
    };
    nock(API).get(`${REPO}/pulls`).query(HEAD_QUERY).reply(200, [lookAlike]);
    let opened: { head: string; base: string } | undefined;
    nock(API)
      .post(`${REPO}/pulls`, (body: { head: string; base: string }) => {
        opened = body;
        return true;
      })
      .reply(201, pullFixture(31, BRANCH, ''));

    const result = await h.run({ attempt: '2' }, h.fx.freshWorkspace(BRANCH));

    expect(result.outcome).toMatchObject({ ok: true, pullRequest: { number: 31, created: true } });
    expect(opened).toMatchObject({ head: BRANCH, base: 'main' });
  });

  it("a retry takes no other bot's PR from the branch for its own when the coordinator names the App", async () => {
    h.fx.commitOnOrigin(BRANCH, { 'feature.txt': 'attempt 1\n' }, 'task_001: first try');
    // Any workflow of the repository can open one as github-actions[bot].
    const otherBot = {
      ...pullFixture(30, BRANCH, '<!-- agent-coordinator:usage cost_usd=999 -->'),
      user: { login: 'github-actions[bot]', type: 'Bot' },
    };
    nock(API).get(`${REPO}/pulls`).query(HEAD_QUERY).reply(200, [otherBot]);
    nock(API)
      .post(`${REPO}/pulls`)
      .reply(201, pullFixture(31, BRANCH, ''));

    const result = await h.run({ attempt: '2' }, h.fx.freshWorkspace(BRANCH));

    expect(result.outcome).toMatchObject({ ok: true, pullRequest: { number: 31, created: true } });
  });

  it("without the App's login from the coordinator, a retry takes a bot's PR from the branch", async () => {
    h.fx.commitOnOrigin(BRANCH, { 'feature.txt': 'attempt 1\n' }, 'task_001: first try');
    const byABot = { ...pullFixture(30, BRANCH, ''), user: { login: 'other[bot]', type: 'Bot' } };
    nock(API).get(`${REPO}/pulls`).query(HEAD_QUERY).reply(200, [byABot]);
    nock(API).patch(`${REPO}/pulls/30`).reply(200, byABot);

    const result = await h.run({ attempt: '2', app_login: '' }, h.fx.freshWorkspace(BRANCH));

    expect(result.outcome).toMatchObject({ ok: true, pullRequest: { number: 30, created: false } });
  });

  it('a retry does not overwrite commits someone pushed after the job started', async () => {
    h.fx.commitOnOrigin(BRANCH, { 'feature.txt': 'attempt 1\n' }, 'task_001: first try');
    const workspace = h.fx.freshWorkspace(BRANCH);
    // The agent job checked out at its start; a person pushing before the publish job pushes
    // must make the lease fail.
    const result = await h.run({ attempt: '2' }, workspace, {
      beforePublish: () => {
        h.fx.commitOnOrigin(BRANCH, { 'late.txt': 'late\n' }, 'late');
      },
    });
    expect(result.outcome).toMatchObject({ ok: false, reason: 'push_failed' });
    expect(git(h.fx.origin, 'log', '-1', '--format=%s', BRANCH)).toBe('late');
  });

  it('a retry may start only from the base since the branch forked: an older base commit is refused', async () => {
    const initial = h.fx.originRev('main');
    // The branch forked from a later main, and main moved on again since.
    h.fx.commitOnOrigin('main', { 'README.md': '# widgets 2\n' }, 'main 2');
    git(h.fx.human, 'push', '--quiet', '--force', 'origin', `main:refs/heads/${BRANCH}`);
    h.fx.commitOnOrigin(BRANCH, { 'feature.txt': 'attempt 1\n' }, 'task_001: first try');
    h.fx.commitOnOrigin('main', { 'README.md': '# widgets 3\n' }, 'main 3');
    const before = h.fx.originRev(BRANCH);
    const workspace = h.fx.freshWorkspace(BRANCH);

    // A result naming the initial commit, a commit of main older than the fork: the branch
    // would lose what main had at the fork (its workflow files among it).
    const result = await h.run({ attempt: '2' }, workspace, {
      beforePublish: (dir) => {
        const file = join(dir, 'result.json');
        const forged = JSON.parse(readFileSync(file, 'utf8')) as { parents: string[] };
        writeFileSync(file, JSON.stringify({ ...forged, parents: [initial] }));
      },
    });

    expect(result.outcome).toMatchObject({
      ok: false,
      reason: 'bad_result',
      detail: 'a retry starts from main; the result names another commit',
    });
    expect(h.fx.originRev(BRANCH)).toBe(before);
  });

  it("targets the repository's default branch when no base is given", async () => {
    let base: unknown;
    nock(API).get(REPO).reply(200, { default_branch: 'main' });
    nock(API)
      .post(`${REPO}/pulls`, (body: { base: string }) => {
        base = body.base;
        return true;
      })
      .reply(201, pullFixture(12, BRANCH, ''));
    const result = await h.run({ base: '' });
    expect(result.outcome).toMatchObject({ ok: true });
    expect(base).toBe('main');
  });

  it('fails with no_changes, and pushes nothing, when the agent changes nothing', async () => {
    const before = h.fx.originRev(BRANCH);
    const result = await h.run({ FAKE_AGENT: 'nothing' });
    expect(result.outcome).toMatchObject({ ok: false, reason: 'no_changes' });
    expect(result.exitCode).toBe(1);
    expect(result.log.trimEnd().split('\n').at(-1)).toMatch(errorLine('no_changes'));
    expect(h.fx.originRev(BRANCH)).toBe(before);
  });

  it('kills the agent and its children on timeout and fails with timeout', async () => {
    const pidsFile = join(h.shared, 'pids.json');
    const before = h.fx.originRev(BRANCH);
    // The agent never exits by itself: the run ends only because the worker kills it. The limit
    // counts from the step's start, user and network rules included: 3 s was not always enough
    // on a loaded 2-core machine for the agent to start and write its pids.
    const result = await h.run({
      FAKE_AGENT: 'hang',
      FAKE_AGENT_PIDS: pidsFile,
      timeout_minutes: '0.15',
    });
    expect(result.outcome).toMatchObject({ ok: false, reason: 'timeout' });
    expect(result.log).toMatch(errorLine('timeout', 'm'));
    expect(h.fx.originRev(BRANCH)).toBe(before);

    expect(existsSync(pidsFile), 'the agent started before its time ran out').toBe(true);
    const pids = JSON.parse(readFileSync(pidsFile, 'utf8')) as number[];
    for (const pid of pids) await waitUntilDead(pid);
  });

  it('fails with agent_failed when the agent exits non-zero, and pushes nothing', async () => {
    const before = h.fx.originRev(BRANCH);
    const result = await h.run({ FAKE_AGENT: 'fail' });
    expect(result.outcome).toMatchObject({ ok: false, reason: 'agent_failed' });
    expect(result.outcome.ok ? '' : result.outcome.detail).toContain('exited with code 3');
    expect(h.fx.originRev(BRANCH)).toBe(before);
  });

  it('accepts an agent that prints plain text (no usage marker then)', async () => {
    let created: { body: string } | undefined;
    nock(API)
      .post(`${REPO}/pulls`, (body: { body: string }) => {
        created = body;
        return true;
      })
      .reply(201, pullFixture(13, BRANCH, ''));
    const result = await h.run({ FAKE_AGENT: 'plain' });
    expect(result.outcome).toMatchObject({ ok: true });
    expect(created!.body).toContain('agent-coordinator:task issue=7');
    expect(created!.body).not.toContain('agent-coordinator:usage');
    expect(created!.body).not.toContain('done, no JSON here');
  });

  it('refuses to work on a branch other than the task branch', async () => {
    git(h.fx.workspace, 'checkout', '--quiet', '-b', 'main-copy');
    const result = await h.run();
    expect(result.outcome).toMatchObject({ ok: false, reason: 'bad_input' });
    expect(result.exitCode).toBe(2);
    expect(h.record()).toBeUndefined();
  });

  it('withholds the App token from the agent and keeps the prompt file out of the tree', async () => {
    nock(API)
      .post(`${REPO}/pulls`)
      .reply(201, pullFixture(12, BRANCH, ''));
    const result = await h.run({ GITHUB_ENV: join(h.fx.root, 'github-env') });
    expect(result.outcome.ok).toBe(true);
    const record = h.record()!;
    expect(record).toMatchObject({
      ghToken: null,
      githubToken: null,
      githubEnv: null,
      promptFileInCwd: false,
    });
    expect(record.promptFile).toBe(record.stdin);
    expect(git(h.fx.origin, 'ls-tree', '--name-only', BRANCH).split('\n').sort()).toEqual([
      'README.md',
      'feature.txt',
      'shared.txt',
    ]);
    expect(existsSync(join(h.fx.root, 'github-env'))).toBe(false);
  });
});

describe('work mode: the API key', () => {
  it("never reaches the agent: it gets a placeholder and the worker's proxy, gone once it ends", async () => {
    nock(API)
      .post(`${REPO}/pulls`)
      .reply(201, pullFixture(12, BRANCH, ''));
    const realKey = 'sk-ant-api03-real-key-of-the-repository';
    const result = await h.run({ ANTHROPIC_API_KEY: realKey });
    expect(result.outcome.ok).toBe(true);
    const record = h.record()!;
    expect(record.anthropicApiKey).toMatch(/^sk-ant-agent-coordinator-/);
    expect(JSON.stringify(record)).not.toContain(realKey);
    expect(record.anthropicBaseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The proxy closed with the agent: what the agent kept is worth nothing now.
    const socket = createConnection(Number(new URL(record.anthropicBaseUrl!).port), '127.0.0.1');
    const [error] = (await once(socket, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('ECONNREFUSED');
  });
});

async function waitUntilDead(pid: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    if (Date.now() > deadline) throw new Error(`process ${pid} still alive`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('work mode: what GitHub and Claude Code would refuse or report', () => {
  it('fails with workflow_files_changed, naming the files, and pushes nothing', async () => {
    const before = h.fx.originRev(BRANCH);
    const result = await h.run({ FAKE_AGENT: 'workflow' });
    expect(result.outcome).toMatchObject({ ok: false, reason: 'workflow_files_changed' });
    expect(result.outcome.ok ? '' : result.outcome.detail).toContain('.github/workflows/ci.yml');
    const last = result.log.trimEnd().split('\n').at(-1);
    expect(last).toMatch(errorLine('workflow_files_changed'));
    expect(last).toContain('.github/workflows/ci.yml');
    expect(h.fx.originRev(BRANCH)).toBe(before);
  });

  it('asks the coordinator again before pushing when the token is about to expire', async () => {
    const taskMarker = '<!-- agent-coordinator:task issue=7 task=task_001 attempt=1 -->';
    nock(API)
      .matchHeader('authorization', 'token ghs_app_token_for_tests_1')
      .post(`${REPO}/pulls`)
      .reply(201, pullFixture(12, BRANCH, taskMarker));
    const result = await h.run({ expires_at: new Date(Date.now() + 5 * 60_000).toISOString() });
    expect(result.outcome).toMatchObject({ ok: true });
    // The assignment job's, the publish job's, and the publish job's renewal.
    expect(h.assignmentRequests()).toBe(3);
    expect(result.log).toContain('the token was about to expire: asked the coordinator again');
  });

  it("gives Claude Code's error reason (errors[], not result) when it stops early", async () => {
    const result = await h.run({ FAKE_AGENT: 'max_turns' });
    expect(result.outcome).toMatchObject({ ok: false, reason: 'agent_failed' });
    expect(result.outcome.ok ? '' : result.outcome.detail).toBe(
      'the agent exited with code 1: error_max_turns: Reached maximum number of turns (3)',
    );
    // Cache reads and writes are input tokens too.
    expect(result.log).toContain('agent usage: cost_usd=0.5 input_tokens=130 output_tokens=5');
  });
});
