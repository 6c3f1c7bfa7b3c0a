import { once } from 'node:events';
import {
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startApiKeyProxy, type ApiKeyProxy } from '../../src/worker/api-key-proxy.js';
import { SONNET_ANSWER, SONNET_ANSWER_COST } from './helpers/sonnet-answer.js';

/**
 * The worker's API-key proxy measures what the agent spends from the API's answers it forwards
 * (src/worker/api-usage.ts), and hands the agent each answer byte for byte as it came.
 */

interface Answer {
  status: number;
  headers: Record<string, string>;
  /** Written one by one, a pause apart: a stream as the API sends it. */
  pieces: Buffer[];
  /** The upstream writes nothing from piece `at` on (0: not even the head) until `until`. */
  hold?: { at: number; until: Promise<void> };
}

const MESSAGE = JSON.stringify({
  id: 'msg_2',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-5',
  content: [{ type: 'text', text: 'ok' }],
  usage: { input_tokens: 1000, cache_read_input_tokens: 0, output_tokens: 100 },
});
const MESSAGE_COST = (1000 * 2 + 100 * 10) / 1e6;

const thirds = (bytes: Buffer) => {
  const third = Math.ceil(bytes.length / 3);
  return [bytes.subarray(0, third), bytes.subarray(third, 2 * third), bytes.subarray(2 * third)];
};

describe("the worker's API key proxy measuring usage", () => {
  let upstream: Server;
  let upstreamUrl: string;
  let answers: Answer[];
  let heard: IncomingHttpHeaders[];
  let proxy: ApiKeyProxy | undefined;
  beforeEach(async () => {
    answers = [];
    heard = [];
    upstream = createServer((req, res) => {
      heard.push(req.headers);
      req.resume();
      req.on('end', async () => {
        const answer = answers.shift()!;
        const { hold } = answer;
        if (hold?.at === 0) await hold.until;
        res.writeHead(answer.status, answer.headers);
        const write = async (i: number) => {
          if (i === answer.pieces.length) return void res.end();
          if (i > 0 && hold?.at === i) await hold.until;
          res.write(answer.pieces[i]);
          setTimeout(() => void write(i + 1), 5);
        };
        await write(0);
      });
    }).listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    upstream.close();
  });

  /** A request as the agent sends it, and the raw bytes it gets back. */
  const send = async (headers: Record<string, string> = {}) => {
    const { port } = new URL(proxy!.env.ANTHROPIC_BASE_URL);
    return new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
      request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v1/messages?beta=true',
          headers: { 'x-api-key': proxy!.env.ANTHROPIC_API_KEY, ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks) }));
        },
      )
        .on('error', reject)
        .end('{"stream":true}');
    });
  };

  const start = async () => {
    proxy = await startApiKeyProxy({
      ANTHROPIC_API_KEY: 'sk-ant-api03-real',
      ANTHROPIC_BASE_URL: upstreamUrl,
    });
  };

  it('adds up the usage of streamed and whole answers, compressed as Claude Code asks, and passes each on unchanged', async () => {
    await start();
    const streamed = brotliCompressSync(Buffer.from(SONNET_ANSWER));
    const whole = gzipSync(Buffer.from(MESSAGE));
    answers.push(
      {
        status: 200,
        headers: { 'content-type': 'text/event-stream', 'content-encoding': 'br' },
        pieces: thirds(streamed),
      },
      {
        status: 200,
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        pieces: thirds(whole),
      },
    );
    const claudeCode = { 'accept-encoding': 'gzip, deflate, br, zstd' };
    const first = await send(claudeCode);
    const second = await send(claudeCode);
    expect(first.body.equals(streamed)).toBe(true);
    expect(second.body.equals(whole)).toBe(true);
    expect(heard.map((h) => h['accept-encoding'])).toEqual([
      'gzip, deflate, br, zstd',
      'gzip, deflate, br, zstd',
    ]);
    await proxy!.close();
    const measured = await proxy!.measured();
    expect(measured!.costUsd).toBeCloseTo(SONNET_ANSWER_COST + MESSAGE_COST, 12);
    expect(measured).toMatchObject({ inputTokens: 53_000, outputTokens: 900 });
  });

  it('measures nothing from refusals and errors, and asks the API for no coding the meter cannot read', async () => {
    await start();
    answers.push(
      {
        status: 400,
        headers: { 'content-type': 'application/json' },
        pieces: [Buffer.from('{"type":"error","error":{"type":"invalid_request_error"}}')],
      },
      { status: 529, headers: { 'content-type': 'text/html' }, pieces: [Buffer.from('<h1>')] },
    );
    expect((await send({ 'accept-encoding': 'compress, gzip;q=0.1, *' })).status).toBe(400);
    expect((await send()).status).toBe(529);
    expect(heard.map((h) => h['accept-encoding'])).toEqual(['gzip;q=0.1', 'identity']);
    await proxy!.close();
    expect(await proxy!.measured()).toBeUndefined();
  });

  /**
   * The agent asks, then hangs up before the API's last word: a stream's `message_delta`, which
   * alone counts its output, or a whole answer, which counts everything. The API bills what it
   * generated all the same: cut there, the proxy measured none of it.
   */
  const hangUp = async (at: number, pieces: Buffer[], contentType: string) => {
    let release!: () => void;
    const until = new Promise<void>((resolve) => (release = resolve));
    answers.push({
      status: 200,
      headers: { 'content-type': contentType },
      pieces,
      hold: { at, until },
    });
    const { port } = new URL(proxy!.env.ANTHROPIC_BASE_URL);
    const agent = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/v1/messages',
      headers: { 'x-api-key': proxy!.env.ANTHROPIC_API_KEY },
    });
    agent.on('error', () => {});
    const heardBefore = heard.length;
    if (at === 0) {
      agent.end('{}');
      while (heard.length === heardBefore) await new Promise((r) => setTimeout(r, 5));
      agent.destroy();
    } else {
      agent.on('response', (res) => res.once('data', () => agent.destroy()));
      agent.end('{"stream":true}');
      await once(agent, 'close');
    }
    release();
  };

  it('measures a stream the agent hung up on before its last event', async () => {
    await start();
    const events = SONNET_ANSWER.split('\n\n');
    const delta = events.findIndex((e) => e.includes('message_delta'));
    await hangUp(
      1,
      [events.slice(0, delta).join('\n\n') + '\n\n', events.slice(delta).join('\n\n')].map((t) =>
        Buffer.from(t),
      ),
      'text/event-stream',
    );
    await proxy!.close();
    const measured = await proxy!.measured();
    expect(measured).toMatchObject({ inputTokens: 52_000, outputTokens: 800 });
    expect(measured!.costUsd).toBeCloseTo(SONNET_ANSWER_COST, 12);
  });

  it('measures a whole answer the agent hung up before', async () => {
    await start();
    await hangUp(0, [Buffer.from(MESSAGE)], 'application/json');
    await proxy!.close();
    expect(await proxy!.measured()).toMatchObject({ inputTokens: 1000, outputTokens: 100 });
  });

  it('stops reading an answer that does not end a while after it closes, counting what it showed', async () => {
    const started = (await startApiKeyProxy(
      { ANTHROPIC_API_KEY: 'sk-ant-api03-real', ANTHROPIC_BASE_URL: upstreamUrl },
      { drainMs: 50 },
    ))!;
    proxy = started;
    const [messageStart] = SONNET_ANSWER.split('\n\n');
    answers.push({
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      pieces: [Buffer.from(`${messageStart}\n\n`), Buffer.from('')],
      hold: { at: 1, until: new Promise<void>(() => {}) },
    });
    const { port } = new URL(started.env.ANTHROPIC_BASE_URL);
    const agent = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/v1/messages',
      headers: { 'x-api-key': started.env.ANTHROPIC_API_KEY },
    });
    agent.on('error', () => {});
    agent.end('{"stream":true}');
    const [res] = (await once(agent, 'response')) as [IncomingMessage];
    await once(res, 'data');
    await started.close();
    expect(await started.measured()).toMatchObject({ inputTokens: 52_000, outputTokens: 1 });
  });
});
