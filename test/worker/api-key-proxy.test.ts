import { once } from 'node:events';
import { createServer, request } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRecordingUpstream } from './helpers/recording-upstream.js';
import {
  heldCredentials,
  MAX_AGENT_CONNECTIONS,
  startApiKeyProxy,
  type ApiKeyProxy,
} from '../../src/worker/api-key-proxy.js';

const REAL_KEY = 'sk-ant-api03-the-real-key';
const REAL_OAUTH_TOKEN = 'sk-ant-oat01-the-real-subscription-token';
const REAL_AUTH_TOKEN = 'the-real-gateway-token';

const startUpstream = () =>
  startRecordingUpstream((res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_1' });
    res.write('event: message_start\ndata: {}\n\n');
    res.end('event: message_stop\ndata: {}\n\n');
  });

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

  it(`closes the agent's connections to it beyond ${MAX_AGENT_CONNECTIONS}, idle or not`, async () => {
    const { env } = await start();
    const { port } = new URL(env.ANTHROPIC_BASE_URL!);
    const sockets: Socket[] = [];
    const open = async () => {
      const socket = connect(Number(port), '127.0.0.1');
      sockets.push(socket);
      await once(socket, 'connect');
      return socket;
    };
    try {
      for (let i = 0; i < MAX_AGENT_CONNECTIONS; i++) await open();
      const extra = await open();
      await once(extra, 'close');
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });

  it('gives the agent a placeholder and a loopback address, never the key', async () => {
    const { env } = await start();
    expect(env.ANTHROPIC_API_KEY).toMatch(/^sk-ant-agent-coordinator-[0-9a-f]{48}$/);
    expect(env.ANTHROPIC_API_KEY).not.toContain(REAL_KEY);
    expect(env.ANTHROPIC_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('gives the agent a placeholder of each bearer token, never the token', async () => {
    proxy = await startApiKeyProxy({
      CLAUDE_CODE_OAUTH_TOKEN: REAL_OAUTH_TOKEN,
      ANTHROPIC_AUTH_TOKEN: REAL_AUTH_TOKEN,
      ANTHROPIC_BASE_URL: upstream.url,
    });
    const { env, held } = proxy!;
    expect(held).toEqual(['ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN']);
    expect(Object.keys(env).sort()).toEqual([...held, 'ANTHROPIC_BASE_URL'].sort());
    // Claude Code reads a token starting `sk-ant-oat` as a subscription's, as the real one is.
    expect(env.CLAUDE_CODE_OAUTH_TOKEN).toMatch(/^sk-ant-oat01-agent-coordinator-[0-9a-f]{48}$/);
    expect(env.ANTHROPIC_AUTH_TOKEN).toMatch(/^agent-coordinator-[0-9a-f]{48}$/);
    expect(JSON.stringify(env)).not.toMatch(/the-real/);
  });

  // Claude Code sends both tokens to ANTHROPIC_BASE_URL as `Authorization: Bearer` (the pinned
  // CLI against a stand-in API: test/worker/agent-cli.test.ts), so an agent given a job's token
  // could send it anywhere.
  it.each([
    ['CLAUDE_CODE_OAUTH_TOKEN', REAL_OAUTH_TOKEN],
    ['ANTHROPIC_AUTH_TOKEN', REAL_AUTH_TOKEN],
  ] as const)(
    'forwards a request with the %s placeholder as its bearer with the real token, no other credential',
    async (name, real) => {
      proxy = await startApiKeyProxy({ [name]: real, ANTHROPIC_BASE_URL: upstream.url });
      const { env } = proxy!;
      const answer = await fetch(`${env.ANTHROPIC_BASE_URL}/v1/messages`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${env[name]!}`,
          'anthropic-beta': 'oauth-2025-04-20',
          // A key of the agent's own is not forwarded with the job's token.
          'x-api-key': 'sk-ant-api03-of-the-agent',
        },
        body: '{}',
      });
      expect(answer.status).toBe(200);
      await answer.text();
      expect(upstream.seen).toHaveLength(1);
      const { headers } = upstream.seen[0]!;
      expect(headers.authorization).toBe(`Bearer ${real}`);
      expect(headers['anthropic-beta']).toBe('oauth-2025-04-20');
      expect(headers['x-api-key']).toBeUndefined();
      expect(JSON.stringify(headers)).not.toContain('agent-coordinator-');
    },
  );

  it('replaces each placeholder with its own credential when the job holds several', async () => {
    proxy = await startApiKeyProxy({
      ANTHROPIC_API_KEY: REAL_KEY,
      ANTHROPIC_AUTH_TOKEN: REAL_AUTH_TOKEN,
      CLAUDE_CODE_OAUTH_TOKEN: REAL_OAUTH_TOKEN,
      ANTHROPIC_BASE_URL: upstream.url,
    });
    const { env } = proxy!;
    const send = (headers: Record<string, string>) =>
      fetch(`${env.ANTHROPIC_BASE_URL}/v1/messages`, { method: 'POST', headers, body: '{}' }).then(
        (answer) => answer.text(),
      );
    // As Claude Code sends them: a gateway's token along with the key, or either token alone.
    await send({
      'x-api-key': env.ANTHROPIC_API_KEY!,
      authorization: `Bearer ${env.ANTHROPIC_AUTH_TOKEN!}`,
    });
    await send({ authorization: `Bearer ${env.ANTHROPIC_AUTH_TOKEN!}` });
    await send({ authorization: `bearer ${env.CLAUDE_CODE_OAUTH_TOKEN!}` });
    expect(
      upstream.seen.map(({ headers }) => [headers['x-api-key'], headers.authorization]),
    ).toEqual([
      [REAL_KEY, `Bearer ${REAL_AUTH_TOKEN}`],
      [undefined, `Bearer ${REAL_AUTH_TOKEN}`],
      [undefined, `Bearer ${REAL_OAUTH_TOKEN}`],
    ]);
  });

  it.each([
    ['no credential', () => ({})],
    ['another token', () => ({ authorization: 'Bearer sk-ant-oat01-guess' })],
    ['the real token itself', () => ({ authorization: `Bearer ${REAL_OAUTH_TOKEN}` })],
    ['the placeholder without its scheme', (p: string) => ({ authorization: p })],
    ['the placeholder in another scheme', (p: string) => ({ authorization: `Basic ${p}` })],
    ['the placeholder as an API key', (p: string) => ({ 'x-api-key': p })],
  ])(
    'refuses a request with %s for the OAuth token, and the upstream hears nothing',
    async (_what, headers) => {
      proxy = await startApiKeyProxy({
        CLAUDE_CODE_OAUTH_TOKEN: REAL_OAUTH_TOKEN,
        ANTHROPIC_BASE_URL: upstream.url,
      });
      const { env } = proxy!;
      const answer = await fetch(`${env.ANTHROPIC_BASE_URL}/v1/messages`, {
        method: 'POST',
        headers: headers(env.CLAUDE_CODE_OAUTH_TOKEN!),
        body: '{}',
      });
      expect(answer.status).toBe(401);
      expect(upstream.seen).toEqual([]);
    },
  );

  it('refuses the API key placeholder as a bearer: each placeholder goes in its own header', async () => {
    const { env } = await start();
    const answer = await fetch(`${env.ANTHROPIC_BASE_URL}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${env.ANTHROPIC_API_KEY!}` },
      body: '{}',
    });
    expect(answer.status).toBe(401);
    expect(upstream.seen).toEqual([]);
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

  it.each([
    '/../v1/messages',
    '/%2e%2e/v1/messages',
    '/v1/../../admin',
    // A gateway that decodes an escaped separator before it routes would climb out too.
    '/..%2F..%2Fadmin',
    '/v1/..%2f..%2fadmin',
    '/..%5C..%5Cadmin',
    '/..%252F..%252Fadmin',
    '/%252e%252e/admin',
    '/v1/%25252E%25252E/%25252e%25252e/admin',
  ])(
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

  // A message batch runs, and bills, after the job: no answer the proxy reads shows its usage,
  // so an agent could spend any sum beyond budget.maxCostUsdPerRun (docs/worker.md).
  it.each([
    ['POST', '/v1/messages/batches'],
    ['POST', '/v1/messages/batches?beta=true'],
    ['POST', '/V1/Messages/%62atches'],
    ['POST', '//v1//messages/batches/'],
    ['POST', '/v1/messages/%2562atches'],
    ['POST', '/v1/messages/batches;v=1'],
    ['GET', '/v1/messages/batches/msgbatch_1/results'],
  ])('refuses %s %s, a message batch, and the upstream hears nothing', async (method, path) => {
    const { env } = await start();
    const { port } = new URL(env.ANTHROPIC_BASE_URL);
    const status = await new Promise<number>((resolve, reject) => {
      request(
        { host: '127.0.0.1', port, path, method, headers: { 'x-api-key': env.ANTHROPIC_API_KEY } },
        (answer) => {
          answer.resume();
          resolve(answer.statusCode!);
        },
      )
        .on('error', reject)
        .end(method === 'POST' ? '{"requests":[]}' : undefined);
    });
    expect(status).toBe(403);
    expect(upstream.seen).toEqual([]);
  });

  it.each(['/v1/messages', '/v1/messages/count_tokens', '/v1/messages/batchesque'])(
    'forwards %s, which is no message batch',
    async (path) => {
      const { env } = await start();
      const answer = await fetch(`${env.ANTHROPIC_BASE_URL}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': env.ANTHROPIC_API_KEY },
        body: '{}',
      });
      expect(answer.status).toBe(200);
      expect(upstream.seen.map((r) => r.url)).toEqual([`/anthropic${path}`]);
    },
  );

  // A TRACE's final recipient answers with the request it received (RFC 9110 §9.3.8), and
  // `Max-Forwards: 0` makes the first server on the way that recipient (a gateway, a CDN's edge):
  // the proxy's credentials came back to the agent in the answer's body. Methods an API is not
  // called with (WebDAV's, among those Node parses) are not forwarded either.
  it.each(['TRACE', 'PROPFIND', 'PURGE'])(
    'sends no %s, whose answer might echo the credentials it carried',
    async (method) => {
      let heard = 0;
      const echo = createServer((req, res) => {
        heard++;
        const fields = req.rawHeaders.map((v, i) => (i % 2 ? `${v}\r\n` : `${v}: `)).join('');
        res.writeHead(200, { 'content-type': 'message/http' });
        res.end(`${req.method} ${req.url} HTTP/1.1\r\n${fields}\r\n`);
      }).listen(0, '127.0.0.1');
      await once(echo, 'listening');
      try {
        proxy = await startApiKeyProxy({
          ANTHROPIC_API_KEY: REAL_KEY,
          ANTHROPIC_CUSTOM_HEADERS: 'cf-aig-authorization: Bearer the-real-gateway-secret',
          ANTHROPIC_BASE_URL: `http://127.0.0.1:${(echo.address() as AddressInfo).port}`,
        });
        const { env } = proxy!;
        const { port } = new URL(env.ANTHROPIC_BASE_URL);
        const headers = { 'x-api-key': env.ANTHROPIC_API_KEY!, 'max-forwards': '0' };
        const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
          request({ host: '127.0.0.1', port, path: '/v1/messages', method, headers }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode!, text }));
          })
            .on('error', reject)
            .end();
        });
        expect(answer.text).not.toContain(REAL_KEY);
        expect(answer.text).not.toContain('the-real-gateway-secret');
        expect(answer.status).toBe(405);
        expect(heard).toBe(0);
      } finally {
        echo.close();
      }
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

  // Claude Code's fetch strips a header value's surrounding whitespace, so such a secret worked
  // before the proxy; Node's http.request threw on it, uncaught, and ended the worker mid-run.
  it('sends a credential pasted with its newline as Claude Code does, without the whitespace', async () => {
    proxy = await startApiKeyProxy({
      ANTHROPIC_API_KEY: `${REAL_KEY}\n`,
      ANTHROPIC_AUTH_TOKEN: ` ${REAL_AUTH_TOKEN}\r\n`,
      ANTHROPIC_BASE_URL: upstream.url,
    });
    const { env } = proxy!;
    const answer = await fetch(`${env.ANTHROPIC_BASE_URL}/v1/messages`, {
      method: 'POST',
      headers: {
        'x-api-key': env.ANTHROPIC_API_KEY!,
        authorization: `Bearer ${env.ANTHROPIC_AUTH_TOKEN!}`,
      },
      body: '{}',
    });
    expect(answer.status).toBe(200);
    await answer.text();
    expect(
      upstream.seen.map(({ headers }) => [headers['x-api-key'], headers.authorization]),
    ).toEqual([[REAL_KEY, `Bearer ${REAL_AUTH_TOKEN}`]]);
  });

  it('answers 502 for a credential no header can hold, without it, and goes on answering', async () => {
    const broken = 'sk-ant-api03-half\nthe-other-half';
    proxy = await startApiKeyProxy({ ANTHROPIC_API_KEY: broken, ANTHROPIC_BASE_URL: upstream.url });
    const { env } = proxy!;
    for (let i = 0; i < 2; i++) {
      const answer = await fetch(`${env.ANTHROPIC_BASE_URL}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': env.ANTHROPIC_API_KEY! },
        body: '{}',
      });
      expect(answer.status).toBe(502);
      expect(await answer.text()).not.toMatch(/half/);
    }
    expect(upstream.seen).toEqual([]);
  });

  // An LLM gateway's credential rides in ANTHROPIC_CUSTOM_HEADERS (Cloudflare AI Gateway's
  // `cf-aig-authorization`), which reached the agent as it was before the proxy held it.
  describe('with custom headers', () => {
    const GATEWAY = 'Bearer the-real-gateway-secret';
    const customHeaders = `cf-aig-authorization: ${GATEWAY}\r\nX-Team:  platform \n\nx-team: infra`;
    const send = (env: ApiKeyProxy['env'], headers: Record<string, string>) =>
      fetch(`${env.ANTHROPIC_BASE_URL}/v1/messages`, { method: 'POST', headers, body: '{}' });
    /** The headers as Claude Code sends them from the agent's ANTHROPIC_CUSTOM_HEADERS. */
    const asClaudeCode = (env: ApiKeyProxy['env']) =>
      Object.fromEntries(
        env
          .ANTHROPIC_CUSTOM_HEADERS!.split('\n')
          .map((line) => line.split(': ') as [string, string]),
      );

    it('gives the agent each name with a placeholder, never a value', async () => {
      proxy = await startApiKeyProxy({
        ANTHROPIC_API_KEY: REAL_KEY,
        ANTHROPIC_CUSTOM_HEADERS: customHeaders,
        ANTHROPIC_BASE_URL: upstream.url,
      });
      const { env, held, notes } = proxy!;
      expect(held).toEqual(['ANTHROPIC_API_KEY', 'ANTHROPIC_CUSTOM_HEADERS']);
      expect(env.ANTHROPIC_CUSTOM_HEADERS).toMatch(
        /^cf-aig-authorization: (agent-coordinator-[0-9a-f]{48})\nx-team: \1$/,
      );
      expect(JSON.stringify(env)).not.toMatch(/the-real|platform|infra/);
      expect(notes).toEqual([]);
    });

    it('sends the real headers, trimmed, the last of a name winning, in place of the placeholders', async () => {
      proxy = await startApiKeyProxy({
        ANTHROPIC_API_KEY: REAL_KEY,
        ANTHROPIC_CUSTOM_HEADERS: customHeaders,
        ANTHROPIC_BASE_URL: upstream.url,
      });
      const { env } = proxy!;
      const answer = await send(env, {
        'x-api-key': env.ANTHROPIC_API_KEY!,
        ...asClaudeCode(env),
        // Claude Code's own betas go over a custom `anthropic-beta`; the proxy keeps them.
        'anthropic-beta': 'claude-code-20250219',
      });
      expect(answer.status).toBe(200);
      await answer.text();
      expect(upstream.seen).toHaveLength(1);
      const { headers } = upstream.seen[0]!;
      expect(headers).toMatchObject({
        'x-api-key': REAL_KEY,
        'cf-aig-authorization': GATEWAY,
        'x-team': 'infra',
        'anthropic-beta': 'claude-code-20250219',
      });
      expect(JSON.stringify(headers)).not.toContain('agent-coordinator-');
    });

    it('adds them to a request that lacks them, and overrides an x-api-key or Authorization as Claude Code does', async () => {
      proxy = await startApiKeyProxy({
        ANTHROPIC_AUTH_TOKEN: REAL_AUTH_TOKEN,
        ANTHROPIC_CUSTOM_HEADERS: `x-portkey-api-key: pk-real\nAuthorization: Bearer gw-real`,
        ANTHROPIC_BASE_URL: upstream.url,
      });
      const { env } = proxy!;
      // An agent that reads no ANTHROPIC_CUSTOM_HEADERS sends only its token's placeholder.
      await (await send(env, { authorization: `Bearer ${env.ANTHROPIC_AUTH_TOKEN!}` })).text();
      // Claude Code sends a custom Authorization over its token's.
      await (await send(env, asClaudeCode(env))).text();
      expect(
        upstream.seen.map(({ headers }) => [headers['x-portkey-api-key'], headers.authorization]),
      ).toEqual([
        ['pk-real', 'Bearer gw-real'],
        ['pk-real', 'Bearer gw-real'],
      ]);
    });

    it('holds custom headers alone as a credential, and takes their placeholder as one', async () => {
      const jobEnv = {
        ANTHROPIC_CUSTOM_HEADERS: `cf-aig-authorization: ${GATEWAY}`,
        ANTHROPIC_BASE_URL: upstream.url,
      };
      // The refusal to run an agent of the worker's own user counts them (agent-step.ts).
      expect(heldCredentials(jobEnv)).toEqual(['ANTHROPIC_CUSTOM_HEADERS']);
      proxy = await startApiKeyProxy(jobEnv);
      const { env } = proxy!;
      expect(Object.keys(env).sort()).toEqual(['ANTHROPIC_BASE_URL', 'ANTHROPIC_CUSTOM_HEADERS']);
      expect((await send(env, { 'cf-aig-authorization': 'Bearer a-guess' })).status).toBe(401);
      expect((await send(env, {})).status).toBe(401);
      expect(upstream.seen).toEqual([]);
      const answer = await send(env, asClaudeCode(env));
      expect(answer.status).toBe(200);
      await answer.text();
      expect(upstream.seen.map(({ headers }) => headers['cf-aig-authorization'])).toEqual([
        GATEWAY,
      ]);
    });

    // Claude Code skips such a line; it may be a secret pasted without its name.
    it('holds a line without a colon from the agent, and says in its notes that it skipped it', async () => {
      proxy = await startApiKeyProxy({
        ANTHROPIC_CUSTOM_HEADERS: 'x-team: infra\nthe-real-secret-without-a-name\n  \n',
        ANTHROPIC_BASE_URL: upstream.url,
      });
      const { env, notes } = proxy!;
      expect(env.ANTHROPIC_CUSTOM_HEADERS).toMatch(/^x-team: agent-coordinator-[0-9a-f]{48}$/);
      expect(notes).toEqual([
        'ANTHROPIC_CUSTOM_HEADERS: lines 2 have no colon: skipped, as Claude Code skips them',
      ]);
      expect(notes.join()).not.toContain('the-real');
      expect(heldCredentials({ ANTHROPIC_CUSTOM_HEADERS: 'the-real-secret' })).toEqual([
        'ANTHROPIC_CUSTOM_HEADERS',
      ]);
    });

    // Such a header made http.request throw in the proxy, uncaught, which ended the worker.
    it.each([
      [': the-real-secret', /line 1: no header name before the colon/],
      ['x-team: infra\nthe real secret: v', /line 2: the name is not one an HTTP header may have/],
      ['cf-aig-authorization: the-real\rsecret', /line 1 \(cf-aig-authorization\): the value/],
      ['x-team: the-real-\u0000secret', /line 1 \(x-team\): the value/],
    ])('refuses %j at start, saying which line and why, without the secret', async (text, why) => {
      const jobEnv = { ANTHROPIC_CUSTOM_HEADERS: text, ANTHROPIC_BASE_URL: upstream.url };
      expect(() => heldCredentials(jobEnv)).toThrow(why);
      await expect(startApiKeyProxy(jobEnv)).rejects.toThrow(why);
      expect(() => heldCredentials(jobEnv)).not.toThrow(/the-real|secret/);
    });

    // Node's client sends a job's `content-length` as it is given: under a body the agent sent
    // chunked, the upstream read the body's rest as a request of the agent's own (to any path,
    // over a connection kept for the proxy's next request, whose head it could take as its body).
    it.each([
      'x-team: infra\r\nContent-Length: 2',
      'transfer-encoding: chunked',
      'Connection: close',
    ])('refuses %j at start: the proxy frames each request itself', async (text) => {
      const jobEnv = { ANTHROPIC_CUSTOM_HEADERS: text, ANTHROPIC_BASE_URL: upstream.url };
      const why = /^ANTHROPIC_CUSTOM_HEADERS sets [a-z-]+: the proxy frames each request itself$/;
      expect(() => heldCredentials(jobEnv)).toThrow(why);
      await expect(startApiKeyProxy(jobEnv)).rejects.toThrow(why);
    });
  });

  it('holds no credential of whitespace alone', () => {
    expect(
      heldCredentials({
        ANTHROPIC_API_KEY: ' \n',
        CLAUDE_CODE_OAUTH_TOKEN: '\t',
        ANTHROPIC_CUSTOM_HEADERS: '\n ',
      }),
    ).toEqual([]);
  });

  it('starts nothing when the job holds no credential', async () => {
    const jobEnv = { ANTHROPIC_BASE_URL: upstream.url, CLAUDE_CODE_OAUTH_TOKEN: '' };
    expect(heldCredentials(jobEnv)).toEqual([]);
    expect(await startApiKeyProxy(jobEnv)).toBeUndefined();
  });

  it('names every credential the worker holds, for the refusal to run the agent as its own user', () => {
    expect(
      heldCredentials({
        ANTHROPIC_API_KEY: REAL_KEY,
        CLAUDE_CODE_OAUTH_TOKEN: REAL_OAUTH_TOKEN,
        ANTHROPIC_AUTH_TOKEN: REAL_AUTH_TOKEN,
      }),
    ).toEqual(['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN']);
    expect(heldCredentials({ CLAUDE_CODE_OAUTH_TOKEN: REAL_OAUTH_TOKEN })).toEqual([
      'CLAUDE_CODE_OAUTH_TOKEN',
    ]);
  });
});
