import { once } from 'node:events';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
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
      req.on('end', () => {
        const answer = answers.shift()!;
        res.writeHead(answer.status, answer.headers);
        const write = (pieces: Buffer[]) => {
          if (pieces.length === 0) return void res.end();
          res.write(pieces[0]);
          setTimeout(() => write(pieces.slice(1)), 5);
        };
        write(answer.pieces);
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
});
