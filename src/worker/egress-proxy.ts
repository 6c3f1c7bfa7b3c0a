import { once } from 'node:events';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { connect, type AddressInfo, type LookupFunction, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { hostAllowed } from '../protocol/network.js';

/**
 * The agent's one way off the machine while its network is closed (docs/worker.md, "The agent's
 * network"): an HTTP proxy of the worker's, on the loopback interface, that takes the agent to the
 * hosts `worker.network.allow` lists and to no other. HTTPS goes through `CONNECT host:port` (a
 * tunnel: the proxy sees the host, never what passes), plain HTTP as a request for an absolute
 * URL. It runs as the worker's user, which the agent's netfilter rules do not hold back.
 *
 * Node's http server hands both over as they are (its `connect` event, and `req.url` holding the
 * absolute URL), so the proxy is these two handlers rather than a dependency: proxy-chain, the
 * well-kept library for it, would bring SOCKS and upstream-proxy chaining into the committed
 * bundle for nothing, and the check that matters here — the host connected to is the host
 * matched — is easiest to see when it is one line.
 */
export interface EgressProxy {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** What the agent's environment gets: the proxy for http and https, loopback without it. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export interface EgressOptions {
  /** `worker.network.allow`, as the assignment gave it. */
  allow: readonly string[];
  /** Told each refused host once, as the agent wrote it. */
  refused(host: string): void;
  /** How names are resolved (tests name hosts of their own); the system's resolver by default. */
  lookup?: LookupFunction;
}

/** Loopback, which the agent reaches itself: the API-key proxy is there. */
const NO_PROXY = '127.0.0.1,localhost,::1';

// Hop-by-hop headers (RFC 9110 §7.6.1): the proxy's to read, never the upstream's.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** At most this many refused hosts are named in the log, each once. */
const MAX_NAMED_REFUSALS = 100;

export async function startEgressProxy(options: EgressOptions): Promise<EgressProxy> {
  const sockets = new Set<Duplex>();
  const track = (socket: Duplex) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const told = new Set<string>();
  const allowed = (host: string): boolean => {
    if (hostAllowed(options.allow, host)) return true;
    if (!told.has(host) && told.size < MAX_NAMED_REFUSALS) {
      told.add(host);
      options.refused(host);
    }
    return false;
  };

  const server = createServer((req, res) => forward(req, res, allowed, options.lookup, track));
  server.on('connection', track);
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) =>
    tunnel(req, client, head, allowed, options.lookup, track),
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    env: {
      HTTPS_PROXY: url,
      HTTP_PROXY: url,
      https_proxy: url,
      http_proxy: url,
      NO_PROXY,
      no_proxy: NO_PROXY,
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

/** `host:port` of a CONNECT request (`[v6]:port` for IPv6), or undefined. */
function authority(target: string | undefined): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/@]+):(\d{1,5})$/.exec(target ?? '');
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65535) return undefined;
  return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port };
}

function tunnel(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  allowed: (host: string) => boolean,
  lookup: LookupFunction | undefined,
  track: (socket: Duplex) => void,
): void {
  track(client);
  client.on('error', () => client.destroy());
  const target = authority(req.url);
  if (!target) return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
  if (!allowed(target.host)) return void client.end(refusedAnswer(target.host));
  const upstream: Socket = connect({ host: target.host, port: target.port, lookup });
  track(upstream);
  upstream.once('connect', () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', (error) => {
    if (upstream.connecting) client.end(`HTTP/1.1 502 Bad Gateway\r\n\r\n${error.message}\n`);
    else client.destroy();
  });
  client.once('close', () => upstream.destroy());
  upstream.once('close', () => client.destroy());
}

function forward(
  req: IncomingMessage,
  res: ServerResponse,
  allowed: (host: string) => boolean,
  lookup: LookupFunction | undefined,
  track: (socket: Duplex) => void,
): void {
  const answer = (status: number, text: string) => {
    req.resume();
    res.writeHead(status, { 'content-type': 'text/plain', connection: 'close' });
    res.end(`${text}\n`);
  };
  let url: URL;
  try {
    url = new URL(req.url ?? '');
  } catch {
    return answer(400, 'agent-coordinator: a proxy request names an absolute http:// URL');
  }
  if (url.protocol !== 'http:')
    return answer(400, 'agent-coordinator: a proxy request names an absolute http:// URL');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!allowed(host)) return answer(403, refusedText(host));
  // The upstream is the URL's host, and so is the Host header: one the agent wrote could name
  // another site on the same server.
  const out = httpRequest({
    host,
    port: url.port || 80,
    path: `${url.pathname}${url.search}`,
    method: req.method,
    headers: { ...endToEnd(req.headers), host: url.host },
    lookup,
  });
  out.on('socket', track);
  out.on('response', (upstream) => {
    res.writeHead(upstream.statusCode ?? 502, endToEnd(upstream.headers));
    upstream.pipe(res);
  });
  out.on('error', (error) => {
    if (!res.headersSent)
      answer(502, `agent-coordinator: ${host} did not answer: ${error.message}`);
    else res.destroy();
  });
  req.pipe(out);
}

function endToEnd(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP_BY_HOP.has(name) && name !== 'host') out[name] = value;
  return out;
}

function refusedText(host: string): string {
  return `agent-coordinator: ${host} is not in worker.network.allow`;
}

function refusedAnswer(host: string): string {
  const body = `${refusedText(host)}\n`;
  return `HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}
