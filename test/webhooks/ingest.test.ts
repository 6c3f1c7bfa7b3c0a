import { randomUUID } from 'node:crypto';
import { sign } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import {
  startTestCoordinator,
  TEST_APP_ID,
  TEST_WEBHOOK_SECRET,
  type TestCoordinator,
} from '../helpers/app.js';
import { examplePayload } from '../helpers/payloads.js';

describe('webhook ingest (real server, real Postgres)', () => {
  let database: TestDatabase;
  let app: TestCoordinator;
  const handled: string[] = [];
  let failNext = 0;

  beforeAll(async () => {
    database = await createTestDatabase(inject('templateDatabase'));
    app = await startTestCoordinator({ databaseUrl: database.url });
    app.probot.on('issues.opened', async (context) => {
      if (failNext > 0) {
        failNext--;
        throw new Error('handler failed on purpose');
      }
      handled.push(context.id);
    });
  });
  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });

  const opened = () => examplePayload('issues', 'opened');
  const post = (headers: Record<string, string>, body: string) =>
    fetch(`${app.url}/api/github/webhooks`, { method: 'POST', headers, body });
  const stored = () => app.store.deliveries.countByStatus();

  it('stores, acknowledges with 202, then handles a signed delivery once', async () => {
    const id = randomUUID();
    const response = await app.send('issues', opened(), { id });
    expect(response.status).toBe(202);
    await app.whenIdle();
    expect(handled).toEqual([id]);
    expect((await app.store.deliveries.get(id))?.status).toBe('done');

    const again = await app.send('issues', opened(), { id });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ ok: true, duplicate: true });
    await app.whenIdle();
    expect(handled).toEqual([id]);
  });

  it('stores a delivery no handler acts on as handled: acknowledged, never claimed', async () => {
    // The manifest subscribes to workflow_job; nothing handles it (src/webhooks/handled-events.ts).
    const id = randomUUID();
    const response = await app.send('workflow_job', examplePayload('workflow_job', 'queued'), {
      id,
    });
    expect(response.status).toBe(202);
    expect(await app.store.deliveries.get(id)).toMatchObject({ status: 'done', attempts: 0 });
    await app.whenIdle();
    expect(await app.store.deliveries.get(id)).toMatchObject({ status: 'done', attempts: 0 });
    // Its id is in the ledger all the same: GitHub's redelivery is a duplicate.
    expect(
      (await app.send('workflow_job', examplePayload('workflow_job', 'queued'), { id })).status,
    ).toBe(200);
    // A handled event of the same kind of traffic still goes to its handler.
    const acted = randomUUID();
    expect((await app.send('issues', opened(), { id: acted })).status).toBe(202);
    await app.whenIdle();
    expect(handled).toContain(acted);
    expect((await app.store.deliveries.get(acted))?.attempts).toBe(1);
  });

  it("stores this App's own completed check run as handled, and another App's as work", async () => {
    const checkRun = (appId: number) => {
      const payload = examplePayload<{ check_run: Record<string, unknown> }>(
        'check_run',
        'completed',
      );
      return { ...payload, check_run: { ...payload.check_run, app: { id: appId, slug: 'x' } } };
    };
    const own = randomUUID();
    expect((await app.send('check_run', checkRun(TEST_APP_ID), { id: own })).status).toBe(202);
    const ci = randomUUID();
    expect((await app.send('check_run', checkRun(TEST_APP_ID + 1), { id: ci })).status).toBe(202);
    await app.whenIdle();
    expect(await app.store.deliveries.get(own)).toMatchObject({ status: 'done', attempts: 0 });
    expect(await app.store.deliveries.get(ci)).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('rejects missing, wrong and foreign signatures with nothing recorded', async () => {
    const before = await stored();
    const body = JSON.stringify(opened());
    const base = { 'content-type': 'application/json', 'x-github-event': 'issues' };
    const cases = [
      { headers: { ...base, 'x-github-delivery': randomUUID() }, status: 401 },
      {
        headers: {
          ...base,
          'x-github-delivery': randomUUID(),
          'x-hub-signature-256': await sign('other-secret', body),
        },
        status: 401,
      },
      {
        headers: {
          ...base,
          'x-github-delivery': randomUUID(),
          'x-hub-signature-256': await sign(TEST_WEBHOOK_SECRET, body + ' '),
        },
        status: 401,
      },
      {
        headers: { ...base, 'x-github-delivery': randomUUID(), 'x-hub-signature-256': 'sha256=zz' },
        status: 401,
      },
      { headers: { 'x-hub-signature-256': await sign(TEST_WEBHOOK_SECRET, body) }, status: 400 },
    ];
    for (const c of cases)
      expect((await post(c.headers as Record<string, string>, body)).status).toBe(c.status);
    expect(await stored()).toEqual(before);
  });

  it('rejects malformed and oversized payloads cleanly', async () => {
    const before = await stored();
    for (const body of ['{not json', '[1,2]', 'null']) {
      const response = await post(
        {
          'content-type': 'application/json',
          'x-github-event': 'issues',
          'x-github-delivery': randomUUID(),
          'x-hub-signature-256': await sign(TEST_WEBHOOK_SECRET, body),
        },
        body,
      );
      expect(response.status).toBe(400);
    }
    const huge = JSON.stringify({ action: 'opened', blob: 'x'.repeat(26 * 1024 * 1024) });
    const response = await post(
      {
        'content-type': 'application/json',
        'x-github-event': 'issues',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': await sign(TEST_WEBHOOK_SECRET, huge),
      },
      huge,
    );
    expect(response.status).toBe(413);
    expect(await stored()).toEqual(before);
  });

  it('handles a delivery again when GitHub redelivers one whose handling failed', async () => {
    const id = randomUUID();
    failNext = 5; // every in-process retry fails too
    expect((await app.send('issues', opened(), { id })).status).toBe(202);
    await app.whenIdle();
    const row = await app.store.deliveries.get(id);
    expect(row?.lastError).toContain('handler failed on purpose');
    // Let the retries come due now instead of waiting out the backoff.
    while ((await app.store.deliveries.get(id))?.status === 'pending') {
      await app.store.deliveries.fail(id, 'still failing', new Date(0));
      app.processor.kick();
      await app.processor.whenIdle();
    }
    expect((await app.store.deliveries.get(id))?.status).toBe('failed');
    expect(handled).not.toContain(id);

    expect((await app.send('issues', opened(), { id })).status).toBe(202);
    await app.whenIdle();
    expect(handled).toContain(id);
    expect((await app.store.deliveries.get(id))?.status).toBe('done');
  });

  it('answers /healthz and /metrics', async () => {
    const health = await fetch(`${app.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', database: 'ok' });
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toMatch(
      /agent_coordinator_webhooks_received_total\{event="issues",outcome="accepted"\} \d+/,
    );
    expect(metrics).toMatch(
      /agent_coordinator_webhooks_received_total\{event="issues",outcome="rejected"\} \d+/,
    );
    expect(metrics).toMatch(
      /agent_coordinator_webhooks_handled_total\{event="issues",outcome="ok"\} \d+/,
    );
    expect(metrics).toContain('agent_coordinator_webhook_ingest_seconds_bucket');
    expect(metrics).toContain('agent_coordinator_webhook_handling_seconds_bucket');
  });

  it('answers /healthz 503 once the database is gone', async () => {
    await database.drop();
    const health = await fetch(`${app.url}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ status: 'degraded', database: 'unreachable' });
  });
});
