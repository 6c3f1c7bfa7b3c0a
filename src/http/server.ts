import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.js';

export const WEBHOOK_PATH = '/api/github/webhooks';

export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

export interface HttpDeps {
  ingest: RouteHandler;
  /** Resolves when the database answers; rejects when it does not. */
  pingDatabase: () => Promise<void>;
  metrics: Metrics;
  log: Logger;
  /**
   * Extra routes: exact path → handler. A key ending in `/*` (e.g. `/dashboard/*`) also
   * answers every path under that prefix; exact keys win.
   */
  routes?: Record<string, RouteHandler>;
  /** How long a client may take to send a whole request (tests shorten it). */
  requestTimeoutMs?: number;
}

/**
 * GitHub gives up on a delivery it has no answer to within 10 seconds ("Handling webhook
 * deliveries"), so a request that takes longer to arrive is nobody's delivery; cutting it off
 * stops a slow sender from holding a connection and its body (src/webhooks/ingest.ts).
 */
export const REQUEST_TIMEOUT_MS = 10_000;

export function createHttpServer(deps: HttpDeps): Server {
  const requestTimeout = deps.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const options = {
    requestTimeout,
    headersTimeout: requestTimeout,
    // Node checks the timeouts at this interval (30 s by default): a tenth of the timeout.
    connectionsCheckingInterval: Math.max(10, Math.round(requestTimeout / 10)),
  };
  const server = createServer(options, (req, res) => {
    // Its request arrived: from here Node's timeouts hold it, and a dashboard's event stream,
    // quiet between heartbeats, stays open.
    req.socket.setTimeout(0);
    route(req, res).catch((error: unknown) => {
      deps.log.error({ err: error, url: req.url }, 'request failed');
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  // Node times a request from its first byte: a connection that sends none is held for ever, and
  // enough of them take every file descriptor, GitHub's deliveries then finding no way in. Idle
  // that long before its first request, Node closes it (nobody listens for 'timeout').
  server.on('connection', (socket: Socket) => socket.setTimeout(requestTimeout));
  // Anyone may ask /healthz: each request's own ping would queue a statement in the pool the
  // handlers wait on, and one that timed out stays queued. Requests meanwhile share one.
  let pinging: Promise<void> | undefined;
  const pingDatabase = () =>
    (pinging ??= deps.pingDatabase().finally(() => {
      pinging = undefined;
    }));
  return server;

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path === WEBHOOK_PATH) return deps.ingest(req, res);
    if (path === '/healthz' && req.method === 'GET') return health(res);
    if (path === '/metrics' && req.method === 'GET') {
      const text = await deps.metrics.registry.metrics();
      res.writeHead(200, { 'content-type': deps.metrics.registry.contentType }).end(text);
      return;
    }
    const extra = path ? findRoute(deps.routes, path) : undefined;
    if (extra) return extra(req, res);
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
  }

  async function health(res: ServerResponse): Promise<void> {
    let database = 'ok';
    try {
      await withTimeout(pingDatabase(), 3_000);
    } catch (error) {
      database = 'unreachable';
      deps.log.warn({ err: error }, 'health check: database unreachable');
    }
    const ok = database === 'ok';
    res
      .writeHead(ok ? 200 : 503, {
        'content-type': 'application/json',
        'cache-control': 'no-store',
      })
      .end(JSON.stringify({ status: ok ? 'ok' : 'degraded', database }));
  }
}

function findRoute(
  routes: Record<string, RouteHandler> | undefined,
  path: string,
): RouteHandler | undefined {
  if (!routes) return undefined;
  if (Object.hasOwn(routes, path)) return routes[path];
  for (const [key, handler] of Object.entries(routes)) {
    if (key.endsWith('/*') && path.startsWith(key.slice(0, -1))) return handler;
  }
  return undefined;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function listen(
  server: Server,
  port: number,
  host: string,
): Promise<{ port: number; host: string }> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host }, () => {
      server.off('error', reject);
      const address = server.address();
      if (address && typeof address === 'object')
        resolve({ port: address.port, host: address.address });
      else resolve({ port, host });
    });
  });
}
