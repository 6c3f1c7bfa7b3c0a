import { beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_CLIENT_HELLO_BYTES,
  MAX_CLIENT_HELLO_RECORDS,
  readClientHello,
} from '../../src/worker/tls-client-hello.js';
import {
  clientHello,
  ENCRYPTED_CLIENT_HELLO,
  largeClientHello,
  extension,
  handshake,
  helloBody,
  realClientHello,
  record,
  refragment,
  SERVER_NAME,
  serverNameList,
  vector,
} from './helpers/client-hello.js';

/**
 * The ClientHello reader the egress proxy checks each CONNECT tunnel with (docs/worker.md, "The
 * agent's network"): real hellos from Node's `tls.connect`, whole, cut short and spread over
 * records, and hand-made ones for every malformation it must call so. The proxy's use of it:
 * test/worker/egress-proxy.test.ts.
 */

const named = (serverName: string, hiddenServerName = false) => ({
  kind: 'hello',
  serverName,
  hiddenServerName,
});
const nameless = { kind: 'hello', hiddenServerName: false };
const notTls = (why: string) => ({ kind: 'not-tls', why });

/** A hello whose body is `body`, in one record. */
const hello = (body: Buffer) => record(handshake(body));
/** A hello whose extensions block holds `extensions` and nothing else. */
const withExtensions = (...extensions: Buffer[]) => hello(helloBody(Buffer.concat(extensions)));
/** A hello whose server_name extension's data is `data`. */
const withServerName = (data: Buffer) => withExtensions(extension(SERVER_NAME, data));

describe('readClientHello', () => {
  let real: Buffer;
  let realNameless: Buffer;
  beforeAll(async () => {
    real = await realClientHello({ servername: 'sni.example' });
    realNameless = await realClientHello({});
  });

  describe("reads Node's own ClientHellos", () => {
    it('with a server name, post-quantum sized', () => {
      // X25519MLKEM768's key share alone is 1,216 bytes.
      expect(real.length).toBeGreaterThan(1200);
      expect(readClientHello(real)).toEqual(named('sni.example'));
      expect(readClientHello(realNameless)).toEqual(nameless);
    });

    it(`spread over records, up to ${MAX_CLIENT_HELLO_RECORDS}`, () => {
      // The finest cut that takes no more records than the reader reads.
      const finest = Math.ceil(real.readUInt16BE(3) / MAX_CLIENT_HELLO_RECORDS);
      for (const size of [finest, 100, 512, 1000]) {
        const spread = refragment(real, size);
        expect(spread.length).toBeGreaterThan(real.length);
        expect(readClientHello(spread), `records of ${size} bytes`).toEqual(named('sni.example'));
      }
      expect(readClientHello(refragment(real, finest - 1))).toEqual(
        notTls(`its ClientHello did not end within ${MAX_CLIENT_HELLO_RECORDS} records`),
      );
    });

    it('and nothing after it: early data, a ChangeCipherSpec, a record cut short', () => {
      const after = Buffer.concat([
        real,
        record(Buffer.from([1]), 20, 0x0303),
        record(Buffer.alloc(50, 9), 23, 0x0303),
        Buffer.from([23, 3]),
      ]);
      expect(readClientHello(after)).toEqual(named('sni.example'));
    });

    it('cut short anywhere: more is needed', () => {
      const finest = Math.ceil(real.readUInt16BE(3) / MAX_CLIENT_HELLO_RECORDS);
      for (const bytes of [real, refragment(real, 300), refragment(real, finest)])
        for (let length = 0; length < bytes.length; length++)
          expect(readClientHello(bytes.subarray(0, length)), `${length} bytes`).toEqual({
            kind: 'incomplete',
          });
    });
  });

  it.each([
    ['a name as the client wrote it', clientHello('SNI.Example.'), named('SNI.Example.')],
    ['an address', clientHello('192.0.2.1'), named('192.0.2.1')],
    ['no name', clientHello(undefined), nameless],
    ['no extensions at all (TLS 1.2)', hello(helloBody(null)), nameless],
    ['an empty extensions block', hello(helloBody(Buffer.alloc(0))), nameless],
    [
      'Encrypted Client Hello',
      clientHello('public.example', extension(ENCRYPTED_CLIENT_HELLO, Buffer.alloc(40, 3))),
      named('public.example', true),
    ],
    [
      "ESNI, ECH's forerunner",
      clientHello(undefined, extension(0xffce, Buffer.alloc(40, 3))),
      { ...nameless, hiddenServerName: true },
    ],
    ['a record of version 0x0303', record(handshake(helloBody(null)), 22, 0x0303), nameless],
    [
      'a hello with an empty session id',
      hello(helloBody(null, { sessionId: vector(1, Buffer.alloc(0)) })),
      nameless,
    ],
  ])('reads a hello with %s', (_what, bytes, read) => {
    expect(readClientHello(bytes)).toEqual(read);
  });

  it.each([
    [
      'plain HTTP',
      Buffer.from('GET / HTTP/1.1\r\n'),
      "its first byte is 71, not a TLS handshake record's (22)",
    ],
    [
      'SSH',
      Buffer.from('SSH-2.0-OpenSSH_9.6\r\n'),
      "its first byte is 83, not a TLS handshake record's (22)",
    ],
    [
      'an SSLv2 hello',
      Buffer.from([0x80, 0x2e, 0x01]),
      "its first byte is 128, not a TLS handshake record's (22)",
    ],
    [
      'application data first',
      record(Buffer.alloc(10), 23),
      "its first byte is 23, not a TLS handshake record's (22)",
    ],
    ['a record of version 2', Buffer.from([22, 2]), "a record of version 0x02, not TLS's"],
    [
      'a record of version 0x0304',
      Buffer.from([22, 3, 4]),
      "a record of version 0x0304, not TLS's",
    ],
    ['an empty record', Buffer.from([22, 3, 1, 0, 0]), 'an empty handshake record'],
    [
      'a record over 2^14 bytes',
      Buffer.from([22, 3, 1, 0x40, 0x01]),
      'a record of 16385 bytes, more than 16384',
    ],
    [
      'a ServerHello',
      record(handshake(helloBody(null), 2)),
      'a handshake message of type 2, not a ClientHello (1)',
    ],
    [
      "a hello's first byte alone, of another type",
      Buffer.from([22, 3, 1, 0, 9, 11]),
      'a handshake message of type 11, not a ClientHello (1)',
    ],
    [
      'a hello longer than the limit, declared in its first record',
      Buffer.from([22, 3, 1, 0, 4, 1, 0x01, 0x00, 0x00]),
      `a ClientHello of 65536 bytes, more than ${MAX_CLIENT_HELLO_BYTES} with its records`,
    ],
    [
      'another record before the hello ends',
      Buffer.concat([
        refragment(clientHello('a.example'), 20).subarray(0, 50),
        record(Buffer.alloc(3), 23),
      ]),
      'a record of type 23 before its ClientHello ended',
    ],
    [
      'a hello of version 2',
      hello(helloBody(null, { version: Buffer.from([2, 0]) })),
      'a ClientHello of version 200',
    ],
    [
      'a body cut in its random',
      hello(Buffer.from([3, 3, 1, 2])),
      'random runs past the end of the ClientHello',
    ],
    [
      'a session id of 33 bytes',
      hello(helloBody(null, { sessionId: vector(1, Buffer.alloc(33)) })),
      'a legacy_session_id longer than 32 bytes',
    ],
    [
      'a session id past the end',
      hello(
        helloBody(null, {
          sessionId: Buffer.from([32]),
          cipherSuites: Buffer.alloc(0),
          compressionMethods: Buffer.alloc(0),
        }),
      ),
      'legacy_session_id runs past the end of the ClientHello',
    ],
    [
      'an odd cipher_suites',
      hello(helloBody(null, { cipherSuites: vector(2, Buffer.from([0x13, 1, 0x13])) })),
      'cipher_suites of 3 bytes',
    ],
    [
      'no cipher suites',
      hello(helloBody(null, { cipherSuites: vector(2, Buffer.alloc(0)) })),
      'cipher_suites of 0 bytes',
    ],
    [
      'no compression methods',
      hello(helloBody(null, { compressionMethods: vector(1, Buffer.alloc(0)) })),
      'no legacy_compression_methods',
    ],
    [
      'an extensions block past the end',
      hello(helloBody(null, { extensions: Buffer.from([0, 80, 0, 0]) })),
      'extensions runs past the end of the ClientHello',
    ],
    [
      'an extensions length cut in half',
      hello(helloBody(null, { extensions: Buffer.from([0]) })),
      "extensions's length runs past the end of the ClientHello",
    ],
    [
      'bytes after the extensions',
      hello(Buffer.concat([helloBody(Buffer.alloc(0)), Buffer.from([0])])),
      "bytes after the ClientHello's extensions",
    ],
    [
      'an extension past the block',
      withExtensions(Buffer.from([0, 5, 0, 16, 1, 2])),
      'extension 5 runs past the end of extensions',
    ],
    [
      'an extension type cut in half',
      withExtensions(Buffer.from([0])),
      'an extension type runs past the end of extensions',
    ],
    [
      'two server names extensions, one each',
      withExtensions(
        extension(SERVER_NAME, serverNameList('a.example')),
        extension(SERVER_NAME, serverNameList('b.example')),
      ),
      'extension 0 twice',
    ],
    [
      'any extension twice',
      withExtensions(extension(0x10, Buffer.alloc(0)), extension(0x10, Buffer.alloc(0))),
      'extension 16 twice',
    ],
    [
      'an empty server_name extension',
      withServerName(Buffer.alloc(0)),
      "server_name_list's length runs past the end of extension 0",
    ],
    [
      'a server_name_list past its extension',
      withServerName(Buffer.from([0, 9, 0, 0, 1, 97])),
      'server_name_list runs past the end of extension 0',
    ],
    [
      'bytes after the server_name_list',
      withServerName(Buffer.concat([serverNameList('a.example'), Buffer.from([0])])),
      'bytes after the server_name_list',
    ],
    [
      'a name of another type',
      withServerName(
        vector(2, Buffer.concat([Buffer.from([1]), vector(2, Buffer.from('a.example'))])),
      ),
      'a server name of type 1, not host_name (0)',
    ],
    [
      'two host names',
      withServerName(
        vector(
          2,
          Buffer.concat(
            [0, 1].flatMap(() => [Buffer.from([0]), vector(2, Buffer.from('a.example'))]),
          ),
        ),
      ),
      'more than one server name',
    ],
    [
      'a name past its list',
      withServerName(vector(2, Buffer.from([0, 0, 20, 97]))),
      'a host_name runs past the end of server_name_list',
    ],
    ['an empty name', withServerName(vector(2, Buffer.from([0, 0, 0]))), 'an empty server name'],
    [
      'a name with a space',
      withServerName(serverNameList('a.example evil')),
      'a server name with a byte that is not printable ASCII',
    ],
    [
      'a name with a NUL',
      withServerName(serverNameList('a.example\0.evil')),
      'a server name with a byte that is not printable ASCII',
    ],
    [
      'a name with a line break',
      withServerName(serverNameList('a.example\n::error::x')),
      'a server name with a byte that is not printable ASCII',
    ],
    [
      'a name with a byte above ASCII',
      withServerName(serverNameList('ex\u00e4mple.com')),
      'a server name with a byte that is not printable ASCII',
    ],
  ])('calls %s not a ClientHello it takes', (_what, bytes, why) => {
    expect(readClientHello(bytes)).toEqual(notTls(why));
  });

  it(`gives up on a hello still not whole after ${MAX_CLIENT_HELLO_BYTES} bytes or ${MAX_CLIENT_HELLO_RECORDS} records`, () => {
    const large = largeClientHello('a.example');
    // Whole within the limit in records of the most a record holds, not in 60.
    expect(readClientHello(refragment(large, 2 ** 14))).toEqual(named('a.example'));
    const spread = refragment(large, Math.ceil((large.length - 5) / 60));
    expect(spread.length).toBeGreaterThan(MAX_CLIENT_HELLO_BYTES);
    expect(readClientHello(spread.subarray(0, MAX_CLIENT_HELLO_BYTES - 1))).toEqual({
      kind: 'incomplete',
    });
    for (const bytes of [spread.subarray(0, MAX_CLIENT_HELLO_BYTES), spread])
      expect(readClientHello(bytes)).toEqual(
        notTls(`its ClientHello did not end within ${MAX_CLIENT_HELLO_BYTES} bytes`),
      );
    // In records of 1 byte (6 with the header): 64 whole records and no hello yet is too many.
    const fine = refragment(large, 1);
    expect(readClientHello(fine.subarray(0, MAX_CLIENT_HELLO_RECORDS * 6 - 1))).toEqual({
      kind: 'incomplete',
    });
    expect(readClientHello(fine.subarray(0, MAX_CLIENT_HELLO_RECORDS * 6))).toEqual(
      notTls(`its ClientHello did not end within ${MAX_CLIENT_HELLO_RECORDS} records`),
    );
  });
});
