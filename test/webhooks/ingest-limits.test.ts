import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestCoordinator, type TestCoordinator } from '../helpers/app.js';

/**
 * What anyone on the internet can send the webhook endpoint before a signature is checked must
 * cost the coordinator a bounded amount: no metric series of its choosing, a bounded number of
 * body bytes held, and no connection held past GitHub's own 10 seconds (src/webhooks/ingest.ts,
 * src/http/server.ts).
 */
describe('the webhook endpoint before a signature is checked', () => {
  let app: TestCoordinator | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const url = () => new URL(app!.url);
  const BOGUS_SIGNATURE = `sha256=${'0'.repeat(64)}`;

  /** A raw connection that has sent a request's headers (and `sent` of its body). */
  async function openRequest(length: number, sent = '', extra: string[] = []): Promise<Socket> {
    const socket = connect(Number(url().port), url().hostname);
    await once(socket, 'connect');
    socket.write(
      [
        'POST /api/github/webhooks HTTP/1.1',
        `Host: ${url().host}`,
        'Content-Type: application/json',
        'X-GitHub-Event: issues',
        `X-GitHub-Delivery: ${randomUUID()}`,
        `X-Hub-Signature-256: ${BOGUS_SIGNATURE}`,
        `Content-Length: ${length}`,
        ...extra,
        '',
        sent,
      ].join('\r\n'),
    );
    return socket;
  }

  /** What the server answered on `socket` until `done` says it is enough. */
  async function answer(socket: Socket, done: (text: string) => boolean): Promise<string> {
    let text = '';
    socket.setEncoding('utf8');
    while (!done(text)) {
      const [chunk] = (await once(socket, 'data')) as [string];
      text += chunk;
    }
    return text;
  }

  const post = (event: string, body: string) =>
    fetch(`${app!.url}/api/github/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': event,
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': BOGUS_SIGNATURE,
      },
      body,
    });

  it('names no metric series after an unverified request’s event header', async () => {
    app = await startTestCoordinator();
    for (let i = 0; i < 20; i++)
      expect((await post(`made_up_${String.fromCharCode(97 + i)}`, '{}')).status).toBe(401);
    // A header the ingest refuses as malformed, and one with no signature at all.
    await fetch(`${app.url}/api/github/webhooks`, {
      method: 'POST',
      headers: { 'x-github-event': 'x'.repeat(200), 'x-github-delivery': randomUUID() },
      body: '{}',
    });
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).not.toMatch(/made_up_|xxxxxxxx/);
    expect(metrics).toMatch(
      /agent_coordinator_webhooks_received_total\{event="unverified",outcome="rejected"\} 21/,
    );
    // A delivery GitHub signed still counts under its event.
    expect((await app.send('ping', { zen: 'Keep it logically awesome.' })).status).toBe(202);
    expect(await (await fetch(`${app.url}/metrics`)).text()).toMatch(
      /agent_coordinator_webhooks_received_total\{event="ping",outcome="accepted"\} 1/,
    );
  });

  it('holds a bounded number of unverified bytes at once: a body past it gets 503', async () => {
    app = await startTestCoordinator({ limits: { maxUnverifiedBytes: 1000 } });
    const body = (n: number) => JSON.stringify({ pad: 'x'.repeat(n - 10) });
    const refused = await post('issues', body(1200));
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({ error: 'too many deliveries in flight; try again' });
    // Its bytes were given back.
    expect((await post('issues', body(900))).status).toBe(401);
  });

  it('counts the bytes that arrived, not a declared length: a stalled sender holds none', async () => {
    app = await startTestCoordinator({ limits: { maxUnverifiedBytes: 1000 } });
    const body = (n: number) => JSON.stringify({ pad: 'x'.repeat(n - 10) });
    const first = body(900);
    // The 100 Continue comes once the request is in the ingest, its declared length read.
    const stalled = await openRequest(first.length, '', ['Expect: 100-continue']);
    await answer(stalled, (text) => text.includes('100 Continue'));

    expect((await post('issues', body(900))).status).toBe(401);

    stalled.write(first);
    expect(await answer(stalled, (text) => /HTTP\/1\.1 4\d\d/.test(text))).toMatch(
      /HTTP\/1\.1 401/,
    );
    stalled.destroy();
  });

  it('cuts off a client that does not finish its request in time', async () => {
    app = await startTestCoordinator({ limits: { requestTimeoutMs: 200 } });
    const socket = await openRequest(100_000, '{"action":"opened",');
    let text = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    // Node answers 408 and closes the connection: no sleep, the close is the event.
    await once(socket, 'close');
    expect(text).toMatch(/^HTTP\/1\.1 408/);
  });

  it('cuts off a connection that sends nothing', async () => {
    app = await startTestCoordinator({ limits: { requestTimeoutMs: 200 } });
    const socket = connect(Number(url().port), url().hostname);
    await once(socket, 'connect');
    // No request, so Node's request timeouts never start: the close is the event.
    await once(socket, 'close');
    expect(socket.bytesRead).toBe(0);
  });
});
