import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
} from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { ACTION_BUNDLE, actionBuildOptions } from '../../scripts/action-bundle.js';
import { ASSIGNMENT_PATH } from '../../src/protocol/assignment.js';
import { startGitHubDouble } from '../github-double/index.js';
import type { GitHubDouble } from '../github-double/scenario.js';
import { writeFakeAgent } from './helpers/fake-agent.js';
import { createGitFixture, git, type GitFixture } from './helpers/git-fixture.js';
import { assignmentFixture } from './helpers/harness.js';
import { errorLine } from './error-line.js';
import {
  attemptJobEnv,
  BUNDLE,
  chownAll,
  runBundle,
  startCoordinator,
  withoutPrivilege,
} from './helpers/bundle.js';

describe('the committed action bundle', () => {
  it('is what `npm run build:action` builds from the current sources', async () => {
    const result = await build({ ...actionBuildOptions, write: false });
    expect(result.outputFiles).toHaveLength(1);
    const fresh = Buffer.from(result.outputFiles[0]!.contents);
    const committed = readFileSync(BUNDLE);
    expect(
      committed.equals(fresh),
      `${ACTION_BUNDLE} is stale: run \`npm run build:action\` and commit it`,
    ).toBe(true);
  });
});

describe('the action bundle, run as GitHub runs it', () => {
  let double: GitHubDouble | undefined;
  let fx: GitFixture | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    server?.close();
    fx?.cleanup();
    try {
      double?.assertNoViolations();
    } finally {
      await double?.close();
      double = undefined;
    }
  });

  const actionEnv = (coordinatorUrl: string, workspace: string, agent: string) => ({
    ...attemptJobEnv(coordinatorUrl, workspace),
    INPUT_STEP: 'assignment',
    ACTIONS_ID_TOKEN_REQUEST_URL: `${coordinatorUrl}/oidc?api-version=2.0`,
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-request-bearer',
    AGENT_COMMAND: agent,
    FAKE_AGENT: 'write',
  });

  /**
   * The three jobs of one attempt, each run by the committed bundle with its own RUNNER_TEMP and
   * only what its permissions give it, against the double and a coordinator that answers with
   * `answerWith(assignment)`.
   */
  async function runThreeJobs(
    answerWith: (assignment: unknown) => (body: unknown) => { status: number; body: unknown },
  ) {
    double = await startGitHubDouble({ webhookSecret: 's' });
    const repo = await double.createRepo({
      owner: 'acme',
      name: 'widgets',
      files: { 'README.md': '# w\n' },
    });
    await double.setPermission(repo, 'agent-bot', 'write');
    await double.pushCommit(repo, 'agent/7/task_001', {
      message: 'start',
      files: { 'x.txt': 'x' },
      by: 'agent-bot',
    });
    const token = double.createUserToken('agent-bot');
    fx = createGitFixture('agent/7/task_001');
    const agent = writeFakeAgent(fx.root);
    const assignment = assignmentFixture(token);
    const coordinator = await startCoordinator(answerWith(assignment));
    server = coordinator.server;

    // Removed with the fixture, made outside the folders the worker sweeps.
    const records = join(fx.root, 'records');
    mkdirSync(records);
    chmodSync(records, 0o777);
    const recordPath = join(records, 'agent-record.json');
    const base = {
      ...actionEnv(coordinator.url, fx.workspace, agent.command),
      GITHUB_API_URL: double.apiUrl,
      FAKE_AGENT_RECORD: recordPath,
    };
    // The three jobs, each with its own RUNNER_TEMP and only what its permissions give it:
    // the agent job has no OIDC request variables, the publish job a fresh checkout.
    const root = fx.root;
    const temps = [0, 1, 2].map(() => mkdtempSync(join(root, 'runner-temp-')));
    const handOver = (from: string, to: string) =>
      cpSync(join(from, 'agent-coordinator'), join(to, 'agent-coordinator'), { recursive: true });
    const first = await runBundle(
      { ...base, INPUT_STEP: 'assignment', RUNNER_TEMP: temps[0] },
      fx.workspace,
    );
    expect(first.stderr).toBe('');
    expect(first.code, first.stdout).toBe(0);
    handOver(temps[0]!, temps[1]!);
    const {
      ACTIONS_ID_TOKEN_REQUEST_URL: _u,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: _t,
      ...agentEnv
    } = base;
    const second = await runBundle(
      { ...agentEnv, INPUT_STEP: 'agent', RUNNER_TEMP: temps[1] },
      fx.workspace,
    );
    expect(second.code, second.stdout).toBe(0);
    expect(readdirSync(join(temps[1]!, 'agent-coordinator', 'result')).sort()).toEqual([
      'change.patch',
      'result.json',
    ]);
    handOver(temps[1]!, temps[2]!);
    const publishWorkspace = fx.freshWorkspace('agent/7/task_001');
    const run = await runBundle(
      { ...base, INPUT_STEP: 'publish', RUNNER_TEMP: temps[2], GITHUB_WORKSPACE: publishWorkspace },
      publishWorkspace,
    );
    expect(run.stderr).toBe('');
    expect(run.code, run.stdout).toBe(0);

    return { coordinator, first, second, run, token, recordPath, repo, double, fx };
  }

  it('gets its assignment with an OIDC token, pushes the branch and opens the PR', async () => {
    const jobs = await runThreeJobs((assignment) => () => ({ status: 200, body: assignment }));
    const { coordinator, first, second, run, token, recordPath, repo } = jobs;

    // The OIDC request exactly as @actions/core makes it: from the assignment job and the
    // publish job, never from the agent job.
    const oidc = {
      url: `/oidc?api-version=2.0&audience=${encodeURIComponent(coordinator.url)}`,
      authorization: 'Bearer oidc-request-bearer',
    };
    expect(coordinator.seen.oidc).toEqual([oidc, oidc]);
    const asked = {
      authorization: 'Bearer eyJ.oidc-jwt-for-tests.sig',
      body: { task_id: 'task_001', issue: '7', attempt: '1' },
    };
    // The publish job says what the agent spent, as the fake agent reported it.
    const usage = { cost_usd: 0.25, input_tokens: 1000, output_tokens: 200 };
    expect(coordinator.seen.assignments).toEqual([
      asked,
      { ...asked, body: { ...asked.body, usage } },
    ]);
    // Both secrets are masked before anything else could print them.
    for (const job of [first, run]) {
      const lines = job.stdout.split('\n');
      expect(lines.indexOf('::add-mask::eyJ.oidc-jwt-for-tests.sig')).toBe(0);
      expect(lines.indexOf(`::add-mask::${token}`)).toBe(1);
    }
    // The assignment job hands over the task, never the token.
    expect(second.stdout).not.toContain(token);
    expect(run.stdout.split('\n').at(-2)).toMatch(
      /^::notice::agent-coordinator: pushed [0-9a-f]{12} to agent\/7\/task_001; PR #\d+ opened$/,
    );

    // The agent can neither ask for an OIDC token nor use the assignment's token.
    const record = JSON.parse(readFileSync(recordPath, 'utf8')) as Record<string, unknown>;
    expect(record).toMatchObject({
      ghToken: null,
      githubToken: null,
      idTokenUrl: null,
      inputs: [],
      isSandbox: null,
    });
    expect(record.stdin).toContain('Create feature.txt.');

    expect(git(jobs.fx.origin, 'show', 'agent/7/task_001:feature.txt')).toBe('attempt 1');
    const pulls = jobs.double.pulls(repo) as Array<{
      body: string;
      head: { ref: string };
      base: { ref: string };
    }>;
    expect(pulls).toHaveLength(1);
    expect(pulls[0]!.head.ref).toBe('agent/7/task_001');
    expect(pulls[0]!.base.ref).toBe('main');
    expect(pulls[0]!.body).toContain(
      '<!-- agent-coordinator:task issue=7 task=task_001 attempt=1 -->',
    );
  });

  it('asks again without the usage when a coordinator from before the field refuses it', async () => {
    const { coordinator, run } = await runThreeJobs(
      (assignment) => (body) =>
        (body as { usage?: unknown }).usage === undefined
          ? { status: 200, body: assignment }
          : { status: 400, body: { error: 'body: expected the three identifiers' } },
    );
    expect(run.stdout).toContain('asking without it');
    const bodies = coordinator.seen.assignments.map((a) => a.body as Record<string, unknown>);
    expect(bodies.map((b) => 'usage' in b)).toEqual([false, true, false]);
  });

  it("refuses to run the agent as the worker's own user while the job holds the API key or a token", async () => {
    fx = createGitFixture('agent/7/task_001');
    const agent = writeFakeAgent(fx.root);
    const coordinator = await startCoordinator(() => ({
      status: 200,
      body: assignmentFixture('ghs_unused'),
    }));
    server = coordinator.server;
    const temps = [0, 1].map(() => mkdtempSync(join(fx!.root, 'runner-temp-')));
    const base = actionEnv(coordinator.url, fx.workspace, agent.command);
    const first = await runBundle({ ...base, RUNNER_TEMP: temps[0] }, fx.workspace);
    expect(first.code, first.stdout).toBe(0);
    cpSync(join(temps[0]!, 'agent-coordinator'), join(temps[1]!, 'agent-coordinator'), {
      recursive: true,
    });
    // Each job has a checkout of its own: the refused job's is left as it stopped.
    const workspaces = [
      fx.workspace,
      ...[1, 2, 3, 4].map(() => fx!.freshWorkspace('agent/7/task_001')),
    ];
    // A self-hosted runner's user with neither root nor sudo: the worker cannot make the agent
    // a user of its own, so the agent would share the worker's uid.
    const runner = withoutPrivilege();
    const { uid, gid } = statSync(fx.root);
    chownAll(fx.root, '65534:65534', runner.prefix);
    try {
      const record = join(fx.root, 'agent-record.json');
      const {
        ACTIONS_ID_TOKEN_REQUEST_URL: _u,
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: _t,
        ...agentEnv
      } = base;
      const agentStep = (workspace: string, extra: NodeJS.ProcessEnv) =>
        runBundle(
          {
            ...agentEnv,
            INPUT_STEP: 'agent',
            RUNNER_TEMP: temps[1],
            GITHUB_WORKSPACE: workspace,
            FAKE_AGENT_RECORD: record,
            ...extra,
          },
          workspace,
          runner.prefix,
        );

      // The key, a subscription's token and an LLM gateway's credential (which Claude Code sends
      // from its custom headers) are each kept from the agent by the proxy.
      const held: Array<[string, string]> = [
        ['ANTHROPIC_API_KEY', 'sk-ant-api03-held-by-the-worker'],
        ['CLAUDE_CODE_OAUTH_TOKEN', 'sk-ant-oat01-held-by-the-worker'],
        ['ANTHROPIC_CUSTOM_HEADERS', 'cf-aig-authorization: Bearer held-by-the-worker'],
      ];
      for (const [index, [name, value]] of held.entries()) {
        const refused = await agentStep(workspaces[index]!, { [name]: value });
        expect(refused.code, refused.stdout).toBe(1);
        expect(refused.stdout).toContain(
          `the agent would run as the worker's own user (no root and no password-free sudo) and could read ${name}`,
        );
        expect(refused.stdout.trimEnd().split('\n').at(-1)).toMatch(errorLine('agent_failed'));
        expect(existsSync(record), 'the agent never starts').toBe(false);
      }

      // Custom headers Claude Code would refuse fail the attempt as bad input at once, naming
      // the line but never quoting it: it may be a secret pasted without its name.
      const badHeaders = await agentStep(workspaces[3]!, {
        ANTHROPIC_CUSTOM_HEADERS: 'x-team: docs\n: pasted-secret-without-a-name',
      });
      expect(badHeaders.code, badHeaders.stdout).toBe(2);
      expect(badHeaders.stdout).toContain(
        'ANTHROPIC_CUSTOM_HEADERS, line 2: no header name before the colon',
      );
      expect(badHeaders.stdout).not.toContain('pasted-secret');
      expect(badHeaders.stdout.trimEnd().split('\n').at(-1)).toMatch(errorLine('bad_input'));
      expect(existsSync(record), 'the agent never starts').toBe(false);

      // Without a credential to keep, the same runner runs the agent (as its own user, as the log
      // says).
      const ran = await agentStep(workspaces[4]!, {});
      expect(ran.code, ran.stdout).toBe(0);
      expect(ran.stdout).toContain("the agent runs as the worker's own user");
      expect(existsSync(record)).toBe(true);
    } finally {
      chownAll(fx.root, `${uid}:${gid}`, runner.prefix);
    }
  });

  it("shows the coordinator's JSON refusal and fails with ::error::", async () => {
    fx = createGitFixture('agent/7/task_001');
    const refusal = { error: 'run_id 987654321 is not the run dispatched for task_001 attempt 1' };
    const coordinator = await startCoordinator(() => ({ status: 403, body: refusal }));
    server = coordinator.server;
    const run = await runBundle(actionEnv(coordinator.url, fx.workspace, 'false'), fx.workspace);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `agent-coordinator: the coordinator refused the assignment (403 from ${coordinator.url}${ASSIGNMENT_PATH}): ${JSON.stringify(refusal)}`,
    );
    expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(errorLine('assignment_failed'));
  });

  it('says the id-token permission is missing when the job has no OIDC request URL', async () => {
    fx = createGitFixture('agent/7/task_001');
    const env: NodeJS.ProcessEnv = actionEnv('http://127.0.0.1:9', fx.workspace, 'false');
    delete env.ACTIONS_ID_TOKEN_REQUEST_URL;
    delete env.ACTIONS_ID_TOKEN_REQUEST_TOKEN;
    const run = await runBundle(env, fx.workspace);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('ACTIONS_ID_TOKEN_REQUEST_URL is unset');
    expect(run.stdout).toContain('id-token: write');
    expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(errorLine('assignment_failed'));
  });

  it('names each bad input variable and exits 2', async () => {
    fx = createGitFixture('agent/7/task_001');
    const env = {
      ...actionEnv('http://127.0.0.1:9', fx.workspace, 'false'),
      INPUT_TASK_ID: 'Bad Id',
      INPUT_ISSUE: 'x',
    };
    const run = await runBundle(env, fx.workspace);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('INPUT_TASK_ID: expected a task id');
    expect(run.stdout).toContain('INPUT_ISSUE: expected a whole number');
    expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(errorLine('bad_input'));
  });
});
