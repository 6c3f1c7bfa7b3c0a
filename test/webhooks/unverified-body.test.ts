import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { HeldBytes, readBody } from '../../src/webhooks/unverified-body.js';

/**
 * A request whose body the test hands over chunk by chunk. `send` returns once the reader has
 * counted the chunk: it has asked for the next one.
 */
function trickle(headers: IncomingHttpHeaders = {}) {
  let asked = signal();
  let chunk = signal<IteratorResult<Buffer>>();
  const request = {
    headers,
    [Symbol.asyncIterator]: () => ({
      next: () => {
        asked.resolve();
        return chunk.promise;
      },
    }),
  };
  const hand = async (result: IteratorResult<Buffer>) => {
    await asked.promise;
    asked = signal();
    const current = chunk;
    chunk = signal();
    current.resolve(result);
  };
  return {
    request,
    send: async (bytes: number) => {
      await hand({ value: Buffer.alloc(bytes, 0x61), done: false });
      await asked.promise;
    },
    end: () => hand({ value: undefined, done: true }),
  };
}

function signal<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('reading unverified bodies against one budget', () => {
  it('counts the bytes that arrived, not a declared length: a request past the budget is busy', async () => {
    const held = new HeldBytes(1000);
    // Declares 900 bytes, sends 100, stalls.
    const stalled = trickle({ 'content-length': '900' });
    const stalledBody = readBody(stalled.request, 10_000, held);
    await stalled.send(100);
    expect(held.held).toBe(100);

    const fits = trickle();
    const fitsBody = readBody(fits.request, 10_000, held);
    await fits.send(900);
    await fits.end();
    const read = await fitsBody;
    if (typeof read === 'string') throw new Error(`refused: ${read}`);
    expect(read.body).toHaveLength(900);
    expect(held.held).toBe(1000);

    // The budget is full: a further body is refused, and holds nothing.
    const refused = trickle();
    const refusedBody = readBody(refused.request, 10_000, held);
    await refused.send(1);
    await refused.end();
    expect(await refusedBody).toBe('busy');
    expect(held.held).toBe(1000);

    read.release();
    expect(held.held).toBe(100);
    await stalled.send(800);
    await stalled.end();
    const last = await stalledBody;
    if (typeof last === 'string') throw new Error(`refused: ${last}`);
    last.release();
    expect(held.held).toBe(0);
  });

  it('gives back the bytes of a refused body at once, while its sender is still sending', async () => {
    const held = new HeldBytes(1000);
    const busy = trickle();
    const busyBody = readBody(busy.request, 10_000, held);
    await busy.send(600);
    await busy.send(600);
    expect(held.held).toBe(0);

    const oversized = trickle();
    const oversizedBody = readBody(oversized.request, 700, held);
    await oversized.send(600);
    expect(held.held).toBe(600);
    await oversized.send(200);
    expect(held.held).toBe(0);

    await busy.send(600);
    await busy.end();
    await oversized.end();
    expect(await busyBody).toBe('busy');
    expect(await oversizedBody).toBe('too_large');
    expect(held.held).toBe(0);
  });

  it('copies a body sent a byte a chunk together instead of keeping a Buffer per chunk', async () => {
    // Node gives each chunk of a chunked body its own Buffer, some 600 bytes of memory for one
    // byte counted. Each chunk is overwritten once the reader asks for the next: a kept chunk
    // would show in the body.
    const sent = ['a'.repeat(20_000), ...'b'.repeat(30_000), 'c'.repeat(17_000), ...'d'.repeat(9)];
    const request = {
      headers: {},
      async *[Symbol.asyncIterator]() {
        for (const text of sent) {
          const chunk = Buffer.from(text);
          yield chunk;
          if (chunk.length === 1) chunk.fill(0x78);
        }
      },
    };
    const held = new HeldBytes(100_000);
    const read = await readBody(request, 100_000, held);
    if (typeof read === 'string') throw new Error(`refused: ${read}`);
    expect(read.body).toBe(sent.join(''));
    expect(held.held).toBe(67_009);
    read.release();
    expect(held.held).toBe(0);
  });
});
