import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { sign } from '@octokit/webhooks-methods';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { updateEnvFile } from '../src/setup/env-file.js';
import { TEST_PRIVATE_KEY, TEST_WEBHOOK_SECRET } from './helpers/app.js';
import { examplePayload } from './helpers/payloads.js';
import { createTestDatabase } from './helpers/postgres.js';
import { spawnApp, type AppProcess } from './helpers/process.js';

const credentials = {
  APP_ID: '4242',
  PRIVATE_KEY: TEST_PRIVATE_KEY,
  WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'debug',
};

async function listeningUrl(app: AppProcess): Promise<string> {
  const line = await app.waitForLine(/agent-coordinator listening/);
  return (JSON.parse(line) as { url: string }).url;
}

async function deliver(url: string, id: string): Promise<number> {
  const body = JSON.stringify(examplePayload('installation', 'created'));
  const response = await fetch(`${url}/api/github/webhooks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'installation',
      'x-github-delivery': id,
      'x-hub-signature-256': await sign(TEST_WEBHOOK_SECRET, body),
    },
    body,
  });
  return response.status;
}

describe('the app process', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('refuses to start in production with the default webhook secret, and says why', async () => {
    const app = spawnApp({ NODE_ENV: 'production', APP_ID: '1', PRIVATE_KEY: TEST_PRIVATE_KEY });
    expect(await app.exited).toBe(78);
    expect(app.output.join('\n')).toContain('WEBHOOK_SECRET: must be set');
  });

  it('names a bad variable and exits', async () => {
    const app = spawnApp({ ...credentials, DATABASE_URL: 'mysql://nope' });
    expect(await app.exited).toBe(78);
    expect(app.output.join('\n')).toContain(
      'DATABASE_URL: expected a postgres:// or postgresql:// URL',
    );
  });

  it('starts the GitHub App setup flow when it has no credentials', async () => {
    // DATA_DIR of its own: setup mode creates it, and reads credentials a developer may keep there.
    const dataDir = join(mkdtempSync(join(tmpdir(), 'ac-setup-data-')), 'data');
    cleanups.push(() => rmSync(dirname(dataDir), { recursive: true, force: true }));
    const app = spawnApp({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', DATA_DIR: dataDir });
    cleanups.push(() => app.kill());
    await app.waitForLine(/starting the GitHub App setup flow/);
    await app.waitForLine(/open the setup page to register the GitHub App/);
    expect(existsSync(dataDir)).toBe(true);
  });

  it('refuses setup mode when DATA_DIR cannot hold the credentials, before any code is spent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ac-not-a-dir-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'file');
    writeFileSync(file, '');
    const app = spawnApp({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: join(file, 'data') });
    expect(await app.exited).toBe(78);
    expect(app.output.join('\n')).toContain(
      `DATA_DIR: cannot write ${join(file, 'data')} (ENOTDIR): the setup flow saves the App's credentials there`,
    );
  });

  it("reads the credentials under DATA_DIR, after the working directory's .env, which wins", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'ac-cwd-'));
    cleanups.push(() => rmSync(cwd, { recursive: true, force: true }));
    // The operator's .env names DATA_DIR and overrides one of the setup flow's values.
    writeFileSync(join(cwd, '.env'), `DATA_DIR=state\nWEBHOOK_SECRET=${TEST_WEBHOOK_SECRET}\n`);
    mkdirSync(join(cwd, 'state'));
    updateEnvFile(join(cwd, 'state', '.env'), {
      APP_ID: '4242',
      PRIVATE_KEY: TEST_PRIVATE_KEY,
      WEBHOOK_SECRET: 'the-setup-flows-secret',
    });
    const app = spawnApp({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'debug' }, { cwd });
    cleanups.push(() => app.kill());
    const url = await listeningUrl(app);
    expect(await deliver(url, 'signed-with-the-operators-secret')).toBe(202);
    expect(existsSync(join(cwd, 'state', 'pglite'))).toBe(true);
  }, 60_000);

  it('runs on PGlite under DATA_DIR and keeps its data across a kill and restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ac-data-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = { ...credentials, DATA_DIR: dataDir };

    const first = spawnApp(env);
    cleanups.push(() => first.kill());
    const url = await listeningUrl(first);
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok', database: 'ok' });
    expect(first.output.join('\n')).toContain('"database":"pglite"');
    expect(await deliver(url, 'delivery-before-restart')).toBe(202);
    await first.waitForLine(/"delivery":"delivery-before-restart".*delivery handled/);
    await first.kill('SIGKILL');

    const second = spawnApp(env);
    cleanups.push(() => second.kill());
    const url2 = await listeningUrl(second);
    // The ledger survived: the same delivery is recognised as already handled.
    expect(await deliver(url2, 'delivery-before-restart')).toBe(200);
    expect(await deliver(url2, 'delivery-after-restart')).toBe(202);
  }, 60_000);

  it('runs on Postgres with DATABASE_URL', async () => {
    const database = await createTestDatabase(inject('templateDatabase'));
    cleanups.push(() => database.drop());
    const app = spawnApp({ ...credentials, DATABASE_URL: database.url });
    cleanups.push(() => app.kill());
    const url = await listeningUrl(app);
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(app.output.join('\n')).toContain('"database":"postgres"');
    expect(await deliver(url, 'pg-delivery')).toBe(202);
    await app.waitForLine(/"delivery":"pg-delivery".*delivery handled/);
  }, 60_000);
});
