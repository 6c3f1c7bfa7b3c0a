/**
 * The first flight of a TLS client, read far enough to know which server it names: the
 * ClientHello (RFC 8446 §4.1.2, the same in TLS 1.2, RFC 5246 §7.4.1.2) in one or more
 * handshake records (§5.1), and its server_name extension (RFC 6066 §3). The worker's egress
 * proxy reads it from each CONNECT tunnel before a byte of the agent's goes upstream
 * (docs/worker.md, "The agent's network").
 *
 * A reader of our own: the npm `sni` packages read one buffer (`sni`'s README hands it the first
 * `data` event) and see a server name in whatever they can, while a ClientHello with post-quantum
 * key shares (X25519MLKEM768, which Node's OpenSSL 3.5 sends by default) is some 1.6 KB, which
 * may arrive in several chunks and come in several records, and the agent writes these bytes to
 * slip past exactly such a reader. Every read is bounds-checked, and whatever is not a
 * well-formed ClientHello is said to be so (`not-tls`), never guessed at.
 */

export type ClientHelloRead =
  /** Well-formed so far; more bytes are needed. */
  | { kind: 'incomplete' }
  /** A whole ClientHello; bytes after it (early data, more records) are not read. */
  | { kind: 'hello'; serverName?: string; hiddenServerName: boolean }
  /** Not a ClientHello this reader takes: not TLS, malformed, or larger than the limit. */
  | { kind: 'not-tls'; why: string };

/** At most this many bytes (records and their headers) are read for one ClientHello. */
export const MAX_CLIENT_HELLO_BYTES = 64 * 1024;

const HANDSHAKE_RECORD = 22;
const CLIENT_HELLO = 1;
const RECORD_HEADER = 5;
/** A record's fragment is at most 2^14 bytes (RFC 8446 §5.1). */
const MAX_FRAGMENT = 2 ** 14;
/**
 * At most this many records are read for one ClientHello. A client cuts it into records of up to
 * 2^14 bytes, 4 for the largest this reads; one that cuts it finer is out to slip past a reader
 * like this one, and every chunk read again from the first record would cost the worker's event
 * loop as much again (64 KiB of 1-byte records, read again after each byte: 30 s).
 */
export const MAX_CLIENT_HELLO_RECORDS = 64;
const SERVER_NAME = 0x0000;
const HOST_NAME = 0;
/**
 * Encrypted Client Hello (draft-ietf-tls-esni, 0xfe0d), its earlier drafts' code points
 * (0xfe08–0xfe0c) and ESNI's (0xffce): each carries the name the server routes by out of sight.
 * The name in the clear binds nothing: a server opens the encrypted part with the configuration
 * its `config_id` names, whatever name the outer hello carries.
 */
const HIDDEN_SERVER_NAME = new Set([0xfe0d, 0xfe0c, 0xfe0b, 0xfe0a, 0xfe09, 0xfe08, 0xffce]);

class Malformed extends Error {}

/** The ClientHello that `bytes` (a tunnel's first bytes, as they came) begin with. */
export function readClientHello(bytes: Uint8Array): ClientHelloRead {
  try {
    return readRecords(bytes);
  } catch (error) {
    if (error instanceof Malformed) return { kind: 'not-tls', why: error.message };
    throw error;
  }
}

function readRecords(bytes: Uint8Array): ClientHelloRead {
  // The handshake bytes of the whole records read so far, and the first 4 of them (its header).
  const fragments: Uint8Array[] = [];
  const header: number[] = [];
  let handshakeBytes = 0;
  let offset = 0;
  for (;;) {
    if (fragments.length === MAX_CLIENT_HELLO_RECORDS)
      throw new Malformed(`its ClientHello did not end within ${MAX_CLIENT_HELLO_RECORDS} records`);
    const record = recordAt(bytes.subarray(offset), offset === 0);
    // The header is checked as soon as it is here, in a partial record or not.
    for (const byte of record.fragment.subarray(0, 4 - header.length)) header.push(byte);
    const hello = helloLength(header);
    if (!record.whole) break;
    fragments.push(record.fragment);
    handshakeBytes += record.fragment.length;
    offset += RECORD_HEADER + record.fragment.length;
    // However it came in chunks: a hello that takes more bytes is refused, whole or not.
    if (offset > MAX_CLIENT_HELLO_BYTES) throw tooLong();
    if (hello !== undefined && handshakeBytes >= 4 + hello)
      return readHello(Buffer.concat(fragments).subarray(4, 4 + hello));
  }
  // Not whole yet, so it ends past these bytes.
  if (bytes.length >= MAX_CLIENT_HELLO_BYTES) throw tooLong();
  return { kind: 'incomplete' };
}

function tooLong(): Malformed {
  return new Malformed(`its ClientHello did not end within ${MAX_CLIENT_HELLO_BYTES} bytes`);
}

/** The record `bytes` start with: its fragment, whole or as much as is here. */
function recordAt(bytes: Uint8Array, first: boolean): { fragment: Uint8Array; whole: boolean } {
  if (bytes.length >= 1 && bytes[0] !== HANDSHAKE_RECORD)
    throw new Malformed(
      first
        ? `its first byte is ${bytes[0]}, not a TLS handshake record's (22)`
        : `a record of type ${bytes[0]} before its ClientHello ended`,
    );
  // legacy_record_version: 0x0300 to 0x0303 (RFC 8446 §5.1).
  if ((bytes.length >= 2 && bytes[1] !== 3) || (bytes.length >= 3 && bytes[2]! > 3))
    throw new Malformed(`a record of version ${hex(bytes.subarray(1, 3))}, not TLS's`);
  if (bytes.length < RECORD_HEADER) return { fragment: new Uint8Array(0), whole: false };
  const length = (bytes[3]! << 8) | bytes[4]!;
  // "Implementations MUST NOT send zero-length fragments of Handshake types" (RFC 8446 §5.1).
  if (length === 0) throw new Malformed('an empty handshake record');
  if (length > MAX_FRAGMENT)
    throw new Malformed(`a record of ${length} bytes, more than ${MAX_FRAGMENT}`);
  const fragment = bytes.subarray(RECORD_HEADER, RECORD_HEADER + length);
  return { fragment, whole: fragment.length === length };
}

/** The ClientHello's length from its handshake header, once its 4 bytes are here. */
function helloLength(header: number[]): number | undefined {
  if (header.length >= 1 && header[0] !== CLIENT_HELLO)
    throw new Malformed(`a handshake message of type ${header[0]}, not a ClientHello (1)`);
  if (header.length < 4) return undefined;
  const length = (header[1]! << 16) | (header[2]! << 8) | header[3]!;
  // The fewest bytes it takes on the wire: a record header for each 2^14 bytes of it.
  const wire = 4 + length + RECORD_HEADER * Math.ceil((4 + length) / MAX_FRAGMENT);
  if (wire > MAX_CLIENT_HELLO_BYTES)
    throw new Malformed(
      `a ClientHello of ${length} bytes, more than ${MAX_CLIENT_HELLO_BYTES} with its records`,
    );
  return length;
}

function readHello(body: Uint8Array): ClientHelloRead {
  const hello = new Cursor(body, 'the ClientHello');
  const version = hello.u16('legacy_version');
  if (version >> 8 !== 3) throw new Malformed(`a ClientHello of version ${version.toString(16)}`);
  hello.take(32, 'random');
  if (hello.vector(1, 'legacy_session_id').left > 32)
    throw new Malformed('a legacy_session_id longer than 32 bytes');
  const suites = hello.vector(2, 'cipher_suites').left;
  if (suites < 2 || suites % 2 !== 0) throw new Malformed(`cipher_suites of ${suites} bytes`);
  if (hello.vector(1, 'legacy_compression_methods').left < 1)
    throw new Malformed('no legacy_compression_methods');
  // A TLS 1.2 ClientHello may end here, without extensions (RFC 5246 §7.4.1.2).
  if (hello.left === 0) return { kind: 'hello', hiddenServerName: false };
  const extensions = hello.vector(2, 'extensions');
  if (hello.left !== 0) throw new Malformed("bytes after the ClientHello's extensions");
  const seen = new Set<number>();
  let serverName: string | undefined;
  let hiddenServerName = false;
  while (extensions.left > 0) {
    const type = extensions.u16('an extension type');
    const data = extensions.vector(2, `extension ${type}`);
    // "There MUST NOT be more than one extension of the same type" (RFC 8446 §4.2): two
    // server names would leave it to the server which one it routes by.
    if (seen.has(type)) throw new Malformed(`extension ${type} twice`);
    seen.add(type);
    if (type === SERVER_NAME) serverName = readServerName(data);
    if (HIDDEN_SERVER_NAME.has(type)) hiddenServerName = true;
  }
  return { kind: 'hello', hiddenServerName, ...(serverName !== undefined && { serverName }) };
}

/**
 * The one host_name of a server_name extension. RFC 6066 §3 allows one name of each type and
 * defines host_name only; OpenSSL takes exactly one host_name and nothing else, and so does this.
 */
function readServerName(data: Cursor): string {
  const list = data.vector(2, 'server_name_list');
  if (data.left !== 0) throw new Malformed('bytes after the server_name_list');
  const type = list.u8('a name_type');
  if (type !== HOST_NAME) throw new Malformed(`a server name of type ${type}, not host_name (0)`);
  const name = list.vector(2, 'a host_name').rest();
  if (list.left !== 0) throw new Malformed('more than one server name');
  if (name.length === 0) throw new Malformed('an empty server name');
  // A host name is ASCII: letters, digits, hyphens and dots, an IDN as its A-labels (RFC 6066 §3).
  if (name.some((byte) => byte < 0x21 || byte > 0x7e))
    throw new Malformed('a server name with a byte that is not printable ASCII');
  return Buffer.from(name).toString('latin1');
}

/** Reads `bytes` front to back; a read past the end is `Malformed`, naming what was read. */
class Cursor {
  private at = 0;
  constructor(
    private readonly bytes: Uint8Array,
    private readonly what: string,
  ) {}

  get left(): number {
    return this.bytes.length - this.at;
  }

  take(count: number, what: string): Uint8Array {
    if (count > this.left) throw new Malformed(`${what} runs past the end of ${this.what}`);
    const taken = this.bytes.subarray(this.at, this.at + count);
    this.at += count;
    return taken;
  }

  u8(what: string): number {
    return this.take(1, what)[0]!;
  }

  u16(what: string): number {
    const [high, low] = this.take(2, what);
    return (high! << 8) | low!;
  }

  /** A vector with a length of `size` bytes in front (RFC 8446 §3.4), as a cursor of its own. */
  vector(size: 1 | 2, what: string): Cursor {
    const length = size === 1 ? this.u8(`${what}'s length`) : this.u16(`${what}'s length`);
    return new Cursor(this.take(length, what), what);
  }

  rest(): Uint8Array {
    return this.take(this.left, this.what);
  }
}

function hex(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes).toString('hex')}`;
}
