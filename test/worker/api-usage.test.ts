import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { brotliCompressSync, gzipSync, zstdCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { attemptUsage, createUsageMeter, readableEncodings } from '../../src/worker/api-usage.js';
import { UNKNOWN_MODEL_RATES } from '../../src/worker/model-prices.js';

/**
 * The usage the worker's API-key proxy reads from the Messages API's answers
 * (src/worker/api-usage.ts), in the shapes of the API's docs ("Messages streaming": a
 * `message_start` with the message's model and usage, `message_delta`s with the usage so far)
 * and of `@anthropic-ai/sdk`'s `Message`, `RawMessageStartEvent` and `RawMessageDeltaEvent`.
 */

const JSON_TYPE = { 'content-type': 'application/json' };
const SSE_TYPE = { 'content-type': 'text/event-stream; charset=utf-8' };

/** What the meter makes of these responses, each given as the chunks it arrives in. */
async function measure(...responses: { headers: IncomingHttpHeaders; chunks: Buffer[] }[]) {
  const meter = createUsageMeter();
  for (const { headers, chunks } of responses) meter.observe(Readable.from(chunks), headers);
  return meter.measured();
}

/** Every byte in a chunk of its own: events, lines and characters split everywhere. */
const byteByByte = (bytes: Buffer) => [...bytes].map((b) => Buffer.from([b]));
const whole = (text: string | Buffer) => [Buffer.from(text)];

const message = (model: string, usage: Record<string, unknown>) =>
  JSON.stringify({
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text: 'héllo ✓' }],
    stop_reason: 'end_turn',
    usage,
  });

const event = (data: unknown, eol = '\n') =>
  `event: ${(data as { type: string }).type}${eol}data: ${JSON.stringify(data)}${eol}${eol}`;

/** A streamed message on Opus 4.5: 10 input tokens, 20,000 read from the cache, 350 out. */
function stream(eol = '\n'): string {
  return [
    event(
      {
        type: 'message_start',
        message: {
          id: 'msg_02',
          type: 'message',
          role: 'assistant',
          model: 'claude-opus-4-5',
          content: [],
          usage: {
            input_tokens: 10,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 20_000,
            output_tokens: 1,
          },
        },
      },
      eol,
    ),
    event({ type: 'ping' }, eol),
    event(
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      eol,
    ),
    event(
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'héllo ✓' } },
      eol,
    ),
    event(
      { type: 'message_delta', delta: { stop_reason: null }, usage: { output_tokens: 100 } },
      eol,
    ),
    // Cumulative: the last delta's count is the message's, not an addition to it.
    event(
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn' },
        usage: { input_tokens: 10, cache_read_input_tokens: 20_000, output_tokens: 350 },
      },
      eol,
    ),
    event({ type: 'message_stop' }, eol),
  ].join('');
}
// Opus 4.5: $5 input, $0.50 cache reads, $25 output per million tokens.
const STREAM_USAGE = {
  costUsd: (10 * 5 + 20_000 * 0.5 + 350 * 25) / 1e6,
  inputTokens: 20_010,
  outputTokens: 350,
};

describe("the worker's usage meter", () => {
  it('prices a whole JSON message by its model, cache writes by their lifetime', async () => {
    const body = message('claude-sonnet-4-5-20250929', {
      input_tokens: 1000,
      cache_creation_input_tokens: 2000,
      cache_creation: { ephemeral_5m_input_tokens: 500, ephemeral_1h_input_tokens: 1500 },
      cache_read_input_tokens: 3000,
      output_tokens: 400,
    });
    const usage = await measure({ headers: JSON_TYPE, chunks: byteByByte(Buffer.from(body)) });
    // Sonnet 4.5: $3 input, $3.75 and $6 cache writes, $0.30 reads, $15 output.
    expect(usage!.costUsd).toBeCloseTo(
      (1000 * 3 + 500 * 3.75 + 1500 * 6 + 3000 * 0.3 + 400 * 15) / 1e6,
      12,
    );
    expect(usage).toMatchObject({ inputTokens: 6000, outputTokens: 400 });
  });

  it.each([
    ['\\n', '\n'],
    ['\\r\\n', '\r\n'],
  ])(
    'reads a stream split at every byte, lines ending %s, counting cumulative deltas once',
    async (_, eol) => {
      const usage = await measure({
        headers: SSE_TYPE,
        chunks: byteByByte(Buffer.from(stream(eol))),
      });
      expect(usage!.costUsd).toBeCloseTo(STREAM_USAGE.costUsd, 12);
      expect(usage).toMatchObject({ inputTokens: 20_010, outputTokens: 350 });
    },
  );

  it.each([
    ['gzip', gzipSync],
    ['br', brotliCompressSync],
    ['zstd', zstdCompressSync],
  ] as const)('decodes a %s response, as Claude Code asks for them', async (coding, compress) => {
    const bytes = compress(Buffer.from(stream()));
    const usage = await measure({
      headers: { ...SSE_TYPE, 'content-encoding': coding },
      chunks: byteByByte(bytes),
    });
    expect(usage!.costUsd).toBeCloseTo(STREAM_USAGE.costUsd, 12);
    expect(usage!.outputTokens).toBe(350);
  });

  // An answer's body may be any size and the agent's to shape (a file its code made the API
  // write): held whole, up to 16 MB each, many at once ran the worker out of memory, and an
  // attempt whose worker died reported nothing it spent. Only `usage` and `model` are held now.
  it('reads a whole message of any size, holding only its usage and model', async () => {
    const body = JSON.stringify({
      type: 'message',
      model: 'claude-sonnet-5',
      content: [{ type: 'text', text: 'é'.repeat(20 * 1024 * 1024) }],
      usage: { input_tokens: 1000, output_tokens: 100 },
    });
    const bytes = Buffer.from(body);
    const chunks = Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) =>
      bytes.subarray(i * 65536, (i + 1) * 65536),
    );
    const usage = await measure({ headers: JSON_TYPE, chunks });
    expect(usage).toMatchObject({ inputTokens: 1000, outputTokens: 100 });
  });

  it('adds up the responses it saw', async () => {
    const usage = await measure(
      { headers: SSE_TYPE, chunks: whole(stream()) },
      { headers: SSE_TYPE, chunks: whole(stream()) },
    );
    expect(usage!.costUsd).toBeCloseTo(2 * STREAM_USAGE.costUsd, 12);
    expect(usage).toMatchObject({ inputTokens: 40_020, outputTokens: 700 });
  });

  it('prices a model the table lacks at its highest rates, so an agent cannot choose one to look cheap', async () => {
    const usage = await measure({
      headers: JSON_TYPE,
      chunks: whole(message('claude-imaginary-9', { input_tokens: 1e6, output_tokens: 1e6 })),
    });
    expect(UNKNOWN_MODEL_RATES).toEqual({
      input: 15,
      cacheWrite5m: 18.75,
      cacheWrite1h: 30,
      cacheRead: 1.5,
      output: 75,
    });
    expect(usage!.costUsd).toBeCloseTo(15 + 75, 9);
    // No model at all is priced alike.
    const none = await measure({
      headers: JSON_TYPE,
      chunks: whole(JSON.stringify({ usage: { input_tokens: 1e6, output_tokens: 0 } })),
    });
    expect(none!.costUsd).toBeCloseTo(15, 9);
  });

  it('prices cache writes of no stated lifetime at the hour rate, long prompts, fast mode and web searches', async () => {
    const priced = async (model: string, usage: Record<string, unknown>) =>
      (await measure({ headers: JSON_TYPE, chunks: whole(message(model, usage)) }))!.costUsd;
    expect(
      await priced('claude-haiku-4-5', {
        input_tokens: 0,
        cache_creation_input_tokens: 1e6,
        output_tokens: 0,
      }),
    ).toBeCloseTo(2, 9);
    // Haiku 5.5 bills every token of a prompt over 100K at its long-prompt rates.
    expect(
      await priced('claude-haiku-5-5', { input_tokens: 100_000, output_tokens: 1000 }),
    ).toBeCloseTo((100_000 * 0.1 + 1000 * 0.5) / 1e6, 12);
    expect(
      await priced('claude-haiku-5-5', { input_tokens: 150_000, output_tokens: 1000 }),
    ).toBeCloseTo((150_000 * 0.5 + 1000 * 2.5) / 1e6, 12);
    expect(
      await priced('claude-opus-5-5', { input_tokens: 1e6, output_tokens: 0, speed: 'fast' }),
    ).toBeCloseTo(4 * 6, 9);
    expect(
      await priced('claude-sonnet-5', {
        input_tokens: 0,
        output_tokens: 0,
        server_tool_use: { web_search_requests: 3 },
      }),
    ).toBeCloseTo(0.03, 12);
  });

  it("adds the iterations the top-level usage leaves out: a compaction's, an advisor's", async () => {
    const iteration = (type: string, input: number, output: number, model?: string) => ({
      type,
      ...(model && { model }),
      input_tokens: input,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: null,
      output_tokens: output,
    });
    const usage = await measure({
      headers: JSON_TYPE,
      chunks: whole(
        message('claude-sonnet-4-6', {
          input_tokens: 1000,
          output_tokens: 100,
          iterations: [
            iteration('message', 1000, 100, 'claude-sonnet-4-6'),
            iteration('advisor_message', 10_000, 1000, 'claude-opus-4-8'),
            iteration('compaction', 50_000, 2000),
          ],
        }),
      ),
    });
    // Sonnet 4.6 at $3 / $15, Opus 4.8 at $5 / $25; the compaction on the response's model.
    const dollars = 1000 * 3 + 100 * 15 + (10_000 * 5 + 1000 * 25) + (50_000 * 3 + 2000 * 15);
    expect(usage!.costUsd).toBeCloseTo(dollars / 1e6, 12);
    expect(usage).toMatchObject({ inputTokens: 61_000, outputTokens: 3100 });
  });

  it('counts what a stream cut short showed: its input is billed all the same', async () => {
    const meter = createUsageMeter();
    const response = new Readable({ read() {} });
    meter.observe(response, SSE_TYPE);
    response.push(stream().split('event: ping')[0]);
    response.destroy();
    expect(await meter.measured()).toMatchObject({ inputTokens: 20_010, outputTokens: 1 });
  });

  it.each([
    [
      'an API error',
      JSON_TYPE,
      whole('{"type":"error","error":{"type":"invalid_request_error","message":"no"}}'),
    ],
    ['plain text', JSON_TYPE, whole('not json at all')],
    ['JSON that is not a message', JSON_TYPE, whole('[1, {"usage": 3}]')],
    [
      'a broken event',
      SSE_TYPE,
      whole('event: message_start\ndata: {"type":"message_start","message":{"usage":\n\n'),
    ],
    [
      'an error event',
      SSE_TYPE,
      whole(event({ type: 'error', error: { type: 'overloaded_error', message: 'x' } })),
    ],
    [
      'a body that is not the gzip it says',
      { ...SSE_TYPE, 'content-encoding': 'gzip' },
      whole(stream()),
    ],
    [
      'a coding the meter cannot read',
      { ...SSE_TYPE, 'content-encoding': 'compress' },
      whole(stream()),
    ],
    ['an empty body', JSON_TYPE, []],
  ])('ignores %s safely: no usage', async (_, headers, chunks) => {
    expect(await measure({ headers, chunks })).toBeUndefined();
  });

  it('counts only the responses that had usage among those that did not', async () => {
    const usage = await measure(
      { headers: JSON_TYPE, chunks: whole('<html>502 Bad Gateway</html>') },
      { headers: SSE_TYPE, chunks: whole(stream()) },
      { headers: { ...JSON_TYPE, 'content-encoding': 'gzip' }, chunks: whole('garbage') },
    );
    expect(usage!.costUsd).toBeCloseTo(STREAM_USAGE.costUsd, 12);
  });

  it('ignores counts that are no token counts', async () => {
    const usage = await measure({
      headers: JSON_TYPE,
      chunks: whole(
        message('claude-sonnet-5', {
          input_tokens: -5,
          output_tokens: 1.5,
          cache_read_input_tokens: '9',
        }),
      ),
    });
    expect(usage).toEqual({ costUsd: 0, inputTokens: 0, outputTokens: 0 });
  });
});

describe('the encodings the proxy asks the API for', () => {
  it('keeps those the meter reads, as Claude Code asks for them, and no other', () => {
    expect(readableEncodings('gzip, deflate, br, zstd')).toBe('gzip, deflate, br, zstd');
    expect(readableEncodings('gzip;q=0.5, compress, *, br')).toBe('gzip;q=0.5, br');
    // No header allows any coding: the API is asked for none.
    expect(readableEncodings(undefined)).toBe('identity');
    expect(readableEncodings('compress')).toBe('identity');
  });
});

describe("the attempt's usage", () => {
  const reported = { costUsd: 0, inputTokens: 1, outputTokens: 1 };
  const measured = { costUsd: 0.5, inputTokens: 20_000, outputTokens: 300 };

  it('is what the worker measured where the agent reported less', () => {
    expect(attemptUsage(reported, measured)).toEqual({
      usage: measured,
      measured: ['costUsd', 'inputTokens', 'outputTokens'],
    });
    expect(attemptUsage(undefined, measured)).toEqual({
      usage: measured,
      measured: ['costUsd', 'inputTokens', 'outputTokens'],
    });
  });

  it('takes the larger figure of each: the agent may have spent where the proxy cannot see', () => {
    expect(attemptUsage({ costUsd: 2, inputTokens: 5, outputTokens: 900 }, measured)).toEqual({
      usage: { costUsd: 2, inputTokens: 20_000, outputTokens: 900 },
      measured: ['inputTokens'],
    });
  });

  it("is the agent's report when the proxy measured nothing", () => {
    expect(attemptUsage(reported, undefined)).toEqual({ usage: reported, measured: [] });
    expect(attemptUsage(undefined, undefined)).toEqual({ usage: undefined, measured: [] });
  });

  it('bounds a report past what the figures spell in digits, measured or not', () => {
    const huge = { costUsd: 1e21, inputTokens: 1e21, outputTokens: 2.5 };
    const bounded = { costUsd: 1_000_000, inputTokens: Number.MAX_SAFE_INTEGER, outputTokens: 3 };
    expect(attemptUsage(huge, undefined)).toEqual({ usage: bounded, measured: [] });
    expect(attemptUsage(huge, measured).usage).toEqual({ ...bounded, outputTokens: 300 });
  });
});
