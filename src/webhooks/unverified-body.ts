import type { IncomingMessage } from 'node:http';
import { BodyChunks } from '../http/body-chunks.js';

/** The unverified bytes all requests hold, against one budget. */
export class HeldBytes {
  private total = 0;
  constructor(private readonly limit: number) {}

  /** The bytes held now, by every request together. */
  get held(): number {
    return this.total;
  }

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

/** What `readBody` reads: a request's headers and its body's chunks. */
type RequestBody = Pick<IncomingMessage, 'headers'> & AsyncIterable<Buffer>;

/**
 * The request's body, its bytes counted against `held` as they arrive and given back by
 * `release` once the signature is checked. Only bytes that arrived are counted, never a declared
 * length: a sender that declares 25 MB and sends nothing holds nothing, so stalled requests
 * cannot fill the budget for free; and chunks are copied together (`BodyChunks`), so a body sent
 * a byte a chunk holds about the bytes it is counted for. A body past `maxBytes`, or one the
 * budget cannot hold, gives back its bytes at once and is drained, not stored, so the client still
 * gets its answer.
 */
export async function readBody(
  req: RequestBody,
  maxBytes: number,
  held: HeldBytes,
): Promise<ReadBody> {
  const declared = Number(req.headers['content-length']);
  let refused: 'too_large' | 'busy' | undefined = declared > maxBytes ? 'too_large' : undefined;
  let chunks = new BodyChunks();
  let taken = 0;
  const giveBack = () => {
    held.give(taken);
    taken = 0;
    chunks = new BodyChunks();
  };
  let size = 0;
  try {
    for await (const chunk of req) {
      size += chunk.length;
      // Past GitHub's cap the answer is 413 even when the budget refused it first.
      if (size > maxBytes) refused = 'too_large';
      else if (!refused && !held.take(chunk.length)) refused = 'busy';
      if (refused) {
        giveBack();
        continue;
      }
      taken += chunk.length;
      chunks.add(chunk);
    }
  } catch (error) {
    giveBack();
    throw error;
  }
  if (refused) return refused;
  const body = chunks.bytes().toString('utf8');
  let released = false;
  return {
    body,
    release: () => {
      if (!released) held.give(taken);
      released = true;
    },
  };
}
