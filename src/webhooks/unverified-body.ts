import type { IncomingMessage } from 'node:http';

/** The unverified bytes all requests hold, against one budget. */
export class HeldBytes {
  private total = 0;
  constructor(private readonly limit: number) {}

  /** Takes `n` more bytes if they fit. */
  take(n: number): boolean {
    if (this.total + n > this.limit) return false;
    this.total += n;
    return true;
  }

  give(n: number): void {
    this.total -= n;
  }
}

type ReadBody = 'too_large' | 'busy' | { body: string; release: () => void };

/**
 * The request's body, its bytes counted against `held` as they arrive (the declared length up
 * front, when there is one) and given back by `release` once the signature is checked. An
 * oversized body, or one the budget cannot hold, is drained, not stored, so the client still gets
 * its answer.
 */
export async function readBody(
  req: IncomingMessage,
  maxBytes: number,
  held: HeldBytes,
): Promise<ReadBody> {
  const declared = Number(req.headers['content-length']);
  const chunks: Buffer[] = [];
  let size = 0;
  let taken = 0;
  let busy = declared > 0 && declared <= maxBytes && !held.take(declared);
  if (!busy && declared > 0 && declared <= maxBytes) taken = declared;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (busy || size > maxBytes || declared > maxBytes) continue;
      if (size > taken) {
        if (!held.take(size - taken)) {
          busy = true;
          chunks.length = 0;
          continue;
        }
        taken = size;
      }
      chunks.push(chunk);
    }
  } catch (error) {
    held.give(taken);
    throw error;
  }
  if (size > maxBytes || declared > maxBytes || busy) {
    held.give(taken);
    return busy && size <= maxBytes ? 'busy' : 'too_large';
  }
  const body = Buffer.concat(chunks).toString('utf8');
  let released = false;
  return {
    body,
    release: () => {
      if (!released) held.give(taken);
      released = true;
    },
  };
}
