import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type LookupFunction, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  MAX_UPSTREAMS,
  startEgressProxy,
  type EgressProxy,
} from '../../src/worker/egress-proxy.js';

/**
 * The worker's egress proxy (docs/worker.md, "The agent's network") with a resolver of the test's
 * own: an allowed name that resolves to an address no public host has — the runner's loopback,
 * its cloud's metadata service, a network it sits in — is refused, unless that address is listed
 * itself, and the proxy connects to the addresses it checked. The agent's side, with the real
 * netfilter rules: test/worker/agent-network.test.ts.
 */

/** A web server on a loopback address: it says which, and records the paths it heard. */
async function startHost(
  address: string,
  port = 0,
): Promise<{ server: Server; port: number; heard: string[] }> {
  const heard: string[] = [];
  const server = createServer((req, res) => {
    heard.push(req.url!);
    req.resume();
    res.end(`host ${address} ${req.headers.host}`);
  }).listen(port, address);
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, heard };
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

/** A GET through an open tunnel: the host's answer. */
async function getThrough(socket: Socket, host: string): Promise<string> {
  socket.write(`GET /via-connect HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`);
  const answer = await readAll(socket);
  return answer.slice(answer.indexOf('\r\n\r\n') + 4);
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
  const host = async (address: string, port?: number) => {
    const started = await startHost(address, port);
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
    const listed = await host('127.0.0.1');
    // Not listed, on the same port: the runner's metadata service, say.
    const other = await host('127.0.0.2', listed.port);
    // Each name's first answer is the listed address, every later one the other.
    const { lookup, asked } = resolver((_name, n) => (n === 1 ? ['127.0.0.1'] : ['127.0.0.2']));
    const { proxy, refused } = await start(['*.example.test', '127.0.0.1'], lookup);
    const tunnel = await connectThrough(proxy, `svc.example.test:${listed.port}`);
    expect(tunnel.status).toBe(200);
    expect(await getThrough(tunnel.socket, `svc.example.test:${listed.port}`)).toBe(
      `host 127.0.0.1 svc.example.test:${listed.port}`,
    );
    expect(await getAbsolute(proxy, `http://web.example.test:${listed.port}/via-absolute`)).toEqual(
      { status: 200, text: `host 127.0.0.1 web.example.test:${listed.port}` },
    );
    // One question a request, and its answer is where the proxy went.
    expect(asked).toEqual(['svc.example.test', 'web.example.test']);
    expect(listed.heard).toEqual(['/via-connect', '/via-absolute']);
    expect(other.heard).toEqual([]);
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
});
