import { randomBytes, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';

/**
 * The agent's API key stays with the worker (docs/worker.md, "Threat model"): the agent gets the
 * address of this proxy, on the loopback interface, and a placeholder key made for the run; the
 * proxy forwards each request to the one upstream it was given with the real key in its place.
 * An agent talked into sending its environment anywhere sends the placeholder, which is worth
 * nothing once the job ends. The same design keeps LLM keys out of the agent's container in
 * GitHub's agentic workflows firewall (gh-aw's api-proxy).
 */
export interface ApiKeyProxy {
  /** What the agent's environment gets instead of the key. */
  env: { ANTHROPIC_API_KEY: string; ANTHROPIC_BASE_URL: string };
  close(): Promise<void>;
}

/** The Messages API, unless the job names another (`ANTHROPIC_BASE_URL`). */
const DEFAULT_UPSTREAM = 'https://api.anthropic.com';

// Hop-by-hop headers (RFC 9110 §7.6.1) and the ones the proxy sets itself.
const DROPPED = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'x-api-key',
]);

/** The API key the worker holds for the agent and must keep from it, if the job gives one. */
export function heldApiKey(jobEnv: NodeJS.ProcessEnv): string | undefined {
  return jobEnv.ANTHROPIC_API_KEY || undefined;
}

/**
 * Starts the proxy when the job's environment holds `ANTHROPIC_API_KEY`; undefined otherwise
 * (an `AGENT_COMMAND` agent with credentials of its own gets them as before).
 */
export async function startApiKeyProxy(
  jobEnv: NodeJS.ProcessEnv,
): Promise<ApiKeyProxy | undefined> {
  const apiKey = heldApiKey(jobEnv);
  if (!apiKey) return undefined;
  const upstream = new URL(jobEnv.ANTHROPIC_BASE_URL || DEFAULT_UPSTREAM);
  if (upstream.protocol !== 'https:' && upstream.protocol !== 'http:')
    throw new Error(`ANTHROPIC_BASE_URL must be an http(s) URL, not ${upstream.protocol}`);
  const placeholder = `sk-ant-agent-coordinator-${randomBytes(24).toString('hex')}`;
  const server = createServer((req, res) => forward(req, res, { upstream, apiKey, placeholder }));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    env: { ANTHROPIC_API_KEY: placeholder, ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}` },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

function forward(
  req: IncomingMessage,
  res: ServerResponse,
  { upstream, apiKey, placeholder }: { upstream: URL; apiKey: string; placeholder: string },
): void {
  const refuse = (status: number, message: string) => {
    req.resume();
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ type: 'error', error: { type: 'proxy_error', message } }));
  };
  // Only the agent, which holds the placeholder, may spend the key; and only on the one API.
  if (!sameSecret(req.headers['x-api-key'], placeholder))
    return refuse(401, 'agent-coordinator: unknown API key');
  const target = targetOf(upstream, req.url);
  if (!target) return refuse(400, 'agent-coordinator: not a proxy for that');
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const out = send(target, {
    method: req.method,
    headers: { ...forwardedHeaders(req.headers), 'x-api-key': apiKey },
  });
  out.on('response', (answer) => {
    res.writeHead(answer.statusCode ?? 502, forwardedHeaders(answer.headers));
    answer.pipe(res);
  });
  out.on('error', (error) => {
    if (!res.headersSent)
      refuse(502, `agent-coordinator: the API did not answer: ${error.message}`);
    else res.destroy(error);
  });
  // The agent gave up on the answer (or was stopped): so does the proxy.
  res.on('close', () => {
    if (!res.writableFinished) out.destroy();
  });
  req.pipe(out);
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
  const base = upstream.pathname.replace(/\/+$/, '');
  const target = new URL(upstream.origin);
  target.pathname = base + (query < 0 ? requestTarget : requestTarget.slice(0, query));
  if (query >= 0) target.search = requestTarget.slice(query);
  // `..` segments (`%2e%2e` too) are resolved by the URL: they must not climb out of the base.
  const under = target.pathname === base || target.pathname.startsWith(`${base}/`);
  return target.origin === upstream.origin && under ? target : undefined;
}

function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !DROPPED.has(name)) out[name] = value;
  return out;
}

function sameSecret(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
