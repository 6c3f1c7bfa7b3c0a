import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import {
  createServer,
  request,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import {
  connect,
  createServer as createTcpServer,
  isIP,
  type AddressInfo,
  type LookupFunction,
  type Socket,
} from 'node:net';
import { Duplex } from 'node:stream';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  MAX_UPSTREAMS,
  startEgressProxy,
  type EgressProxy,
} from '../../src/worker/egress-proxy.js';
import {
  MAX_CLIENT_HELLO_BYTES,
  MAX_CLIENT_HELLO_RECORDS,
} from '../../src/worker/tls-client-hello.js';
import { ACCESS_DENIED_ALERT, HELLO_TIMEOUT_MS } from '../../src/worker/tunnel-hello.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/tls-certificates.js';
import {
  clientHello,
  ENCRYPTED_CLIENT_HELLO,
  extension,
  largeClientHello,
  refragment,
} from './helpers/client-hello.js';

/**
 * The worker's egress proxy (docs/worker.md, "The agent's network") with a resolver of the test's
 * own: an allowed name that resolves to an address no public host has — the runner's loopback,
 * its cloud's metadata service, a network it sits in — is refused, unless that address is listed
 * itself, and the proxy connects to the addresses it checked. A CONNECT tunnel carries TLS whose
 * ClientHello names the host connected to, as Node's `tls.connect` writes it, and nothing else.
 * The agent's side, with the real netfilter rules: test/worker/agent-network.test.ts.
 */

let certificates: TestCertificates;
beforeAll(() => {
  certificates = makeTestCertificates(['DNS:*.example.test']);
});
afterAll(() => certificates.remove());

/**
 * A web server on a loopback address, over TLS (`tls`) or plain HTTP: it says which, and records
 * the paths it heard.
 */
async function startHost(
  address: string,
  { port = 0, tls = false }: { port?: number; tls?: boolean } = {},
): Promise<{ server: Server; port: number; heard: string[] }> {
  const heard: string[] = [];
  const answer = (req: IncomingMessage, res: ServerResponse) => {
    heard.push(req.url!);
    req.resume();
    res.end(`host ${address} ${req.headers.host}`);
  };
  const server = tls
    ? createHttpsServer(
        { cert: readFileSync(certificates.certFile), key: readFileSync(certificates.keyFile) },
        answer,
      )
    : createServer(answer);
  server.listen(port, address);
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, heard };
}

/**
 * A host that records the bytes it hears and hangs up at the first: a tunnel the proxy refuses
 * gives it none, and one it lets through fails at once rather than waiting on an answer.
 */
async function startRecorder(address: string) {
  const heard: Buffer[] = [];
  const closed: Promise<unknown>[] = [];
  const server = createTcpServer((socket) => {
    closed.push(once(socket, 'close'));
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      heard.push(chunk);
      socket.destroy();
    });
  }).listen(0, address);
  await once(server, 'listening');
  return {
    server,
    port: (server.address() as AddressInfo).port,
    /** The bytes it heard, once each connection it took has closed. */
    async heard(connections: number): Promise<number> {
      await vi.waitFor(() => expect(closed).toHaveLength(connections));
      await Promise.all(closed);
      return Buffer.concat(heard).length;
    },
  };
}

/** A resolver answering `answers(name, n)` for the nth question about a name, counting them. */
function resolver(answers: (name: string, n: number) => string[]) {
  const asked: string[] = [];
  const lookup: LookupFunction = (name, options, callback) => {
    asked.push(name);
    const all = answers(name, asked.filter((n) => n === name).length).map((address) => ({
      address,
      family: address.includes(':') ? 6 : 4,
    }));
    if (options.all) callback(null, all);
    else callback(null, all[0]!.address, all[0]!.family);
  };
  return { lookup, asked };
}

/** Everything `socket` sends until it ends. */
async function readAll(socket: Socket, head = ''): Promise<string> {
  let text = head;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  await once(socket, 'end');
  return text;
}

/** `CONNECT target` through the proxy: its answer, and the tunnel's socket when it opened one. */
async function connectThrough(
  proxy: EgressProxy,
  target: string,
): Promise<{ status: number; text: string; socket: Socket }> {
  const req = request(proxy.url, { method: 'CONNECT', path: target });
  req.end();
  const [res, socket, head] = (await once(req, 'connect')) as [
    { statusCode: number },
    Socket,
    Buffer,
  ];
  const text = res.statusCode === 200 ? '' : await readAll(socket, head.toString('utf8'));
  return { status: res.statusCode, text, socket };
}

/** What `socket` sends until it closes, however it closes. */
async function readUntilClosed(socket: Socket): Promise<Buffer> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  // A reset is a way to close: the proxy hangs up on bytes it did not read.
  socket.on('error', () => undefined);
  if (!socket.closed) await new Promise((resolve) => socket.once('close', resolve));
  return Buffer.concat(chunks);
}

/** TLS over `socket`, checking the server by `name` (sent as its SNI unless an address). */
function tlsOver(
  socket: Duplex,
  name: string,
  servername = isIP(name) === 0 ? name : undefined,
): TLSSocket {
  return tlsConnect({ socket, host: name, servername, ca: readFileSync(certificates.caFile) });
}

/** How the TLS handshake of `secure` ends: `connected`, or its error's code. */
function handshake(secure: TLSSocket): Promise<string> {
  return new Promise((resolve) => {
    secure.once('secureConnect', () => resolve('connected'));
    secure.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** A GET over an open tunnel's TLS: the host's answer. */
async function getThrough(secure: TLSSocket, host: string): Promise<string> {
  expect(await handshake(secure)).toBe('connected');
  secure.write(`GET /via-connect HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`);
  const answer = await readAll(secure);
  return answer.slice(answer.indexOf('\r\n\r\n') + 4);
}

/** `socket` as a stream that writes what it is given one byte at a time, each flushed alone. */
function byteByByte(socket: Socket): Duplex {
  socket.setNoDelay(true);
  const stream = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, done) {
      const next = (at: number) => {
        if (at === chunk.length) return done();
        socket.write(chunk.subarray(at, at + 1), () => setImmediate(next, at + 1));
      };
      next(0);
    },
  });
  socket.on('data', (chunk: Buffer) => stream.push(chunk));
  socket.on('end', () => stream.push(null));
  return stream;
}

/** A GET of an absolute http:// URL through the proxy: its status and body. */
async function getAbsolute(
  proxy: EgressProxy,
  url: string,
): Promise<{ status: number; text: string }> {
  const req = request(proxy.url, { path: url, headers: { host: new URL(url).host } });
  req.end();
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => (text += chunk));
  await once(res, 'end');
  return { status: res.statusCode!, text };
}

describe("the worker's egress proxy", () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const start = async (allow: string[], lookup: LookupFunction) => {
    const refused: [string, string][] = [];
    const proxy = await startEgressProxy({
      allow,
      lookup,
      refused: (host, reason) => refused.push([host, reason]),
    });
    cleanups.push(() => proxy.close());
    return { proxy, refused };
  };
  const host = async (address: string, options?: { port?: number; tls?: boolean }) => {
    const started = await startHost(address, options);
    cleanups.push(() => started.server.close());
    return started;
  };
  const recorder = async () => {
    const started = await startRecorder('127.0.0.1');
    cleanups.push(() => started.server.close());
    return started;
  };

  describe('refuses an allowed name that resolves to an address no public host has', () => {
    it.each([
      ['169.254.169.254', 'cloud metadata (link-local)'],
      ['fd00:ec2::254', 'cloud metadata over IPv6 (unique-local)'],
      ['127.0.0.1', 'loopback'],
      ['::1', 'IPv6 loopback'],
      ['fd00::1', 'unique-local'],
      ['fe80::1', 'IPv6 link-local'],
      ['10.0.0.1', 'private'],
      ['172.16.5.4', 'private'],
      ['192.168.1.1', 'private'],
      ['100.64.0.1', 'carrier-grade NAT'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'IPv6 unspecified'],
      ['224.0.0.1', 'multicast'],
      ['ff02::1', 'IPv6 multicast'],
      ['::ffff:10.0.0.1', 'IPv4-mapped private'],
      ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata, in hex'],
      ['64:ff9b::a9fe:a9fe', 'metadata through NAT64'],
    ])('%s (%s), over CONNECT and as an absolute URL', async (address) => {
      const { lookup } = resolver(() => [address]);
      const { proxy, refused } = await start(['*.example.test'], lookup);
      const reason = `it resolves to ${address}, not a public address`;
      const text = `agent-coordinator: meta.example.test resolves to ${address}, not a public address (list the address itself in worker.network.allow to allow it)\n`;
      expect(await connectThrough(proxy, 'meta.example.test:80')).toMatchObject({
        status: 403,
        text,
      });
      expect(await getAbsolute(proxy, 'http://meta.example.test/latest/meta-data/')).toEqual({
        status: 403,
        text,
      });
      // Named in the log once.
      expect(refused).toEqual([['meta.example.test', reason]]);
    });

    it('when any one of its answers is such an address', async () => {
      const local = await host('127.0.0.1');
      const { lookup } = resolver(() => ['93.184.215.14', '127.0.0.1']);
      const { proxy } = await start(['*.example.test'], lookup);
      expect(await connectThrough(proxy, `mixed.example.test:${local.port}`)).toMatchObject({
        status: 403,
      });
      expect(local.heard).toEqual([]);
    });
  });

  it('takes an allowed name to an address the list names itself, and to no other it resolves to later (DNS rebinding)', async () => {
    const listed = { https: await host('127.0.0.1', { tls: true }), http: await host('127.0.0.1') };
    // Not listed, on the same ports: the runner's metadata service, say.
    const other = {
      https: await host('127.0.0.2', { port: listed.https.port, tls: true }),
      http: await host('127.0.0.2', { port: listed.http.port }),
    };
    // Each name's first answer is the listed address, every later one the other.
    const { lookup, asked } = resolver((_name, n) => (n === 1 ? ['127.0.0.1'] : ['127.0.0.2']));
    const { proxy, refused } = await start(['*.example.test', '127.0.0.1'], lookup);
    const tunnel = await connectThrough(proxy, `svc.example.test:${listed.https.port}`);
    expect(tunnel.status).toBe(200);
    const secure = tlsOver(tunnel.socket, 'svc.example.test');
    expect(await getThrough(secure, `svc.example.test:${listed.https.port}`)).toBe(
      `host 127.0.0.1 svc.example.test:${listed.https.port}`,
    );
    expect(
      await getAbsolute(proxy, `http://web.example.test:${listed.http.port}/via-absolute`),
    ).toEqual({ status: 200, text: `host 127.0.0.1 web.example.test:${listed.http.port}` });
    // One question a request, and its answer is where the proxy went.
    expect(asked).toEqual(['svc.example.test', 'web.example.test']);
    expect(listed.https.heard).toEqual(['/via-connect']);
    expect(listed.http.heard).toEqual(['/via-absolute']);
    expect([...other.https.heard, ...other.http.heard]).toEqual([]);
    expect(refused).toEqual([]);
  });

  it(`holds at most ${MAX_UPSTREAMS} connections upstream at once, and answers one more with 503`, async () => {
    const listed = await host('127.0.0.1');
    const { lookup, asked } = resolver(() => ['127.0.0.1']);
    const { proxy } = await start(['127.0.0.1'], lookup);
    const target = `127.0.0.1:${listed.port}`;
    const tunnels: Socket[] = [];
    for (let i = 0; i < MAX_UPSTREAMS; i++) {
      const tunnel = await connectThrough(proxy, target);
      expect(tunnel.status).toBe(200);
      tunnels.push(tunnel.socket);
    }
    expect(await connectThrough(proxy, target)).toMatchObject({
      status: 503,
      text: `agent-coordinator: the proxy holds ${MAX_UPSTREAMS} connections already\n`,
    });
    expect(await getAbsolute(proxy, `http://${target}/`)).toMatchObject({ status: 503 });
    // A tunnel closed is one more to open.
    tunnels.pop()!.destroy();
    await vi.waitFor(async () => expect((await connectThrough(proxy, target)).status).toBe(200));
    for (const tunnel of tunnels) tunnel.destroy();
    // An address listed is connected to as it is: no resolver asked.
    expect(asked).toEqual([]);
  });

  it(`closes the agent's connections to it beyond ${2 * MAX_UPSTREAMS}, idle or not`, async () => {
    const { lookup } = resolver(() => []);
    const { proxy } = await start([], lookup);
    const { port } = new URL(proxy.url);
    const open = async () => {
      const socket = connect(Number(port), '127.0.0.1');
      cleanups.push(() => socket.destroy());
      await once(socket, 'connect');
      return socket;
    };
    for (let i = 0; i < 2 * MAX_UPSTREAMS; i++) await open();
    const extra = await open();
    await once(extra, 'close');
  });

  describe('lets a CONNECT tunnel carry only TLS whose ClientHello names the host connected to', () => {
    const tunnelTo = async (target: string) => {
      const { lookup } = resolver(() => ['127.0.0.1']);
      const started = await start(['*.example.test', '127.0.0.1'], lookup);
      const tunnel = await connectThrough(started.proxy, target);
      expect(tunnel.status).toBe(200);
      return { ...started, socket: tunnel.socket };
    };

    it.each([
      ['svc.example.test', 'svc.example.test', 'the same name'],
      ['svc.example.test', 'SVC.Example.Test.', 'in capitals, with a final dot'],
      ['127.0.0.1', undefined, 'no name, to an address'],
    ])(
      'CONNECT %s with the server name %s (%s): TLS runs end to end',
      async (name, servername, _what) => {
        const upstream = await host('127.0.0.1', { tls: true });
        const { socket, refused } = await tunnelTo(`${name}:${upstream.port}`);
        const secure = tlsOver(socket, name, servername);
        expect(await getThrough(secure, `${name}:${upstream.port}`)).toBe(
          `host 127.0.0.1 ${name}:${upstream.port}`,
        );
        expect(upstream.heard).toEqual(['/via-connect']);
        expect(refused).toEqual([]);
      },
    );

    it.each([
      [
        'svc.example.test',
        'other.example.test',
        "the tunnel's TLS server name is other.example.test",
      ],
      [
        'svc.example.test',
        'svc.example.test.evil',
        "the tunnel's TLS server name is svc.example.test.evil",
      ],
      ['127.0.0.1', 'other.example.test', "the tunnel's TLS server name is other.example.test"],
      ['svc.example.test', '', "the tunnel's TLS ClientHello names no server"],
    ])(
      'refuses CONNECT %s with the server name "%s": access denied, and the upstream hears nothing',
      async (name, servername, reason) => {
        const upstream = await recorder();
        const { socket, refused } = await tunnelTo(`${name}:${upstream.port}`);
        expect(await handshake(tlsOver(socket, 'other.example.test', servername))).toBe(
          'ERR_SSL_TLSV1_ALERT_ACCESS_DENIED',
        );
        expect(refused).toEqual([[name, reason]]);
        expect(await upstream.heard(1)).toBe(0);
      },
    );

    it.each([
      [
        'plain HTTP',
        Buffer.from('GET / HTTP/1.1\r\nhost: other.example.test\r\n\r\n'),
        "the tunnel does not begin with a TLS ClientHello: its first byte is 71, not a TLS handshake record's (22)",
      ],
      [
        'SSH',
        Buffer.from('SSH-2.0-OpenSSH_9.6\r\n'),
        "the tunnel does not begin with a TLS ClientHello: its first byte is 83, not a TLS handshake record's (22)",
      ],
      [
        'a malformed record',
        Buffer.from([22, 3, 1, 0xff, 0xff]),
        'the tunnel does not begin with a TLS ClientHello: a record of 65535 bytes, more than 16384',
      ],
      [
        'a ClientHello larger than the proxy reads',
        Buffer.from([22, 3, 1, 0, 4, 1, 0x10, 0, 0]),
        `the tunnel does not begin with a TLS ClientHello: a ClientHello of 1048576 bytes, more than ${MAX_CLIENT_HELLO_BYTES} with its records`,
      ],
      [
        `a ClientHello not whole after ${MAX_CLIENT_HELLO_BYTES} bytes`,
        refragment(largeClientHello('svc.example.test'), 1100),
        `the tunnel does not begin with a TLS ClientHello: its ClientHello did not end within ${MAX_CLIENT_HELLO_BYTES} bytes`,
      ],
      [
        `a ClientHello in more than ${MAX_CLIENT_HELLO_RECORDS} records`,
        refragment(clientHello('svc.example.test'), 1),
        `the tunnel does not begin with a TLS ClientHello: its ClientHello did not end within ${MAX_CLIENT_HELLO_RECORDS} records`,
      ],
    ])(
      'refuses %s: the tunnel closes, and the upstream hears nothing',
      async (_what, bytes, reason) => {
        const upstream = await recorder();
        const { socket, refused } = await tunnelTo(`svc.example.test:${upstream.port}`);
        socket.write(bytes);
        expect((await readUntilClosed(socket)).length).toBe(0);
        expect(refused).toEqual([['svc.example.test', reason]]);
        expect(await upstream.heard(1)).toBe(0);
      },
    );

    // The outer name binds nothing: the server opens the inner hello, which names any site it
    // serves, with the configuration its config_id names. Chromium's GREASE form looks the same.
    it.each([
      ['Encrypted Client Hello', ENCRYPTED_CLIENT_HELLO],
      ['ESNI', 0xffce],
    ])('refuses %s, though its name in the clear is where the tunnel goes', async (_what, type) => {
      const upstream = await recorder();
      const { socket, refused } = await tunnelTo(`svc.example.test:${upstream.port}`);
      socket.write(clientHello('svc.example.test', extension(type, Buffer.alloc(200, 5))));
      expect(await readUntilClosed(socket)).toEqual(ACCESS_DENIED_ALERT);
      expect(refused).toEqual([
        [
          'svc.example.test',
          "the tunnel's TLS ClientHello hides its server name (Encrypted Client Hello)",
        ],
      ]);
      expect(await upstream.heard(1)).toBe(0);
    });

    it('reads a ClientHello written one byte at a time', async () => {
      const upstream = await host('127.0.0.1', { tls: true });
      const { socket, refused } = await tunnelTo(`svc.example.test:${upstream.port}`);
      const secure = tlsOver(byteByByte(socket), 'svc.example.test');
      expect(await getThrough(secure, 'svc.example.test')).toBe('host 127.0.0.1 svc.example.test');
      expect(refused).toEqual([]);
    });

    it(`closes a tunnel whose ClientHello is not whole ${HELLO_TIMEOUT_MS / 1000} s after it opened, and clears the timer of one that is`, async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      cleanups.push(() => vi.useRealTimers());
      const upstream = await host('127.0.0.1', { tls: true });
      const { lookup } = resolver(() => ['127.0.0.1']);
      const { proxy, refused } = await start(['*.example.test', '127.0.0.1'], lookup);
      const target = `svc.example.test:${upstream.port}`;
      const whole = await connectThrough(proxy, target);
      const secure = tlsOver(whole.socket, 'svc.example.test');
      expect(await getThrough(secure, target)).toBe(`host 127.0.0.1 ${target}`);
      expect(vi.getTimerCount()).toBe(0);

      const stalled = await connectThrough(proxy, target);
      stalled.socket.write(clientHello('svc.example.test').subarray(0, 20));
      expect(vi.getTimerCount()).toBe(1);
      vi.advanceTimersByTime(HELLO_TIMEOUT_MS);
      expect((await readUntilClosed(stalled.socket)).length).toBe(0);
      expect(refused).toEqual([
        [
          'svc.example.test',
          `the tunnel sent no whole TLS ClientHello within ${HELLO_TIMEOUT_MS / 1000} s`,
        ],
      ]);
      expect(upstream.heard).toEqual(['/via-connect']);
    });

    it(`releases each refused tunnel's upstream: ${MAX_UPSTREAMS + 1} refused, then one that passes`, async () => {
      const upstream = await host('127.0.0.1', { tls: true });
      const { lookup } = resolver(() => ['127.0.0.1']);
      const { proxy } = await start(['*.example.test', '127.0.0.1'], lookup);
      const target = `svc.example.test:${upstream.port}`;
      // A tunnel closed is released as its upstream closes, which may come a moment later.
      const open = () =>
        vi.waitFor(async () => {
          const tunnel = await connectThrough(proxy, target);
          expect(tunnel.status).toBe(200);
          return tunnel.socket;
        });
      for (let i = 0; i <= MAX_UPSTREAMS; i++) {
        const socket = await open();
        socket.write('GET / HTTP/1.1\r\n\r\n');
        await readUntilClosed(socket);
      }
      const secure = tlsOver(await open(), 'svc.example.test');
      expect(await getThrough(secure, target)).toBe(`host 127.0.0.1 ${target}`);
    });
  });
});
