import { once } from 'node:events';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startApiKeyProxy, type ApiKeyProxy } from '../../src/worker/api-key-proxy.js';

const REAL_KEY = 'sk-ant-api03-the-real-key';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A stand-in for the Messages API: records each request and streams two events back. */
async function startUpstream(): Promise<{ server: Server; url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_1' });
      res.write('event: message_start\ndata: {}\n\n');
      res.end('event: message_stop\ndata: {}\n\n');
    });
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe("the worker's API key proxy", () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let proxy: ApiKeyProxy | undefined;
  beforeEach(async () => {
    upstream = await startUpstream();
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    upstream.server.close();
  });

  const start = async (baseUrl = `${upstream.url}/anthropic/`) => {
    proxy = await startApiKeyProxy({ ANTHROPIC_API_KEY: REAL_KEY, ANTHROPIC_BASE_URL: baseUrl });
    return proxy!;
  };

  it('gives the agent a placeholder and a loopback address, never the key', async () => {
    const { env } = await start();
    expect(env.ANTHROPIC_API_KEY).toMatch(/^sk-ant-agent-coordinator-[0-9a-f]{48}$/);
    expect(env.ANTHROPIC_API_KEY).not.toContain(REAL_KEY);
    expect(env.ANTHROPIC_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('forwards a request with the placeholder to the upstream with the real key, and streams the answer', async () => {
    const { env } = await start();
    const answer = await fetch(`${env.ANTHROPIC_BASE_URL}/v1/messages?beta=true`, {
      method: 'POST',
      headers: {
        'x-api-key': env.ANTHROPIC_API_KEY,
        'anthropic-version': '2023-06-01',
        'content-type': 'application/json',
        'proxy-authorization': 'Basic bm9wZQ==',
      },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 1, stream: true }),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/event-stream');
    expect(answer.headers.get('request-id')).toBe('req_1');
    expect(await answer.text()).toBe(
      'event: message_start\ndata: {}\n\nevent: message_stop\ndata: {}\n\n',
    );
    expect(upstream.seen).toHaveLength(1);
    const [seen] = upstream.seen;
    expect(seen).toMatchObject({ method: 'POST', url: '/anthropic/v1/messages?beta=true' });
    expect(seen!.headers['x-api-key']).toBe(REAL_KEY);
    expect(seen!.headers['anthropic-version']).toBe('2023-06-01');
    expect(seen!.headers['proxy-authorization']).toBeUndefined();
    expect(JSON.parse(seen!.body)).toMatchObject({ model: 'claude-sonnet-4-5' });
  });

  it.each([
    ['no key', {}],
    ['another key', { 'x-api-key': 'sk-ant-guess' }],
    ['the real key itself', { 'x-api-key': REAL_KEY }],
  ])('refuses a request with %s, and the upstream hears nothing', async (_what, headers) => {
    const { env } = await start();
    const answer = await fetch(`${env.ANTHROPIC_BASE_URL}/v1/messages`, {
      method: 'POST',
      headers,
      body: '{}',
    });
    expect(answer.status).toBe(401);
    expect(upstream.seen).toEqual([]);
  });

  // The request line's target is the agent's to write. Joined to the upstream's address as a
  // relative URL, `//host/…` (or `/\\host/…`, which URLs read the same way) named another host,
  // and the proxy sent it the real key: with the default upstream (`https://api.anthropic.com`,
  // path `/`), any agent could have the key delivered to a server of its choosing.
  it.each([
    ['//', (host: string) => `//${host}/steal`],
    ['/\\', (host: string) => `/\\${host}/steal`],
  ])('sends a target starting %s to the upstream, never to the host it names', async (_, path) => {
    const thief = await startUpstream();
    const host = new URL(thief.url).host;
    try {
      const { env } = await start(upstream.url);
      const { port } = new URL(env.ANTHROPIC_BASE_URL);
      const status = await new Promise<number>((resolve, reject) => {
        request(
          {
            host: '127.0.0.1',
            port,
            path: path(host),
            method: 'POST',
            headers: { 'x-api-key': env.ANTHROPIC_API_KEY },
          },
          (answer) => {
            answer.resume();
            resolve(answer.statusCode!);
          },
        )
          .on('error', reject)
          .end('{}');
      });
      expect(thief.seen).toEqual([]);
      expect(status).toBe(200);
      expect(upstream.seen).toHaveLength(1);
      expect(upstream.seen[0]!.url).toBe(`//${host}/steal`);
    } finally {
      thief.server.close();
    }
  });

  it.each(['/../v1/messages', '/%2e%2e/v1/messages', '/v1/../../admin'])(
    'refuses %s, which would climb out of the base path, and the upstream hears nothing',
    async (path) => {
      const { env } = await start();
      const { port } = new URL(env.ANTHROPIC_BASE_URL);
      const status = await new Promise<number>((resolve, reject) => {
        request(
          { host: '127.0.0.1', port, path, headers: { 'x-api-key': env.ANTHROPIC_API_KEY } },
          (answer) => {
            answer.resume();
            resolve(answer.statusCode!);
          },
        )
          .on('error', reject)
          .end();
      });
      expect(status).toBe(400);
      expect(upstream.seen).toEqual([]);
    },
  );

  it('answers 502 when the upstream cannot be reached', async () => {
    upstream.server.close();
    await once(upstream.server, 'close');
    const { env } = await start(upstream.url);
    const answer = await fetch(`${env.ANTHROPIC_BASE_URL}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': env.ANTHROPIC_API_KEY },
      body: '{}',
    });
    expect(answer.status).toBe(502);
    expect(await answer.text()).toContain('the API did not answer');
  });

  it('starts nothing when the job holds no API key', async () => {
    expect(await startApiKeyProxy({ ANTHROPIC_BASE_URL: upstream.url })).toBeUndefined();
  });
});
