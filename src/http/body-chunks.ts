/** Chunks this long or longer are kept as they come; shorter ones are copied together. */
const KEEP = 16 * 1024;
const FIRST_TAIL = 256;

/**
 * A request body's chunks in memory close to their length, however the sender cut them. Node
 * gives each chunk of a chunked body a Buffer of its own, some 200 bytes of heap and 600 of the
 * process's memory however short it is: a body sent a byte a chunk, kept chunk by chunk, holds
 * hundreds of times the bytes any budget counts. Short chunks go into a tail that doubles as it
 * fills, so at most twice the bytes, and a Buffer per 8 KiB or so, are held.
 */
export class BodyChunks {
  private readonly kept: Buffer[] = [];
  private tail = Buffer.alloc(0);
  private tailLength = 0;

  add(chunk: Buffer): void {
    if (chunk.length >= KEEP) {
      this.seal();
      this.kept.push(chunk);
      return;
    }
    if (this.tailLength + chunk.length > KEEP) this.seal();
    if (this.tailLength + chunk.length > this.tail.length) {
      let size = FIRST_TAIL;
      while (size < this.tailLength + chunk.length) size *= 2;
      const grown = Buffer.allocUnsafe(size);
      this.tail.copy(grown, 0, 0, this.tailLength);
      this.tail = grown;
    }
    chunk.copy(this.tail, this.tailLength);
    this.tailLength += chunk.length;
  }

  /** The body so far, as one Buffer. */
  bytes(): Buffer {
    return Buffer.concat([...this.kept, this.tail.subarray(0, this.tailLength)]);
  }

  private seal(): void {
    if (this.tailLength > 0) this.kept.push(this.tail.subarray(0, this.tailLength));
    this.tail = Buffer.alloc(0);
    this.tailLength = 0;
  }
}
