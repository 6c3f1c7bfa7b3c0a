import { randomUUID } from 'node:crypto';
import nock from 'nock';
import { Probot } from 'probot';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { RepoConfig } from '../../src/config/schema.js';
import { createEngine } from '../../src/engine/create.js';
import { createPublicUrl } from '../../src/github/public-url.js';
import { createLogger } from '../../src/logger.js';
import { createMetrics } from '../../src/metrics.js';
import { openDatabase, type DatabaseHandle } from '../../src/store/database.js';
import { createStore, type Store } from '../../src/store/index.js';
import { LogCapture, TEST_APP_ID, TEST_PRIVATE_KEY, TestOctokit } from '../helpers/app.js';
import { examplePayload, INSTALLATION_ID } from '../helpers/payloads.js';
import { pgliteTemplate } from '../helpers/pglite.js';

const API = 'https://api.github.com';

/** Driven with probot.receive and real webhooks-examples payloads; nock fails on any unplanned call. */
describe('issues.labeled', () => {
  let handle: DatabaseHandle;
  let store: Store;
  let probot: Probot;
  let started: Array<{ config: RepoConfig; issue: number }>;

  beforeAll(async () => {
    handle = await openDatabase({ inMemory: await pgliteTemplate() });
    store = createStore(handle);
    nock.disableNetConnect();
  });
  afterAll(async () => {
    nock.enableNetConnect();
    await handle.close();
  });

  beforeEach(async () => {
    started = [];
    const log = createLogger({ level: 'silent', destination: new LogCapture() });
    probot = new Probot({
      appId: TEST_APP_ID,
      privateKey: TEST_PRIVATE_KEY,
      secret: 'x',
      Octokit: TestOctokit,
      log,
    });
    const engine = createEngine({
      store,
      log,
      probot,
      appId: TEST_APP_ID,
      maxParallel: Infinity,
      publicUrl: createPublicUrl({
        configured: 'https://coordinator.test',
        readWebhookUrl: async () => undefined,
        log,
      }),
    });
    await probot.load(
      createApp({
        store,
        metrics: createMetrics(),
        engine,
        // The run itself is the engine's (test/e2e); here only who may start one, and with what.
        onRunRequested: async ({ context, config }) => {
          started.push({ config, issue: context.payload.issue.number });
        },
      }),
    );
    nock(API)
      .post(`/app/installations/${INSTALLATION_ID}/access_tokens`)
      .reply(200, { token: 'ghs_test', permissions: {} });
  });
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    expect(pending).toEqual([]);
  });

  // Each test's label event is another one (a config error is answered once per label event, and
  // the database is shared): GitHub moves the issue's updated_at with every label.
  let labelledAt = Date.parse('2024-01-01T00:00:00Z');
  const payload = (labelName: string, login = 'Codertocat') => {
    const p = examplePayload<Record<string, any>>('issues', 'labeled');
    p.label = { ...p.label, name: labelName };
    labelledAt += 1_000;
    p.issue = { ...p.issue, updated_at: new Date(labelledAt).toISOString().replace('.000', '') };
    p.sender = { ...p.sender, login, type: 'User' };
    return p;
  };
  // Each its own delivery: one handled again looks for the answer it may have posted.
  const receive = (p: Record<string, any>) =>
    probot.receive({ id: randomUUID(), name: 'issues', payload: p } as never);
  const configFile = (yaml: string | null) => {
    const scope = nock(API).get(
      '/repos/Codertocat/Hello-World/contents/.github%2Fagent-coordinator.yml',
    );
    if (yaml !== null) return scope.reply(200, yaml);
    scope.reply(404, { message: 'Not Found' });
    // A missing file makes Probot look in the owner's .github repository too.
    return nock(API)
      .get('/repos/Codertocat/.github/contents/.github%2Fagent-coordinator.yml')
      .reply(404, {});
  };
  /** Handles the delivery and returns the one comment the App posted on issue 1 (as `commentId`). */
  const repliedTo = async (
    delivery: Parameters<typeof receive>[0],
    commentId = 1,
  ): Promise<string> => {
    let reply = '';
    nock(API)
      .post('/repos/Codertocat/Hello-World/issues/1/comments', (body: { body: string }) => {
        reply = body.body;
        return true;
      })
      .reply(201, { id: commentId });
    await receive(delivery);
    return reply;
  };
  const role = (login: string, roleName: string, permission = roleName) =>
    nock(API)
      .get(`/repos/Codertocat/Hello-World/collaborators/${login}/permission`)
      .reply(200, { permission, role_name: roleName, user: { login } });

  /** The issue as GitHub shows it now (the label event's payload is not trusted for it). */
  const issueNow = (state: string, labels: string[]) =>
    nock(API)
      .get('/repos/Codertocat/Hello-World/issues/1')
      .reply(200, { number: 1, state, labels: labels.map((name) => ({ name })) });

  it('starts a run for a write user with the default config when the file is missing', async () => {
    configFile(null);
    role('Codertocat', 'write');
    issueNow('open', ['agent']);
    await receive(payload('agent'));
    expect(started).toHaveLength(1);
    expect(started[0]?.config.merge.method).toBe('squash');
  });

  it.each(['maintain', 'admin'])('starts a run for a %s user', async (r) => {
    configFile(null);
    role('Codertocat', r, r === 'maintain' ? 'write' : r);
    issueNow('open', ['agent']);
    await receive(payload('agent'));
    expect(started).toHaveLength(1);
  });

  // A captured delivery sent again under a new id carries the old payload: GitHub's issue decides.
  it.each([
    { name: 'closed since', state: 'closed', labels: ['agent'] },
    { name: 'unlabelled since', state: 'open', labels: ['bug'] },
  ])('starts nothing for an issue $name', async ({ state, labels }) => {
    configFile(null);
    role('Codertocat', 'write');
    issueNow(state, labels);
    await receive(payload('agent'));
    expect(started).toEqual([]);
  });

  it('starts nothing for an issue that is gone (404)', async () => {
    configFile(null);
    role('Codertocat', 'write');
    nock(API).get('/repos/Codertocat/Hello-World/issues/1').reply(404, {});
    await receive(payload('agent'));
    expect(started).toEqual([]);
  });

  it('starts nothing, and fails the delivery for a retry, when GitHub does not answer the issue read', async () => {
    configFile(null);
    role('Codertocat', 'write');
    nock(API).get('/repos/Codertocat/Hello-World/issues/1').reply(502, {});
    await expect(receive(payload('agent'))).rejects.toThrow();
    expect(started).toEqual([]);
  });

  it('ignores labels other than the configured one without asking for permissions', async () => {
    configFile('label: agents\n');
    await receive(payload('agent'));
    expect(started).toEqual([]);
  });

  it('reads the config once for a run of other labels, but afresh for the trigger label', async () => {
    configFile('label: agents\n');
    await receive(payload('bug'));
    // Within the cache's minute: no read (nock fails any request it was not told about).
    await receive(payload('bug'));
    await receive(payload('documentation'));
    // A label that may start a run is decided on the file as it is now.
    configFile('label: agents\n');
    role('Codertocat', 'write');
    issueNow('open', ['agents']);
    await receive(payload('agents'));
    expect(started).toHaveLength(1);
  });

  it.each(['triage', 'read', 'none'])('replies once to a %s user and starts nothing', async (r) => {
    configFile(null);
    // Someone of their own: the refusal budget answers each person once an hour per issue.
    const login = `${r}-user`;
    role(login, r, r === 'triage' ? 'read' : r);
    const reply = await repliedTo(payload('agent', login), 2 ** 33);
    expect(started).toEqual([]);
    expect(reply).toContain('only people with write access');
    expect(reply).toContain(`your role: ${r}`);
  });

  it('treats a non-collaborator (404) as no access', async () => {
    configFile(null);
    nock(API)
      .get('/repos/Codertocat/Hello-World/collaborators/Codertocat/permission')
      .reply(404, {});
    nock(API).post('/repos/Codertocat/Hello-World/issues/1/comments').reply(201, { id: 1 });
    await receive(payload('agent'));
    expect(started).toEqual([]);
  });

  it('names the bad key of an invalid config and starts nothing', async () => {
    configFile('merge:\n  method: fast-forward\nworker:\n  timeoutMinute: 5\n');
    role('Codertocat', 'admin');
    const reply = await repliedTo(payload('agent'));
    expect(started).toEqual([]);
    expect(reply).toContain('`.github/agent-coordinator.yml` is invalid');
    expect(reply).toContain('merge.method: Invalid option: expected one of');
    expect(reply).toContain('worker.timeoutMinute: unknown key');
  });

  it("refuses a config that takes its values from another owner's repository", async () => {
    configFile('_extends: mallory/cfg\nlabel: agent\n');
    // Probot's config plugin follows it: what mallory writes would set this repository's limits.
    nock(API)
      .get('/repos/mallory/cfg/contents/.github%2Fagent-coordinator.yml')
      .reply(200, 'merge:\n  requireApproval: false\n');
    role('Codertocat', 'admin');
    const reply = await repliedTo(payload('agent'));
    expect(started).toEqual([]);
    expect(reply).toContain('`.github/agent-coordinator.yml` is invalid');
    expect(reply).toContain('a repository of another owner');
  });

  it('reports a YAML syntax error in the config', async () => {
    configFile('label: [agent\n');
    role('Codertocat', 'write');
    const reply = await repliedTo(payload('agent'));
    expect(started).toEqual([]);
    expect(reply).toContain('.github/agent-coordinator.yml');
  });

  it('ignores labels added by bots (its own agent:done label included)', async () => {
    const p = payload('agent');
    p.sender = { ...p.sender, login: 'agent-coordinator[bot]', type: 'Bot' };
    nock.cleanAll(); // no token needed: nothing is asked of GitHub
    await receive(p);
    expect(started).toEqual([]);
  });

  it('records the installation and repository of every event', async () => {
    const p = payload('something-else');
    configFile(null);
    await receive(p);
    const repo = await store.repositories.getRepository(p.repository.id);
    expect(repo).toMatchObject({
      owner: 'Codertocat',
      name: 'Hello-World',
      installationId: INSTALLATION_ID,
    });
  });
});
