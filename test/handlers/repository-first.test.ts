import nock from 'nock';
import { Probot } from 'probot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createEngine } from '../../src/engine/create.js';
import type { GitHubPort } from '../../src/github/port.js';
import { createPublicUrl } from '../../src/github/public-url.js';
import { createLogger } from '../../src/logger.js';
import { createMetrics } from '../../src/metrics.js';
import { openDatabase, type DatabaseHandle } from '../../src/store/database.js';
import { createStore, type Store } from '../../src/store/index.js';
import { LogCapture, TEST_APP_ID, TEST_PRIVATE_KEY, TestOctokit } from '../helpers/app.js';
import { examplePayload } from '../helpers/payloads.js';
import { pgliteTemplate } from '../helpers/pglite.js';

/**
 * Probot runs a delivery's handlers side by side. A handler that ran before its repository was
 * recorded found no installation for it: a refusal was then decided outside the installation's
 * lock, and one outsider commenting in several new repositories at once got more replies than
 * the budget allows.
 */
describe('the repository of a delivery', () => {
  let handle: DatabaseHandle;
  let store: Store;

  beforeAll(async () => {
    handle = await openDatabase({ inMemory: await pgliteTemplate() });
    store = createStore(handle);
    nock.disableNetConnect();
  });
  afterAll(async () => {
    nock.enableNetConnect();
    await handle.close();
  });

  /** The app on a store whose repository records fail, and a port that lists what it is asked. */
  const appRecordingFailing = async () => {
    const log = createLogger({ level: 'silent', destination: new LogCapture() });
    const probot = new Probot({
      appId: TEST_APP_ID,
      privateKey: TEST_PRIVATE_KEY,
      secret: 'x',
      Octokit: TestOctokit,
      log,
    });
    const repositories = Object.create(store.repositories) as Store['repositories'];
    repositories.ensureRepository = () => Promise.reject(new Error('the database went away'));
    const failing: Store = { ...store, repositories };
    const engine = createEngine({
      store: failing,
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
    const asked: string[] = [];
    const port = new Proxy({} as GitHubPort, {
      get: (_, name: string) => () => {
        asked.push(name);
        return Promise.resolve(name === 'roleOf' ? 'read' : undefined);
      },
    });
    await probot.load(
      createApp({ store: failing, metrics: createMetrics(), engine, port: () => port }),
    );
    return { probot, asked };
  };

  it('is recorded before any handler acts on it', async () => {
    const { probot, asked } = await appRecordingFailing();
    const payload = examplePayload<Record<string, any>>('issue_comment', 'created');
    const outsider = { ...payload.sender, login: 'outsider', type: 'User' };
    payload.sender = outsider;
    payload.comment = { ...payload.comment, body: '/help', user: outsider };
    payload.issue = { ...payload.issue, pull_request: undefined };

    await expect(
      probot.receive({ id: 'd1', name: 'issue_comment', payload } as never),
    ).rejects.toThrow('the database went away');
    // Failed before anything: no permission read, no reply, nothing in the command log.
    expect(asked).toEqual([]);
    expect(await store.commands.ofRepository(payload.repository.id)).toEqual([]);
  });
});
