import { once } from 'node:events';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { connect, isIP, type AddressInfo, type LookupFunction, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { hostAllowed } from '../protocol/network.js';
import { isPublicAddress } from './public-address.js';
import { ACCESS_DENIED_ALERT, awaitClientHello } from './tunnel-hello.js';

/**
 * The agent's one way off the machine while its network is closed (docs/worker.md, "The agent's
 * network"): an HTTP proxy of the worker's, on the loopback interface, that takes the agent to the
 * hosts `worker.network.allow` lists and to no other. HTTPS goes through `CONNECT host:port` (a
 * tunnel: the proxy sees the host, and the TLS ClientHello that must name it (tunnel-hello.ts),
 * never what passes after), plain HTTP as a request for an absolute URL. It runs as the worker's
 * user, which the agent's netfilter rules do not hold back.
 *
 * Node's http server hands both over as they are (its `connect` event, and `req.url` holding the
 * absolute URL), so the proxy is these two handlers rather than a dependency: proxy-chain, the
 * well-kept library for it, would bring SOCKS and upstream-proxy chaining into the committed
 * bundle for nothing, and the checks that matter here — the host connected to is the host
 * matched, and the addresses connected to are the addresses checked — are easiest to see in one
 * short function (`admit`).
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
  /** Told each refused host once, as the agent wrote it, with why (`not in worker.network.allow`). */
  refused(host: string, reason: string): void;
  /** How names are resolved (tests answer for hosts of their own); the system's resolver by default. */
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

/**
 * At most this many connections to upstream hosts at once; one more gets 503. Each holds a file
 * descriptor of the worker's, and an agent that uses them all up keeps the worker from cleaning
 * up after it (docs/worker.md, "The agent's network").
 */
export const MAX_UPSTREAMS = 64;

/**
 * At most this many of the agent's connections to the proxy at once; Node closes each one more as
 * it comes. A connection holds one upstream at a time, so these are the idle ones besides.
 */
const MAX_CLIENTS = 2 * MAX_UPSTREAMS;

/** Where a host the agent asked for goes: an upstream to open, or the answer refusing it. */
type Way = { lookup: LookupFunction | undefined; release(): void } | Refusal;
interface Refusal {
  status: 403 | 502 | 503;
  text: string;
}

export async function startEgressProxy(options: EgressOptions): Promise<EgressProxy> {
  const sockets = new Set<Duplex>();
  const track = (socket: Duplex) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const told = new Set<string>();
  const tell = (host: string, reason: string) => {
    if (!told.has(host) && told.size < MAX_NAMED_REFUSALS) {
      told.add(host);
      options.refused(host, reason);
    }
  };
  const refuse = (host: string, reason: string, text: string): Refusal => {
    tell(host, reason);
    return { status: 403, text: `agent-coordinator: ${text}` };
  };
  const lookup = options.lookup ?? (dnsLookup as LookupFunction);
  let upstreams = 0;

  /**
   * The host's way: allowed by the list, and, for a name, every address it resolves to public or
   * listed itself (an operator who lists `10.0.0.5` means it). The upstream is then opened with
   * those very addresses, never a second answer: a name rebound between the check and the
   * connection gets nowhere new.
   */
  const admit = async (host: string): Promise<Way> => {
    if (!hostAllowed(options.allow, host))
      return refuse(host, 'not in worker.network.allow', `${host} is not in worker.network.allow`);
    if (upstreams >= MAX_UPSTREAMS)
      return {
        status: 503,
        text: `agent-coordinator: the proxy holds ${MAX_UPSTREAMS} connections already`,
      };
    upstreams += 1;
    let held = true;
    const release = () => {
      if (held) upstreams -= 1;
      held = false;
    };
    // An address the list allows is listed itself.
    if (isIP(host) !== 0) return { lookup: undefined, release };
    let answers: LookupAddress[];
    try {
      answers = await resolveAll(lookup, host);
    } catch (error) {
      release();
      return {
        status: 502,
        text: `agent-coordinator: ${host} did not answer: ${(error as Error).message}`,
      };
    }
    const barred = answers.find(
      ({ address }) => !isPublicAddress(address) && !hostAllowed(options.allow, address),
    );
    if (!barred) return { lookup: pinned(answers), release };
    release();
    return refuse(
      host,
      `it resolves to ${barred.address}, not a public address`,
      `${host} resolves to ${barred.address}, not a public address (list the address itself in worker.network.allow to allow it)`,
    );
  };

  const server = createServer((req, res) => forward(req, res, admit, track));
  server.maxConnections = MAX_CLIENTS;
  server.on('connection', track);
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) =>
    tunnel(req, client, head, admit, track, tell),
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

/** Every address the resolver gives for `host`; none is an error. */
function resolveAll(lookup: LookupFunction, host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    lookup(host, { all: true }, (error, answer, family) => {
      if (error) return reject(error);
      const answers = Array.isArray(answer) ? answer : [{ address: answer, family: family ?? 0 }];
      if (answers.length === 0) reject(new Error('no address'));
      else resolve(answers);
    }),
  );
}

/** A resolver that gives the addresses checked, and nothing else. */
function pinned(answers: LookupAddress[]): LookupFunction {
  return (_host, options, callback) => {
    if (options.all) callback(null, answers);
    else callback(null, answers[0]!.address, answers[0]!.family);
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
  admit: (host: string) => Promise<Way>,
  track: (socket: Duplex) => void,
  tell: (host: string, reason: string) => void,
): void {
  track(client);
  client.on('error', () => client.destroy());
  const target = authority(req.url);
  if (!target) return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
  void admit(target.host).then((way) => {
    if ('status' in way) return void client.end(refusedAnswer(way));
    if (client.destroyed) return way.release();
    const upstream: Socket = connect({ host: target.host, port: target.port, lookup: way.lookup });
    track(upstream);
    upstream.once('close', way.release);
    // The upstream is connected before the answer, so that a host that does not answer gets 502
    // and why; it gets none of the agent's bytes before they are checked (docs/worker.md, "The
    // agent's network"). Each way out of here closes the client, and so the upstream, which
    // releases the way.
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      void awaitClientHello(client, head, target.host).then((start) => {
        if (start.kind === 'closed') return void client.destroy();
        if (start.kind === 'refused') {
          tell(target.host, start.reason);
          if (start.alert) client.end(ACCESS_DENIED_ALERT, () => client.destroy());
          else client.destroy();
          return;
        }
        upstream.write(start.bytes);
        upstream.pipe(client);
        client.pipe(upstream);
      });
    });
    upstream.on('error', (error) => {
      if (upstream.connecting) client.end(`HTTP/1.1 502 Bad Gateway\r\n\r\n${error.message}\n`);
      else client.destroy();
    });
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
}

function forward(
  req: IncomingMessage,
  res: ServerResponse,
  admit: (host: string) => Promise<Way>,
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
  void admit(host).then((way) => {
    if ('status' in way) return answer(way.status, way.text);
    // The upstream is the URL's host, and so is the Host header: one the agent wrote could name
    // another site on the same server. No keep-alive pool: a connection is one of MAX_UPSTREAMS
    // only while it serves this request.
    const out = httpRequest({
      host,
      port: url.port || 80,
      path: `${url.pathname}${url.search}`,
      method: req.method,
      headers: { ...endToEnd(req.headers), host: url.host },
      lookup: way.lookup,
      agent: false,
    });
    out.on('socket', (socket) => {
      track(socket);
      socket.once('close', way.release);
    });
    out.on('response', (upstream) => {
      res.writeHead(upstream.statusCode ?? 502, endToEnd(upstream.headers));
      upstream.pipe(res);
    });
    out.on('error', (error) => {
      way.release();
      if (!res.headersSent)
        answer(502, `agent-coordinator: ${host} did not answer: ${error.message}`);
      else res.destroy();
    });
    req.pipe(out);
  });
}

function endToEnd(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP_BY_HOP.has(name) && name !== 'host') out[name] = value;
  return out;
}

const REASONS = { 403: 'Forbidden', 502: 'Bad Gateway', 503: 'Service Unavailable' } as const;

function refusedAnswer({ status, text }: Refusal): string {
  const body = `${text}\n`;
  return `HTTP/1.1 ${status} ${REASONS[status]}\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}
