import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TestOctokit, VIA_GLOBAL_FETCH } from '../helpers/app.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

async function listen(handler: (seen: Seen, res: import('node:http').ServerResponse) => void) {
  const seen: Seen[] = [];
  const sockets = new Set<unknown>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const one = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(one);
      handler(one, res);
    });
  });
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, url, seen, sockets };
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

describe('the server’s Octokit on undici’s request, against the global fetch', () => {
  let github: Awaited<ReturnType<typeof listen>>;
  let storage: Awaited<ReturnType<typeof listen>>;

  beforeAll(async () => {
    storage = await listen((_, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('log line 1\nlog line 2\n');
    });
    github = await listen((seen, res) => {
      const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
        res.end(JSON.stringify(value));
      };
      if (seen.url === '/repos/o/r/pulls/1' && seen.method === 'GET')
        return json(200, { number: 1, title: 'ü' }, { 'x-ratelimit-remaining': '4999' });
      if (seen.url === '/repos/o/r/issues/1/comments' && seen.method === 'POST')
        return json(201, { id: 7, body: (JSON.parse(seen.body) as { body: string }).body });
      if (seen.url === '/repos/o/r/issues/1/labels/x') {
        res.writeHead(204);
        return res.end();
      }
      if (seen.url === '/repos/o/r/pulls/2')
        return json(404, { message: 'Not Found', documentation_url: 'https://docs.github.com' });
      if (seen.url === '/repos/o/r/actions/jobs/5/logs') {
        res.writeHead(302, { location: `${storage.url}/signed/log?sig=abc` });
        return res.end();
      }
      if (seen.url === '/slow') return; // never answered
      json(500, { message: `unexpected ${seen.method} ${seen.url}` });
    });
  });
  afterAll(async () => {
    await close(github.server);
    await close(storage.server);
  });

  const ours = () => new TestOctokit({ baseUrl: github.url, auth: 'ghs_secret' });
  const viaFetch = () =>
    new TestOctokit({
      baseUrl: github.url,
      auth: 'ghs_secret',
      request: VIA_GLOBAL_FETCH,
    });

  async function outcome(octokit: InstanceType<typeof TestOctokit>, route: string, params = {}) {
    try {
      const { status, data, headers } = await octokit.request(route, params);
      return { status, data: data as unknown, remaining: headers['x-ratelimit-remaining'] };
    } catch (error) {
      const { status, message } = error as { status: number; message: string };
      return { status, message };
    }
  }

  it.each([
    ['GET /repos/{owner}/{repo}/pulls/{pull_number}', { pull_number: 1 }],
    ['POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { issue_number: 1, body: 'hi' }],
    [
      'DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}',
      { issue_number: 1, name: 'x' },
    ],
    ['GET /repos/{owner}/{repo}/pulls/{pull_number}', { pull_number: 2 }],
  ])('%s answers as it does through fetch', async (route, params) => {
    const args = { owner: 'o', repo: 'r', ...params };
    expect(await outcome(ours(), route, args)).toEqual(await outcome(viaFetch(), route, args));
  });

  it('goes through undici’s request, not the global fetch', async () => {
    const globalFetch = vi.spyOn(globalThis, 'fetch');
    try {
      const { data } = await ours().request('GET /repos/o/r/pulls/1');
      expect(data).toEqual({ number: 1, title: 'ü' });
      expect(globalFetch).not.toHaveBeenCalled();
    } finally {
      globalFetch.mockRestore();
    }
  });

  it('sends the method, the JSON body and the headers fetch sends', async () => {
    const sent = async (octokit: InstanceType<typeof TestOctokit>) => {
      const from = github.seen.length;
      await octokit.rest.issues.createComment({
        owner: 'o',
        repo: 'r',
        issue_number: 1,
        body: 'ü!',
      });
      const { method, body, headers } = github.seen[from]!;
      // Transport headers differ between clients and say nothing about the call.
      const transport = [
        'connection',
        'host',
        'accept-encoding',
        'accept-language',
        'sec-fetch-mode',
      ];
      const rest = Object.fromEntries(
        Object.entries(headers).filter(([name]) => !transport.includes(name)),
      );
      return { method, body: JSON.parse(body) as unknown, headers: rest };
    };
    const ourCall = await sent(ours());
    expect(ourCall).toEqual(await sent(viaFetch()));
    expect(ourCall.body).toEqual({ body: 'ü!' });
    expect(ourCall.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('keeps one connection for calls in sequence, answers without a body included', async () => {
    const octokit = ours();
    const before = github.sockets.size;
    for (let i = 0; i < 5; i++) {
      await octokit.request('DELETE /repos/o/r/issues/1/labels/x');
      await octokit.request('GET /repos/o/r/pulls/1');
    }
    expect(github.sockets.size - before).toBeLessThanOrEqual(1);
  });

  it('follows a redirect to another origin without the token, as fetch does', async () => {
    const from = storage.seen.length;
    const { data } = await ours().request('GET /repos/o/r/actions/jobs/5/logs');
    expect(data).toBe('log line 1\nlog line 2\n');
    expect(storage.seen[from]?.url).toBe('/signed/log?sig=abc');
    expect(storage.seen[from]?.headers['authorization']).toBeUndefined();
  });

  it('hands back the redirect itself when the call asks for it (manual)', async () => {
    const answer = await ours().request('GET /repos/o/r/actions/jobs/5/logs', {
      request: { redirect: 'manual' },
    });
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe(`${storage.url}/signed/log?sig=abc`);
  });

  it('hands the body over as a stream when the call asks for it unparsed', async () => {
    const { data } = await ours().request('GET /repos/o/r/pulls/1', {
      request: { parseSuccessResponseBody: false },
    });
    expect(data).toBeInstanceOf(ReadableStream);
    expect(JSON.parse(await new Response(data as ReadableStream).text())).toEqual({
      number: 1,
      title: 'ü',
    });
  });

  it('reports a connection refused as Octokit reports fetch’s: status 500', async () => {
    const { server, url } = await listen(() => undefined);
    await close(server);
    const refused = new TestOctokit({ baseUrl: url, auth: 'x' });
    await expect(refused.request('GET /repos/o/r/pulls/1')).rejects.toMatchObject({ status: 500 });
  });

  it('stops waiting when the call’s signal aborts, with fetch’s error', async () => {
    const timedOut = async (octokit: InstanceType<typeof TestOctokit>) => {
      const signal = AbortSignal.timeout(50);
      const error = await octokit.request('GET /slow', { request: { signal } }).catch((e) => e);
      const { name, status, message } = error as { name: string; status: number; message: string };
      return { name, status, message };
    };
    const ourError = await timedOut(ours());
    expect(ourError).toEqual(await timedOut(viaFetch()));
    expect(ourError.message).toContain('timeout');
  });
});
