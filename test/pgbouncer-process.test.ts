import { sign } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TEST_PRIVATE_KEY, TEST_WEBHOOK_SECRET } from './helpers/app.js';
import { examplePayload } from './helpers/payloads.js';
import { startPgBouncer, type PgBouncer } from './helpers/pgbouncer.js';
import { createTestDatabase, type TestDatabase } from './helpers/postgres.js';
import { spawnApp } from './helpers/process.js';

const credentials = {
  APP_ID: '4242',
  PRIVATE_KEY: TEST_PRIVATE_KEY,
  WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'debug',
};

/** The app process (src/main.ts) with DATABASE_URL on PgBouncer in transaction mode. */
describe('the app process through PgBouncer', () => {
  let bouncer: PgBouncer;
  let database: TestDatabase;
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    bouncer = await startPgBouncer();
    database = await createTestDatabase(inject('templateDatabase'));
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await database?.drop();
    await bouncer?.stop();
  });

  it('does not start on the pooler alone, and says to set DIRECT_DATABASE_URL', async () => {
    const app = spawnApp({ ...credentials, DATABASE_URL: bouncer.url(database.name) });
    cleanups.push(() => app.kill());
    expect(await app.exited).toBe(1);
    expect(app.output.join('\n')).toContain(
      'DATABASE_URL refuses session settings at connect (unsupported startup parameter: options): it goes through a pooler such as PgBouncer in transaction mode; set DIRECT_DATABASE_URL',
    );
  }, 60_000);

  it('starts with DIRECT_DATABASE_URL, says it is pooled, and handles a delivery', async () => {
    const app = spawnApp({
      ...credentials,
      DATABASE_URL: bouncer.url(database.name),
      DIRECT_DATABASE_URL: database.url,
    });
    cleanups.push(() => app.kill());
    const ready = JSON.parse(await app.waitForLine(/database ready/)) as Record<string, unknown>;
    expect(ready).toMatchObject({ connection: 'pooled', directDatabaseUrl: true });
    const { url } = JSON.parse(await app.waitForLine(/agent-coordinator listening/)) as {
      url: string;
    };
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const body = JSON.stringify(examplePayload('installation', 'created'));
    const response = await fetch(`${url}/api/github/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'installation',
        'x-github-delivery': 'through-pgbouncer',
        'x-hub-signature-256': await sign(TEST_WEBHOOK_SECRET, body),
      },
      body,
    });
    expect(response.status).toBe(202);
    await app.waitForLine(/"delivery":"through-pgbouncer".*delivery handled/);
  }, 60_000);
});
