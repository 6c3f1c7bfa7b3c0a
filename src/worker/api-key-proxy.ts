import { randomBytes, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import {
  type ClientRequest,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Usage } from '../protocol/markers.js';
import { closedNetworkRefusal, fetchingRequest, MAX_CHECKED_BODY } from './api-request-check.js';
import { createUsageMeter, readableEncodings, type UsageMeter } from './api-usage.js';
import { type CustomHeaders, parseCustomHeaders } from './custom-headers.js';

/**
 * The agent's API credentials stay with the worker (docs/worker.md, "Threat model"): the agent gets
 * the address of this proxy, on the loopback interface, and a placeholder made for the run in
 * place of each credential; the proxy forwards each request to the one upstream it was given with
 * the real credential in its place. An agent talked into sending its environment anywhere sends
 * placeholders, which are worth nothing once the job ends. The same design keeps LLM keys out of
 * the agent's container in GitHub's agentic workflows firewall (gh-aw's api-proxy).
 */
export interface ApiKeyProxy {
  /** The variables whose credentials the proxy keeps from the agent. */
  held: HeldName[];
  /** What the agent's environment gets instead of the credentials. */
  env: { ANTHROPIC_BASE_URL: string } & Partial<Record<HeldName, string>>;
  /** For the worker's log: what of the job's variables the proxy left out. */
  notes: string[];
  /**
   * Stops taking requests and reads on the answers still coming for a while (DRAIN_MS), or until
   * `cut` resolves (a run cancelled: docs/worker.md); then cuts them.
   */
  close(options?: { cut?: Promise<void> }): Promise<void>;
  /**
   * After close: the usage the API's responses showed (src/worker/api-usage.ts), or undefined
   * when none did.
   */
  measured(): Promise<Usage | undefined>;
  /** What the responses showed so far, at once, whether or not they have ended. */
  measuredSoFar(): Usage | undefined;
}

/**
 * The credentials Claude Code sends to `ANTHROPIC_BASE_URL`, and how: an API key in `x-api-key`,
 * a gateway's token (`ANTHROPIC_AUTH_TOKEN`) and a subscription's OAuth token
 * (`CLAUDE_CODE_OAUTH_TOKEN`, as `claude setup-token` makes it) as `Authorization: Bearer`. The
 * OAuth token's placeholder starts as such tokens do (`sk-ant-oat`), which Claude Code reads as
 * "an OAuth token" (it then asks for the API's `oauth-2025-04-20` beta).
 */
const CREDENTIALS = [
  { name: 'ANTHROPIC_API_KEY', header: 'x-api-key', bearer: false, prefix: 'sk-ant-' },
  { name: 'ANTHROPIC_AUTH_TOKEN', header: 'authorization', bearer: true, prefix: '' },
  {
    name: 'CLAUDE_CODE_OAUTH_TOKEN',
    header: 'authorization',
    bearer: true,
    prefix: 'sk-ant-oat01-',
  },
] as const;

type Credential = (typeof CREDENTIALS)[number];
type CredentialName = Credential['name'];

/**
 * Headers Claude Code adds to each request to `ANTHROPIC_BASE_URL`, where an LLM gateway's users
 * put its credential (Cloudflare AI Gateway's `cf-aig-authorization`, Portkey's
 * `x-portkey-api-key`): the agent gets each name with a placeholder as its value.
 */
const CUSTOM_HEADERS = 'ANTHROPIC_CUSTOM_HEADERS';
export type HeldName = CredentialName | typeof CUSTOM_HEADERS;

/** The job's custom headers, and the one placeholder that stands for each of their values. */
interface HeldHeaders {
  headers: Map<string, string>;
  placeholder: string;
}

interface Held {
  credential: Credential;
  value: string;
  placeholder: string;
}

function placeholder(prefix: string): string {
  return `${prefix}agent-coordinator-${randomBytes(24).toString('hex')}`;
}

/** The Messages API, unless the job names another (`ANTHROPIC_BASE_URL`). */
const DEFAULT_UPSTREAM = 'https://api.anthropic.com';

/**
 * What frames a request, or governs the connection it goes over: Node's client sends the one it
 * is given. A job's `content-length` under a body the agent sends chunked had the upstream read
 * the rest of the body as a request of the agent's own, to any path, on a connection the proxy
 * keeps open for the next request, whose head (credentials and all) the agent's request could
 * then take in as its body. The job's custom headers may not set these.
 */
const FRAMING = [
  'connection',
  'content-length',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

// Hop-by-hop headers (RFC 9110 §7.6.1), and the credentials' headers, which the proxy sets itself.
const DROPPED = new Set([
  ...FRAMING.filter((name) => name !== 'content-length'),
  'proxy-authenticate',
  'proxy-authorization',
  'host',
  ...CREDENTIALS.map((c) => c.header),
]);

/**
 * The credentials the worker holds for the agent and must keep from it, by their variables.
 * Custom headers count whatever they hold: only the job knows which of them is a secret (and a
 * line Claude Code skips may be one pasted without its name). Throws on custom headers Claude
 * Code would refuse, or that would frame the proxy's requests.
 */
export function heldCredentials(jobEnv: NodeJS.ProcessEnv): HeldName[] {
  return jobCredentials(jobEnv).names;
}

/** What of the job's environment the proxy holds: each credential's value, the custom headers. */
function jobCredentials(jobEnv: NodeJS.ProcessEnv) {
  const values = CREDENTIALS.map((credential) => ({
    credential,
    value: credentialValue(jobEnv, credential),
  })).filter((held) => held.value !== '');
  const custom = customHeaders(jobEnv);
  const names: HeldName[] = [
    ...values.map((v) => v.credential.name),
    ...(custom ? [CUSTOM_HEADERS as HeldName] : []),
  ];
  return { values, custom, names };
}

function customHeaders(jobEnv: NodeJS.ProcessEnv): CustomHeaders | undefined {
  const text = jobEnv[CUSTOM_HEADERS] ?? '';
  if (!text.trim()) return undefined;
  const custom = parseCustomHeaders(text);
  const framing = FRAMING.filter((name) => custom.headers.has(name));
  if (framing.length > 0)
    throw new Error(
      `${CUSTOM_HEADERS} sets ${framing.join(', ')}: the proxy frames each request itself`,
    );
  return custom;
}

/**
 * A credential as Claude Code sends it: fetch strips a header value's leading and trailing
 * whitespace (a secret pasted with its newline works), and Node's http.request throws on it.
 */
function credentialValue(jobEnv: NodeJS.ProcessEnv, credential: Credential): string {
  return (jobEnv[credential.name] ?? '').replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
}

export interface ApiKeyProxyOptions {
  drainMs?: number;
  /**
   * The agent's network is closed (`worker.network.allow` is not `*`): the proxy forwards no
   * request that has the API fetch from the internet (src/worker/api-request-check.ts).
   */
  closedNetwork?: boolean;
}

/** The agent's connections to the key proxy at once; Claude Code keeps a few. */
export const MAX_AGENT_CONNECTIONS = 128;

/**
 * Starts the proxy when the job's environment holds any of the credentials; undefined otherwise
 * (an `AGENT_COMMAND` agent with credentials of its own gets them as before). Throws, as
 * heldCredentials does, on custom headers it refuses.
 */
export async function startApiKeyProxy(
  jobEnv: NodeJS.ProcessEnv,
  { drainMs = DRAIN_MS, closedNetwork = false }: ApiKeyProxyOptions = {},
): Promise<ApiKeyProxy | undefined> {
  const { values, custom, names } = jobCredentials(jobEnv);
  if (names.length === 0) return undefined;
  const held: Held[] = values.map((v) => ({ ...v, placeholder: placeholder(v.credential.prefix) }));
  const heldHeaders = custom && { headers: custom.headers, placeholder: placeholder('') };
  const upstream = new URL(jobEnv.ANTHROPIC_BASE_URL || DEFAULT_UPSTREAM);
  if (upstream.protocol !== 'https:' && upstream.protocol !== 'http:')
    throw new Error(`ANTHROPIC_BASE_URL must be an http(s) URL, not ${upstream.protocol}`);
  const meter = createUsageMeter();
  const calls = new Set<ClientRequest>();
  const server = createServer((req, res) =>
    forward(req, res, { upstream, held, heldHeaders, meter, calls, closedNetwork }),
  );
  // Each of the agent's connections holds a descriptor of the worker's, and one upstream while it
  // asks: an agent that opened thousands could leave the worker none to stop it with
  // (docs/worker.md, "The agent's network"). Node closes each one past the cap as it comes.
  server.maxConnections = MAX_AGENT_CONNECTIONS;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    held: names,
    env: {
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
      ...Object.fromEntries(held.map((h) => [h.credential.name, h.placeholder])),
      ...(heldHeaders && {
        [CUSTOM_HEADERS]: [...heldHeaders.headers.keys()]
          .map((name) => `${name}: ${heldHeaders.placeholder}`)
          .join('\n'),
      }),
    },
    notes: custom?.skipped.length
      ? [
          `${CUSTOM_HEADERS}: lines ${custom.skipped.join(', ')} have no colon: skipped, as Claude Code skips them`,
        ]
      : [],
    async close({ cut }: { cut?: Promise<void> } = {}) {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
      // Answers the agent did not read to their end are read on for a while (forward), so the
      // meter sees the last events that say what they cost; then the rest is cut.
      await drained(calls, drainMs, cut);
      for (const call of calls) call.destroy();
    },
    measured: () => meter.measured(),
    measuredSoFar: () => meter.soFar(),
  };
}

/**
 * How long the proxy reads on, once the agent has ended, the answers it had not heard to their
 * end: a stream's output counts only in its last events, and an agent that hung up before them,
 * or ended, had the API's work measured as nothing. Well inside the margin the worker stops the
 * agent before its deadline (docs/worker.md, "The time limit").
 */
const DRAIN_MS = 20_000;

/** Resolves once every call has ended, after `ms`, or when `cut` resolves. */
async function drained(calls: Set<ClientRequest>, ms: number, cut?: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  const ended = Promise.all([...calls].map((call) => once(call, 'close').catch(() => {})));
  await Promise.race([ended, late, ...(cut ? [cut] : [])]);
  clearTimeout(timer);
}

/** The methods the proxy forwards with the credentials (`forward`). */
const FORWARDED_METHODS: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
]);

function forward(
  req: IncomingMessage,
  res: ServerResponse,
  {
    upstream,
    held,
    heldHeaders,
    meter,
    calls,
    closedNetwork,
  }: {
    upstream: URL;
    held: Held[];
    heldHeaders?: HeldHeaders;
    meter: UsageMeter;
    /** The calls to the API not yet ended. */
    calls: Set<ClientRequest>;
    closedNetwork: boolean;
  },
): void {
  const refuse = (status: number, message: string) => {
    req.resume();
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ type: 'error', error: { type: 'proxy_error', message } }));
  };
  // Only the methods an HTTP API is called with carry the credentials. A TRACE is answered with
  // the request as it arrived (RFC 9110 §9.3.8, which bars credentials from one): by the API, or
  // by the first server on the way under `Max-Forwards: 0`; what a server does with the other
  // methods Node parses (WebDAV's, PURGE, …) is not worked out.
  if (!FORWARDED_METHODS.has(req.method ?? ''))
    return refuse(405, `agent-coordinator: a ${req.method} request is not forwarded`);
  // Only the agent, which holds the placeholders, may spend the credentials, and only on the API.
  const credentials = realCredentials(req.headers, held);
  const custom = realCustomHeaders(req.headers, heldHeaders);
  if (!credentials && !custom.carried) return refuse(401, 'agent-coordinator: unknown credential');
  const target = targetOf(upstream, req.url);
  if (!target) return refuse(400, 'agent-coordinator: not a proxy for that');
  if (isMessageBatches(upstream, target))
    return refuse(403, 'agent-coordinator: message batches are not measured, so not forwarded');
  /** Sends the request on: the agent's body as it comes, or `body`, read and checked. */
  const call = (body?: Buffer): void => {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers = {
      ...forwardedHeaders(req.headers),
      ...credentials,
      ...custom.headers,
      // Only codings the meter reads: the usage in a response it could not read would be lost.
      'accept-encoding': readableEncodings(req.headers['accept-encoding']),
      ...(body && { 'content-length': String(body.length) }),
    };
    let out: ClientRequest;
    try {
      // As Claude Code sends them, custom headers override the credentials' headers.
      out = send(target, { method: req.method, headers });
    } catch {
      // A credential no header can hold (a line break inside; custom headers are checked at
      // start): uncaught, it ended the worker with the agent still running, and nothing stopped
      // the agent's user's processes.
      return refuse(502, 'agent-coordinator: the request could not be sent with the credential');
    }
    calls.add(out);
    out.once('close', () => calls.delete(out));
    out.on('response', (answer) => {
      // Read beside the agent's copy, first, so the meter has seen what the agent has.
      meter.observe(answer, answer.headers);
      if (res.destroyed) return void answer.resume();
      res.writeHead(answer.statusCode ?? 502, forwardedHeaders(answer.headers));
      answer.pipe(res);
      // The agent gave up on the answer (or was stopped). Cut here, the API would bill what it
      // had generated, and a stream's output shows only in its last events: the proxy reads on
      // to the answer's end instead (the API then generates, and bills, all of it), and its
      // close cuts what is left after a while (DRAIN_MS).
      res.once('close', () => {
        if (res.writableFinished) return;
        answer.unpipe(res);
        answer.resume();
      });
    });
    out.on('error', (error) => {
      if (!res.headersSent && !res.destroyed)
        refuse(502, `agent-coordinator: the API did not answer: ${error.message}`);
      else res.destroy(error);
    });
    if (body) return void out.end(body);
    // A request the agent left unsent is nothing the API works on: it goes no further.
    req.once('close', () => {
      if (!req.complete) out.destroy();
    });
    req.pipe(out);
  };
  if (closedNetwork) {
    const path = target.pathname.slice(upstream.pathname.replace(/\/+$/, '').length);
    const refusal = closedNetworkRefusal(req.method, path, req.headers);
    if (refusal) return refuse(403, refusal);
    // Read whole and checked before anything goes: what is sent is what was checked.
    if (req.method === 'POST')
      return void checkedBody(req).then((checked) =>
        'refusal' in checked ? refuse(checked.status, checked.refusal) : call(checked.body),
      );
  }
  call();
}

/**
 * A Messages request's body, read whole (up to the API's own limit) and checked for what would
 * have the API fetch from the internet; sent on as the JSON the check read, so that no reading
 * of it (a key given twice) differs between the check and the API.
 */
async function checkedBody(
  req: IncomingMessage,
): Promise<{ body: Buffer } | { status: number; refusal: string }> {
  const whole = await new Promise<Buffer | 'too large' | 'cut'>((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // Past the limit the rest is read and dropped, so the agent hears the refusal.
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_CHECKED_BODY) chunks.push(chunk);
    });
    req.once('end', () => resolve(size > MAX_CHECKED_BODY ? 'too large' : Buffer.concat(chunks)));
    req.once('close', () => resolve('cut'));
  });
  if (whole === 'too large')
    return { status: 413, refusal: 'agent-coordinator: the request is larger than the API takes' };
  if (whole === 'cut')
    return { status: 400, refusal: 'agent-coordinator: the request was not sent whole' };
  let json: unknown;
  try {
    json = JSON.parse(whole.toString('utf8'));
  } catch {
    return {
      status: 400,
      refusal:
        "agent-coordinator: the agent's network is closed, and the worker reads each Messages request before it goes: this one is not JSON",
    };
  }
  const fetching = fetchingRequest(json);
  if (fetching)
    return {
      status: 403,
      refusal: `agent-coordinator: the agent's network is closed (worker.network.allow), and the request has the API fetch from the internet: ${fetching}`,
    };
  try {
    return { body: Buffer.from(JSON.stringify(json)) };
  } catch {
    // JSON.parse reads any depth, JSON.stringify recurses: past the stack it throws, and a
    // rejection handled nowhere ends the worker, with the agent still running and its checkout
    // (.git and all) left to the job's later steps.
    return {
      status: 400,
      refusal:
        "agent-coordinator: the agent's network is closed, and the worker reads each Messages request before it goes: this one is nested too deep to be read",
    };
  }
}

/**
 * Where a request goes: its path and query under the upstream's. The agent writes the request
 * target, so it is never read as a URL of its own: relative to the upstream, `//host/…` (and
 * `/\\host/…`, which URLs read alike) names another host, which would get the real key. The path
 * is set on the upstream's URL, which keeps its host, and the origin is checked again.
 */
function targetOf(upstream: URL, requestTarget: string | undefined): URL | undefined {
  if (!requestTarget?.startsWith('/')) return undefined;
  const query = requestTarget.indexOf('?');
  const path = query < 0 ? requestTarget : requestTarget.slice(0, query);
  // A slash or backslash escaped in the path (`..%2F`, at any depth of escaping) is no separator
  // to the URL, but a gateway that decodes it before it routes would climb out of the base with
  // the real key; so would a dot escaped twice (`%252e%252e/`), which the URL resolves only once
  // decoded, and a gateway that decodes twice would. No client of the API writes either.
  if (/%(?:25)*(?:2f|5c)|%(?:25)+2e/i.test(path)) return undefined;
  const base = upstream.pathname.replace(/\/+$/, '');
  const target = new URL(upstream.origin);
  target.pathname = base + path;
  if (query >= 0) target.search = requestTarget.slice(query);
  // `..` segments (`%2e%2e` too) are resolved by the URL: they must not climb out of the base.
  const under = target.pathname === base || target.pathname.startsWith(`${base}/`);
  return target.origin === upstream.origin && under ? target : undefined;
}

/**
 * A request to the Message Batches API (`/v1/messages/batches` under the upstream's path): a
 * batch runs, and bills, after the job, and no answer the proxy reads shows what it spent, so the
 * budget would never see it (docs/worker.md, "What the agent spent"); Claude Code sends none. The
 * path is read as a server may read it: escapes decoded, in any case, slashes repeated or
 * backwards, a segment's parameters or extension after it.
 */
function isMessageBatches(upstream: URL, target: URL): boolean {
  let path = target.pathname.slice(upstream.pathname.replace(/\/+$/, '').length);
  for (let i = 0; i < 3; i++)
    path = path.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
      String.fromCharCode(parseInt(hex, 16)),
    );
  path = path.replace(/[\\/]+/g, '/').toLowerCase();
  return /^\/v1\/messages\/batches(?![a-z0-9_-])/.test(path);
}

function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !DROPPED.has(name)) out[name] = value;
  return out;
}

/**
 * The real credentials for the placeholders a request carries, each in its credential's header;
 * undefined when it carries none. A credential header holding anything but a placeholder of that
 * header's credential is not forwarded.
 */
function realCredentials(
  headers: IncomingHttpHeaders,
  held: Held[],
): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const { credential, value, placeholder } of held) {
    if (out[credential.header] !== undefined) continue;
    const given = headers[credential.header];
    const token = credential.bearer ? bearerToken(given) : given;
    if (sameSecret(token, placeholder))
      out[credential.header] = credential.bearer ? `Bearer ${value}` : value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The job's custom headers for a request: each where the request carries its placeholder, lacks
 * the header, or has one the proxy does not forward (a credential's: a custom `Authorization`
 * goes over the token's, as Claude Code sends it). Any other value the agent sent is sent:
 * Claude Code puts the betas it needs in `anthropic-beta` over a custom one, and the proxy
 * changes nothing of that. `carried`: the request carries the placeholder in one of them.
 */
function realCustomHeaders(
  headers: IncomingHttpHeaders,
  held: HeldHeaders | undefined,
): { headers: Record<string, string>; carried: boolean } {
  const out: Record<string, string> = {};
  let carried = false;
  for (const [name, value] of held?.headers ?? []) {
    const given = headers[name];
    const placeholder = sameSecret(given, held!.placeholder);
    carried ||= placeholder;
    if (given === undefined || placeholder || DROPPED.has(name)) out[name] = value;
  }
  return { headers: out, carried };
}

function bearerToken(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  // The scheme's name is case-insensitive (RFC 9110 §11.1).
  const match = /^bearer +(\S+)$/i.exec(header);
  return match?.[1];
}

function sameSecret(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
