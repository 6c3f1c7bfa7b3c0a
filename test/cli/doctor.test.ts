import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readAppManifest } from '../../src/cli/doctor/permissions.js';
import { runCli, type CliIo } from '../../src/cli/main.js';
import { createLogger } from '../../src/logger.js';
import { packageRoot } from '../../src/package-root.js';
import { startSetupServer } from '../../src/setup/server.js';
import { startGitHubDouble } from '../github-double/index.js';
import type { GitHubDouble } from '../github-double/scenario.js';
import { TEST_APP_ID, TEST_PRIVATE_KEY } from '../helpers/app.js';

const REPO = 'octo-org/widgets';
const WORKFLOW = '.github/workflows/agent-worker.yml';

/**
 * `agent-coordinator doctor` against the GitHub double. The double does not model two
 * documented endpoints the doctor reads: `GET /repos/{o}/{r}/labels/{name}` and
 * `GET /repos/{o}/{r}/rules/branches/{branch}`. The tests answer those with the double's
 * fault knob (as GitHub would answer), and one test shows the doctor's "could not check".
 */
const PROJECT = 'agent-coordinator/agent-coordinator';
const ACTION = `${PROJECT}/actions/worker`;
const version = (
  JSON.parse(await readFile(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }
).version;

describe('agent-coordinator doctor', () => {
  let double: GitHubDouble;
  let app: Server | undefined;
  afterEach(async () => {
    app?.close();
    await double?.close();
  });

  /** Stands in for the running App: GET /healthz answers `status`. */
  const startApp = async (status = 200) => {
    app = createServer((req, res) => {
      res.writeHead(req.url === '/healthz' ? status : 404).end('{}');
    }).listen(0, '127.0.0.1');
    await once(app, 'listening');
    return `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  };
  const template = () => readFile(join(packageRoot(), 'templates/agent-worker.yml'), 'utf8');

  const start = async () => {
    double = await startGitHubDouble({ webhookSecret: 'doctor-secret', appId: TEST_APP_ID });
    return double;
  };

  const env = (over: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    APP_ID: String(TEST_APP_ID),
    PRIVATE_KEY: TEST_PRIVATE_KEY,
    GHE_HOST: new URL(double.url).host,
    GHE_PROTOCOL: 'http',
    ...over,
  });

  const doctor = async (args = ['doctor', '--repo', REPO], processEnv = env()) => {
    let out = '';
    let err = '';
    const io: CliIo = {
      out: (t) => void (out += t),
      err: (t) => void (err += t),
      env: processEnv,
      cwd: process.cwd(),
    };
    const code = await runCli(args, io);
    return { code, out, err };
  };

  const label = (name: string, exists: boolean) =>
    double.faults.add({
      method: 'GET',
      path: new RegExp(`^/repos/${REPO}/labels/${name}$`),
      ...(exists
        ? {
            status: 200,
            body: {
              id: 1,
              node_id: 'LA_1',
              url: `${double.apiUrl}/repos/${REPO}/labels/${name}`,
              name,
              color: 'ededed',
              default: false,
              description: null,
            },
          }
        : { status: 404, body: { message: 'Not Found' } }),
    });
  const rulesets = (rules: unknown[]) =>
    double.faults.add({
      method: 'GET',
      path: new RegExp(`^/repos/${REPO}/rules/branches/main$`),
      status: 200,
      body: rules,
    });

  /**
   * GitHub's answer for a tag of the worker action's own repository. GitHub lets an
   * installation token read any public repository; the double answers 404 outside the
   * installation, so where the action's repository is another owner's, the test answers.
   */
  const tagAnswer = (tag: string, sha: string) =>
    double.faults.add({
      method: 'GET',
      path: new RegExp(`^/repos/${PROJECT}/git/ref/tags(/|%2F)${tag}$`),
      status: 200,
      body: {
        ref: `refs/tags/${tag}`,
        node_id: 'REF_1',
        url: `${double.apiUrl}/repos/${PROJECT}/git/refs/tags/${tag}`,
        object: {
          type: 'commit',
          sha,
          url: `${double.apiUrl}/repos/${PROJECT}/git/commits/${sha}`,
        },
      },
    });

  it('passes a repository set up as the README says', async () => {
    await start();
    const publicUrl = await startApp();
    await double.createRepo({
      owner: 'octo-org',
      name: 'widgets',
      files: {
        [WORKFLOW]: await template(),
        '.github/agent-coordinator.yml': 'merge:\n  method: rebase\n',
      },
    });
    await double.setRequiredChecks(REPO, 'main', ['ci', 'agent-coordinator/order'], {
      apps: { 'agent-coordinator/order': TEST_APP_ID },
    });
    await double.enableMergeQueue(REPO, 'main');
    label('agent', true);
    const released = 'ce11ed'.padEnd(40, '0');
    tagAnswer('v0', released);

    const { code, out } = await doctor(undefined, env({ PUBLIC_URL: publicUrl }));
    expect(out).not.toContain('FAIL');
    expect(code).toBe(0);
    expect(out).toContain(`ok    PUBLIC_URL: ${publicUrl}/healthz answers 200`);
    expect(out).toContain(
      `ok    worker action in ${WORKFLOW}: follows the moving tag v0 of the worker action (the App is v${version})`,
    );
    expect(out).toContain(
      `ok    worker action release v0: ${PROJECT} has the tag v0 (${released})`,
    );
    expect(out).toContain('ok    App credentials');
    expect(out).toMatch(
      /ok {4}installation \d+ on octo-org: permissions and events as in app\.yml/,
    );
    expect(out).toContain('ok    config .github/agent-coordinator.yml: valid');
    expect(out).toContain('ok    label "agent": exists');
    expect(out).toContain(`ok    workflow ${WORKFLOW}: declares exactly the 5 worker inputs`);
    expect(out).toContain('ok    merge queue on main: on');
    expect(out).toContain(
      'ok    required check agent-coordinator/order: required on main from this App (branch protection)',
    );
    // app.yml asks for no administration permission: the Actions settings are not readable.
    expect(out).toMatch(
      /\?\? {4}workflow GITHUB_TOKEN: the App may not read the repository's Actions settings \(no administration permission\)/,
    );
    expect(out).toContain('fix: in Settings → Actions → General → Workflow permissions');
    // The App may not list secrets (app.yml asks for no secrets permission): it names them.
    // No App key or App id: only what the agent needs.
    expect(out).toMatch(
      /\?\? {4}workflow secrets: .*no secrets permission.*reads: ANTHROPIC_API_KEY$/m,
    );
    expect(out).toMatch(/\?\? {4}workflow variables: .*reads: AGENT_COMMAND$/m);
    expect(out).not.toMatch(/PRIVATE_KEY|APP_ID/);
    expect(out).toContain('No problems found; 3 things could not be checked');
    double.assertNoViolations();
  });

  it('names each problem of a broken setup: no workflow, invalid config, no label, no required check', async () => {
    await start();
    await double.createRepo({
      owner: 'octo-org',
      name: 'widgets',
      workflows: [],
      files: { '.github/agent-coordinator.yml': 'merge:\n  method: fast\nbogus: 1\n' },
    });
    label('agent', false);
    rulesets([]);

    const { code, out } = await doctor();
    expect(code).toBe(1);
    expect(out).toContain(`FAIL  workflow ${WORKFLOW}: missing on the default branch main`);
    expect(out).toContain('npx agent-coordinator init');
    expect(out).toContain('FAIL  config .github/agent-coordinator.yml: invalid');
    expect(out).toContain(
      '- merge.method: Invalid option: expected one of "merge"|"squash"|"rebase"',
    );
    expect(out).toContain('- bogus: unknown key');
    expect(out).toContain('FAIL  label "agent": does not exist in octo-org/widgets');
    expect(out).toContain('FAIL  required check agent-coordinator/order: not required on main');
    expect(out).toContain('4 problems to fix:');
    double.assertNoViolations();
  });

  it('requires the order check from this App: any other source lets a workflow token pass it', async () => {
    await start();
    await double.createRepo({ owner: 'octo-org', name: 'widgets' });
    const requiredCheck = async () =>
      (await doctor()).out
        .split('\n')
        .find((l) => l.includes('required check'))
        ?.trim();
    double.faults.add({
      method: 'GET',
      path: new RegExp(`^/repos/${REPO}/labels/agent$`),
      status: 200,
      body: { id: 1, name: 'agent' },
      times: 4,
    });
    const ruleset = (integration?: number) =>
      rulesets([
        {
          type: 'required_status_checks',
          ruleset_source_type: 'Repository',
          ruleset_source: REPO,
          ruleset_id: 7,
          parameters: {
            strict_required_status_checks_policy: false,
            required_status_checks: [
              {
                context: 'agent-coordinator/order',
                ...(integration === undefined ? {} : { integration_id: integration }),
              },
            ],
          },
        },
      ]);

    // Branch protection from any source; no ruleset pins it either.
    await double.setRequiredChecks(REPO, 'main', ['agent-coordinator/order']);
    rulesets([]);
    expect(await requiredCheck()).toBe(
      'FAIL  required check agent-coordinator/order: required on main (branch protection rule) from any source: a workflow or App with checks: write can post a passing check of that name',
    );
    // Pinned to another App: this App's check would never count.
    await double.setRequiredChecks(REPO, 'main', ['agent-coordinator/order'], {
      apps: { 'agent-coordinator/order': 15368 },
    });
    rulesets([]);
    expect(await requiredCheck()).toContain(
      'required on main (branch protection rule) from another App (App ID 15368)',
    );
    // A ruleset requiring it from any source.
    await double.setRequiredChecks(REPO, 'main', []);
    ruleset();
    expect(await requiredCheck()).toBe(
      'FAIL  required check agent-coordinator/order: required on main (ruleset) from any source: a workflow or App with checks: write can post a passing check of that name',
    );
    // A ruleset pinning it to this App: GitHub enforces it beside the branch protection rule.
    await double.setRequiredChecks(REPO, 'main', ['agent-coordinator/order']);
    ruleset(TEST_APP_ID);
    expect(await requiredCheck()).toBe(
      'ok    required check agent-coordinator/order: required on main from this App (ruleset)',
    );
    double.assertNoViolations();
  });

  it('flags a workflow GITHUB_TOKEN that may write or approve, when the App may read the Actions settings', async () => {
    const manifest = await readAppManifest();
    double = await startGitHubDouble({
      webhookSecret: 'doctor-secret',
      appId: TEST_APP_ID,
      appPermissions: { ...manifest.permissions, administration: 'read' } as Record<
        string,
        'read' | 'write'
      >,
    });
    await double.createRepo({ owner: 'octo-org', name: 'widgets' });
    const defaults = (body: object) =>
      double.faults.add({
        method: 'GET',
        path: new RegExp(`^/repos/${REPO}/actions/permissions/workflow$`),
        status: 200,
        body,
      });
    const tokenLine = async () => {
      const { out } = await doctor();
      const at = out.indexOf('workflow GITHUB_TOKEN');
      return out.slice(at - 6, out.indexOf('\n      fix:', at));
    };

    // "Permissive": the default of repositories and organizations created before February 2023.
    defaults({ default_workflow_permissions: 'write', can_approve_pull_request_reviews: true });
    const permissive = await tokenLine();
    expect(permissive).toMatch(
      /^FAIL {2}workflow GITHUB_TOKEN: workflows get a read and write GITHUB_TOKEN by default/,
    );
    expect(permissive).toContain('could merge its own PR or push to the base branch');
    expect(permissive).toContain('GitHub Actions may approve pull requests');

    defaults({ default_workflow_permissions: 'read', can_approve_pull_request_reviews: false });
    const { out } = await doctor();
    expect(out).toContain(
      'ok    workflow GITHUB_TOKEN: read-only by default, and GitHub Actions may not approve pull requests',
    );

    double.faults.add({
      method: 'GET',
      path: new RegExp(`^/repos/${REPO}/actions/permissions/workflow$`),
      status: 403,
      body: { message: 'Resource not accessible by integration' },
    });
    expect((await doctor()).out).toMatch(
      /\?\? {4}workflow GITHUB_TOKEN: could not read the Actions settings \(HTTP 403: Resource not accessible by integration\)/,
    );
  });

  it('names missing and extra workflow inputs, with the label and workflow from the config', async () => {
    await start();
    await double.createRepo({
      owner: 'octo-org',
      name: 'widgets',
      workflows: [{ file: 'agents.yml', inputs: ['task_id', 'issue', 'mode', 'branch'] }],
      files: {
        '.github/agent-coordinator.yml': 'label: ai-task\nworker:\n  workflow: agents.yml\n',
      },
    });
    await double.setRequiredChecks(REPO, 'main', ['agent-coordinator/order'], {
      apps: { 'agent-coordinator/order': TEST_APP_ID },
    });
    label('ai-task', true);

    const { code, out } = await doctor();
    expect(code).toBe(1);
    expect(out).toContain('ok    label "ai-task": exists');
    expect(out).toContain(
      'FAIL  workflow .github/workflows/agents.yml: does not declare the inputs attempt, coordinator_url',
    );
    expect(out).toContain('declares inputs the coordinator never sends: branch');
    // The double's workflow file runs no worker action either.
    expect(out).toContain(
      `FAIL  worker action in .github/workflows/agents.yml: does not use the worker action ${ACTION}`,
    );
    expect(out).toContain('2 problems to fix:');
    double.assertNoViolations();
  });

  it('says how far behind the App a pinned worker action is, and when PUBLIC_URL does not answer', async () => {
    await start();
    const pinned = (await template()).replace(
      `uses: ${ACTION}@v0`,
      `uses: ${ACTION}@${'a'.repeat(40)} # v0.0.3`,
    );
    await double.createRepo({ owner: 'octo-org', name: 'widgets', files: { [WORKFLOW]: pinned } });
    const down = await startApp(503);
    const { code, out } = await doctor(['doctor', '--repo', REPO, '--public-url', down]);
    expect(code).toBe(1);
    const distance =
      version === '0.0.3' ? undefined : version.startsWith('0.0.') ? 'patch' : 'minor';
    expect(distance).toBeDefined();
    expect(out).toMatch(
      new RegExp(
        `FAIL  worker action in ${WORKFLOW}: uses the worker action at v0\\.0\\.3, \\d+ ${distance} behind the App \\(v${version.replace(/\./g, '\\.')}\\)`,
      ),
    );
    expect(out).toContain(`init --force\` pins ${ACTION} to v${version}`);
    expect(out).toContain(`FAIL  PUBLIC_URL: ${down}/healthz answers 503`);
    expect(out).toContain('cannot reach its database');
  });

  it('says when PUBLIC_URL is a process still in setup mode', async () => {
    await start();
    await double.createRepo({
      owner: 'octo-org',
      name: 'widgets',
      files: { [WORKFLOW]: await template() },
    });
    const setup = await startSetupServer({
      env: { port: 0, host: '127.0.0.1', githubBaseUrl: double.apiUrl },
      envFile: join(tmpdir(), 'ac-doctor-setup-never-written.env'),
      log: createLogger({ level: 'silent' }),
    });
    try {
      const { code, out } = await doctor(['doctor', '--repo', REPO, '--public-url', setup.url]);
      expect(code).toBe(1);
      expect(out).toContain(
        `FAIL  PUBLIC_URL: ${setup.url}/healthz answers from setup mode: the App at PUBLIC_URL has no credentials`,
      );
    } finally {
      await setup.close();
    }
  });

  it('says when the release the workflow pins does not exist, or is not the pinned commit', async () => {
    // A repository of the organization that publishes the worker action, so that the App's
    // installation token reads the action's repository in the double too.
    await start();
    const publicUrl = await startApp();
    const [org, project] = PROJECT.split('/') as [string, string];
    const repo = `${org}/widgets`;
    await double.createRepo({ owner: org, name: project });
    await double.createRepo({
      owner: org,
      name: 'widgets',
      files: { [WORKFLOW]: await template() },
    });
    // The two endpoints the double does not model, answered for each of the runs below.
    double.faults.add({
      method: 'GET',
      path: new RegExp(`^/repos/${repo}/labels/agent$`),
      status: 404,
      body: { message: 'Not Found' },
      times: 4,
    });
    double.faults.add({
      method: 'GET',
      path: new RegExp(`^/repos/${repo}/rules/branches/main$`),
      status: 200,
      body: [],
      times: 4,
    });
    const check = () => doctor(['doctor', '--repo', repo], env({ PUBLIC_URL: publicUrl }));

    // Nothing released yet: GitHub answers 404 for the template's v0.
    let { code, out } = await check();
    expect(code).toBe(1);
    expect(out).toContain(
      `FAIL  worker action release v0: ${PROJECT} has no tag v0: GitHub cannot start the worker action, so every run fails at "Set up job"`,
    );
    expect(out).toContain(`fix: release it with the Release workflow of ${PROJECT}`);

    // Released: the moving tag exists.
    const released = await double.createTag(PROJECT, 'v0');
    ({ out } = await check());
    expect(out).toContain(
      `ok    worker action release v0: ${PROJECT} has the tag v0 (${released})`,
    );

    // init's pin: the commit of v<version>, which must still be that tag's commit.
    await double.createTag(PROJECT, `v${version}`, released);
    const pinnedTo = async (sha: string) => {
      const text = (await template()).replaceAll(
        `uses: ${ACTION}@v0`,
        `uses: ${ACTION}@${sha} # v${version}`,
      );
      await double.pushCommit(repo, 'main', {
        message: 'Pin the worker action',
        files: { [WORKFLOW]: text },
        by: org,
      });
      return check();
    };
    ({ out } = await pinnedTo(released));
    expect(out).toContain(
      `ok    worker action release v${version}: ${PROJECT} has the tag v${version} (${released})`,
    );
    ({ code, out } = await pinnedTo('b'.repeat(40)));
    expect(code).toBe(1);
    expect(out).toContain(
      `FAIL  worker action release v${version}: the workflow pins ${'b'.repeat(40)} as v${version}, but ${PROJECT}'s v${version} is ${released}`,
    );
    double.assertNoViolations();
  });

  it('stops at a missing installation and says where to install the App', async () => {
    await start();
    await double.createRepo({ owner: 'octo-org', name: 'widgets', installed: false });
    const { code, out } = await doctor();
    expect(code).toBe(1);
    expect(out).toContain('FAIL  installation: the App is not installed on octo-org/widgets');
    expect(out).toMatch(/fix: install it: \S+\/installations\/new/);
    expect(out).not.toContain('workflow');
    double.assertNoViolations();
  });

  it('reports credentials GitHub refuses', async () => {
    await start();
    await double.createRepo({ owner: 'octo-org', name: 'widgets' });
    const { code, out } = await doctor(undefined, env({ APP_ID: '999' }));
    expect(code).toBe(1);
    expect(out).toMatch(/FAIL {2}App credentials: GitHub did not accept them \(HTTP 401/);
  });

  it('says what it could not check when GitHub (here: the double) does not answer', async () => {
    await start();
    await double.createRepo({
      owner: 'octo-org',
      name: 'widgets',
      files: { [WORKFLOW]: await template() },
    });
    tagAnswer('v0', 'ce11ed'.padEnd(40, '0'));
    const { code, out } = await doctor();
    expect(out).toMatch(/\?\? {4}label "agent": could not check it \(HTTP 501/);
    expect(out).toMatch(
      /\?\? {4}required check agent-coordinator\/order: not required by branch protection; could not check rulesets: HTTP 501/,
    );
    expect(code).toBe(0);
    // Exactly the two endpoints the double does not model, and nothing else.
    expect(double.violations.map((v) => `${v.method} ${v.path}`).sort()).toEqual([
      `GET /repos/${REPO}/labels/agent`,
      `GET /repos/${REPO}/rules/branches/main`,
    ]);
  });

  it("quotes GitHub's reasons when it refuses a GraphQL query", async () => {
    await start();
    await double.createRepo({ owner: 'octo-org', name: 'widgets' });
    double.faults.add({
      method: 'POST',
      path: /^\/graphql$/,
      status: 200,
      body: {
        data: { repository: null },
        errors: [
          {
            type: 'FORBIDDEN',
            path: ['repository'],
            message: 'Resource not accessible by integration',
          },
        ],
      },
    });
    const { out } = await doctor();
    expect(out).toMatch(
      /\?\? {4}merge queue on main: could not check it \(HTTP 200: Resource not accessible by integration\)/,
    );
  });

  it('explains its usage and its credentials', async () => {
    await start();
    expect((await doctor(['doctor'])).code).toBe(2);
    expect((await doctor(['doctor', '--repo', 'not a repo'])).err).toContain('--repo owner/name');
    const noCreds = await doctor(['doctor', '--repo', REPO], { GHE_HOST: 'x' });
    expect(noCreds.code).toBe(2);
    expect(noCreds.err).toContain('APP_ID and PRIVATE_KEY');
    const help = await doctor(['help']);
    expect(help.out).toContain('doctor --repo owner/name');
  });
});
