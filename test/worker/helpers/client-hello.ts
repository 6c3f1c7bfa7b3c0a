import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { connect, type ConnectionOptions } from 'node:tls';

/**
 * TLS ClientHellos for the tests of src/worker/tls-client-hello.ts and the egress proxy: real ones,
 * as Node's `tls.connect` writes them, and ones put together field by field (RFC 8446 §4.1.2,
 * RFC 6066 §3) for what no client of ours sends.
 */

/** The first record `tls.connect(options)` writes: its whole ClientHello, as Node sends it. */
export async function realClientHello(options: ConnectionOptions): Promise<Buffer> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const accepted = once(server, 'connection');
  const client = connect({
    ...options,
    host: '127.0.0.1',
    port: (server.address() as AddressInfo).port,
  });
  client.on('error', () => undefined);
  const [socket] = (await accepted) as [Socket];
  let bytes = Buffer.alloc(0);
  for await (const chunk of socket) {
    bytes = Buffer.concat([bytes, chunk as Buffer]);
    // Read by the record header alone, so that the parser under test plays no part here.
    if (bytes.length >= 5 && bytes.length >= 5 + bytes.readUInt16BE(3)) break;
  }
  socket.destroy();
  client.destroy();
  server.close();
  return bytes.subarray(0, 5 + bytes.readUInt16BE(3));
}

/** `data` behind a length of `size` bytes (a TLS vector). */
export function vector(size: 1 | 2 | 3, data: Buffer): Buffer {
  const length = Buffer.alloc(size);
  length.writeUIntBE(data.length, 0, size);
  return Buffer.concat([length, data]);
}

export function extension(type: number, data: Buffer): Buffer {
  const head = Buffer.alloc(2);
  head.writeUInt16BE(type);
  return Buffer.concat([head, vector(2, data)]);
}

/** A server_name extension's data naming `name` as a host_name. */
export function serverNameList(name: string): Buffer {
  return vector(2, Buffer.concat([Buffer.from([0]), vector(2, Buffer.from(name, 'latin1'))]));
}

export const SERVER_NAME = 0x0000;
export const ENCRYPTED_CLIENT_HELLO = 0xfe0d;
/** Extensions besides the name that a TLS 1.3 hello carries: supported_versions (TLS 1.3). */
const SUPPORTED_VERSIONS = extension(0x002b, vector(1, Buffer.from([3, 4])));

/** The fields of a ClientHello's body, each as its bytes on the wire. */
interface HelloFields {
  version: Buffer;
  random: Buffer;
  sessionId: Buffer;
  cipherSuites: Buffer;
  compressionMethods: Buffer;
  /** The extensions block, its length in front; empty for none (TLS 1.2). */
  extensions: Buffer;
}

/**
 * A ClientHello's body: `extensions` (the block's content, without its length) or, when null, no
 * extensions block at all, after well-formed fields that `fields` may replace.
 */
export function helloBody(extensions: Buffer | null, fields: Partial<HelloFields> = {}): Buffer {
  const all: HelloFields = {
    version: Buffer.from([3, 3]),
    random: Buffer.alloc(32, 7),
    sessionId: vector(1, Buffer.alloc(32, 1)),
    cipherSuites: vector(2, Buffer.from([0x13, 0x01, 0x13, 0x02])),
    compressionMethods: vector(1, Buffer.from([0])),
    extensions: extensions === null ? Buffer.alloc(0) : vector(2, extensions),
    ...fields,
  };
  return Buffer.concat([
    all.version,
    all.random,
    all.sessionId,
    all.cipherSuites,
    all.compressionMethods,
    all.extensions,
  ]);
}

/** A handshake message: its type (1: ClientHello), its length, `body`. */
export function handshake(body: Buffer, type = 1): Buffer {
  return Buffer.concat([Buffer.from([type]), vector(3, body)]);
}

/** `fragment` in one record of `type` (22: handshake). */
export function record(fragment: Buffer, type = 22, version = 0x0301): Buffer {
  const head = Buffer.from([type, version >> 8, version & 0xff]);
  return Buffer.concat([head, vector(2, fragment)]);
}

/** The handshake bytes of the records `bytes` holds, put in records of at most `size` bytes. */
export function refragment(bytes: Buffer, size: number): Buffer {
  const fragments: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 5 + bytes.readUInt16BE(at + 3))
    fragments.push(bytes.subarray(at + 5, at + 5 + bytes.readUInt16BE(at + 3)));
  const message = Buffer.concat(fragments);
  const records: Buffer[] = [];
  for (let at = 0; at < message.length; at += size)
    records.push(record(message.subarray(at, at + size)));
  return Buffer.concat(records);
}

/** A whole ClientHello in one record, naming `serverName` (none when undefined), and more. */
export function clientHello(serverName: string | undefined, ...more: Buffer[]): Buffer {
  const name = serverName === undefined ? [] : [extension(SERVER_NAME, serverNameList(serverName))];
  return record(handshake(helloBody(Buffer.concat([...name, SUPPORTED_VERSIONS, ...more]))));
}

/**
 * A ClientHello naming `serverName` of some 65,300 bytes: within the reader's 64 KiB in records
 * of 2^14 bytes, past it in 60 records.
 */
export function largeClientHello(serverName: string): Buffer {
  return clientHello(serverName, extension(0x15, Buffer.alloc(65_200)));
}
