import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { Core } from '../core.js';
import { isoNow, uuid } from '../ids.js';
import { authenticate, authProblem, permissionProblem } from './auth.js';
import type { Faults } from './faults.js';
import type { GitHttp } from './git-http.js';
import {
  HttpError,
  type ApiRequest,
  type ApiResponse,
  type AuthContext,
  type RouteTable,
} from './http.js';
import { CONTENT_WRITES } from './content-writes.js';
import { HANDLED_QUERY } from './handled-query.js';
import {
  isDocumentedStatus,
  matchOperation,
  queryParameters,
  requestBodySchema,
  responseSchema,
  type Operation,
} from './openapi.js';
import { checkRequestBody, checkValue } from './schema-check.js';

export interface GraphqlCall {
  core: Core;
  body: unknown;
  auth: AuthContext;
}

export interface ServerDeps {
  core: Core;
  routes: RouteTable;
  faults: Faults;
  graphql: (call: GraphqlCall) => Promise<ApiResponse>;
  git?: GitHttp;
  // Draws each API call's answer time (ms); undefined answers at once.
  latency?: () => number;
  // Actions' OIDC issuer and token request endpoint, under /_services/.
  services?: (
    method: string,
    url: URL,
    authorization: string | undefined,
  ) => Promise<ApiResponse | null>;
}

const DOCS = 'https://docs.github.com/rest';

// Places where GitHub's published spec contradicts what GitHub answers; not double bugs.
const SPEC_QUIRKS: RegExp[] = [
  // The inlined installation list says account is allOf(user, enterprise); it is either.
  /^GET \/app\/installations: \$\[\d+\]\.account\.(name|slug|created_at|updated_at) is required$/,
  // An outdated review comment has `position` and `line` null (GitHub's "Working with comments"),
  // which `pull-request-review-comment` does not allow.
  /^(GET|POST) \/repos\/\{owner\}\/\{repo\}\/pulls\/\{pull_number\}\/comments[^:]*: \$(\[\d+\])?\.(position|line) is null but not nullable$/,
];
const RATE_LIMIT = 5000;

export function createHttpServer(deps: ServerDeps): Server {
  const used = new Map<string, number>();
  return createServer((req, res) => {
    handle(deps, used, req, res).catch((error: unknown) => {
      deps.core.selfCheck('server', [`unhandled error: ${String(error)}`]);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ message: 'double crashed', detail: String(error) }));
      }
    });
  });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

interface Outcome {
  response: ApiResponse;
  route: string | null;
  actor: string | null;
}

async function handle(
  deps: ServerDeps,
  used: Map<string, number>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const { core } = deps;
  const url = new URL(req.url ?? '/', 'http://double.invalid');
  if (deps.git?.handles(url.pathname)) return deps.git.serve(req, res);
  const method = (req.method ?? 'GET').toUpperCase();
  const receivedAtMs = Date.now();
  const raw = await readBody(req);
  let apiPath: string | null = null;
  if (url.pathname === '/api/v3' || url.pathname.startsWith('/api/v3/')) {
    apiPath = url.pathname.slice('/api/v3'.length) || '/';
  } else if (url.pathname === '/api/graphql') {
    apiPath = '/graphql';
  }
  const logPath = apiPath ?? url.pathname;
  let body: unknown;
  let parseError = false;
  if (raw.length > 0) {
    try {
      body = JSON.parse(raw);
    } catch {
      body = raw;
      parseError = true;
    }
  }

  const fault = deps.faults.take(method, logPath);
  if (fault?.delayMs) await delay(fault.delayMs);
  await fault?.hold?.();
  if (fault?.drop) {
    record(core, { method, logPath, url, receivedAtMs, status: 0, body, route: null, actor: null });
    req.socket.destroy();
    return;
  }
  let outcome: Outcome;
  if (fault?.status) {
    outcome = {
      response: {
        status: fault.status,
        body: fault.body ?? { message: 'Server Error', documentation_url: DOCS },
        headers: fault.headers ?? {},
      },
      route: null,
      actor: null,
    };
  } else if (apiPath === null) {
    const served = deps.services
      ? await deps.services(method, url, req.headers.authorization)
      : null;
    if (!served) {
      core.violation(
        'undocumented-endpoint',
        method,
        url.pathname,
        'not under /api/v3, /api/graphql or /_services',
      );
    }
    outcome = {
      response: served ?? errorResponse(new HttpError(404, 'Not Found')),
      route: null,
      actor: null,
    };
  } else if (parseError) {
    outcome = {
      response: errorResponse(new HttpError(400, 'Problems parsing JSON')),
      route: null,
      actor: null,
    };
  } else if (apiPath === '/graphql') {
    outcome = await graphql(deps, method, body, req);
  } else {
    outcome = await rest(deps, method, apiPath, url, body, req);
  }
  if (fault?.headers && !fault.status)
    outcome.response.headers = { ...outcome.response.headers, ...fault.headers };
  // The state changed when the request arrived; the answer takes GitHub's time to come back.
  if (deps.latency && apiPath !== null) await delay(deps.latency());

  const auth = req.headers.authorization ?? 'anonymous';
  const count = (used.get(auth) ?? 0) + 1;
  used.set(auth, count);
  const response = outcome.response;
  const headers: Record<string, string> = {
    'x-github-request-id': uuid().toUpperCase(),
    'x-github-media-type': 'github.v3; format=json',
    'x-github-api-version-selected': '2022-11-28',
    'x-ratelimit-limit': String(RATE_LIMIT),
    'x-ratelimit-remaining': String(Math.max(RATE_LIMIT - count, 0)),
    'x-ratelimit-used': String(count),
    'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
    'x-ratelimit-resource': apiPath === '/graphql' ? 'graphql' : 'core',
    ...response.headers,
  };
  let payload = '';
  if (response.text) {
    headers['content-type'] = response.text.contentType;
    payload = response.text.content;
  } else if (response.status !== 204 && response.status !== 304 && response.body !== undefined) {
    headers['content-type'] = 'application/json; charset=utf-8';
    payload = JSON.stringify(response.body);
  }
  res.writeHead(response.status, headers);
  res.end(method === 'HEAD' ? undefined : payload);
  record(core, {
    method,
    logPath,
    url,
    receivedAtMs,
    status: response.status,
    body,
    route: outcome.route,
    actor: outcome.actor,
  });
  if (response.after) {
    try {
      await response.after();
    } catch (error) {
      core.workerError(error);
    }
  }
}

function record(
  core: Core,
  e: {
    method: string;
    logPath: string;
    url: URL;
    receivedAtMs: number;
    status: number;
    body: unknown;
    route: string | null;
    actor: string | null;
  },
): void {
  const entry = {
    receivedAtMs: e.receivedAtMs,
    method: e.method,
    path: e.logPath,
    query: e.url.search.replace(/^\?/, ''),
    route: e.route,
    status: e.status,
    body: e.body,
    actor: e.actor,
    at: isoNow(),
  };
  core.requests.push(entry);
  if (e.route !== null && CONTENT_WRITES.has(e.route) && e.status < 400)
    core.contentWrites.record(e.actor, Date.parse(entry.at));
  core.events.emit('request', entry);
}

export function errorResponse(error: HttpError): ApiResponse {
  return {
    status: error.status,
    body: {
      message: error.message,
      documentation_url: DOCS,
      status: String(error.status),
      ...error.extra,
    },
    headers: error.headers,
  };
}

async function graphql(
  deps: ServerDeps,
  method: string,
  body: unknown,
  req: IncomingMessage,
): Promise<Outcome> {
  const auth = authenticate(deps.core, req.headers.authorization);
  const route = `${method} /graphql`;
  if (method !== 'POST') {
    deps.core.violation('undocumented-endpoint', method, '/graphql', 'GraphQL only answers POST');
    return { response: errorResponse(new HttpError(404, 'Not Found')), route, actor: null };
  }
  if (auth.kind !== 'installation' && auth.kind !== 'user') {
    const message =
      auth.kind === 'app'
        ? 'A JSON web token cannot be used for GraphQL'
        : 'This endpoint requires you to be authenticated.';
    return { response: errorResponse(new HttpError(401, message)), route, actor: null };
  }
  const response = await deps.graphql({ core: deps.core, body, auth });
  return { response, route, actor: auth.actor?.login ?? null };
}

async function rest(
  deps: ServerDeps,
  method: string,
  apiPath: string,
  url: URL,
  body: unknown,
  req: IncomingMessage,
): Promise<Outcome> {
  const { core } = deps;
  const match = matchOperation(method, apiPath);
  if (match.kind !== 'ok') {
    const why =
      match.kind === 'method-not-documented'
        ? `${method} is not documented for ${match.template}`
        : 'no documented path matches';
    core.violation('undocumented-endpoint', method, apiPath, why);
    return { response: errorResponse(new HttpError(404, 'Not Found')), route: null, actor: null };
  }
  const { operation, params } = match;
  const route = `${operation.method} ${operation.template}`;
  const handler = deps.routes.get(route);
  if (!handler) {
    core.violation(
      'unimplemented-endpoint',
      method,
      apiPath,
      `${route} (${operation.operationId}) is documented but the double does not implement it`,
    );
    return {
      response: errorResponse(new HttpError(501, `double does not implement ${route}`)),
      route,
      actor: null,
    };
  }
  const auth = authenticate(core, req.headers.authorization);
  const owner = params['owner'];
  const name = params['repo'];
  const repo =
    owner !== undefined && name !== undefined ? (core.findRepo(`${owner}/${name}`) ?? null) : null;
  const problem =
    authProblem(core, auth, operation.template, repo) ??
    permissionProblem(core, auth, route, repo, operation.raw.externalDocs?.url ?? DOCS);
  if (problem) return { response: errorResponse(problem), route, actor: auth.actor?.login ?? null };

  checkQuery(core, method, apiPath, operation, url.searchParams);
  const limited = secondaryRateLimit(core, route, auth.actor?.login ?? null);
  if (limited) return { response: errorResponse(limited), route, actor: auth.actor?.login ?? null };

  const { schema, required } = requestBodySchema(operation);
  const bodyErrors: string[] = [];
  if (body === undefined && required) bodyErrors.push('a request body is required');
  if (body !== undefined && schema) bodyErrors.push(...checkRequestBody(schema, body));
  if (
    body !== undefined &&
    !schema &&
    !(typeof body === 'object' && body && Object.keys(body).length === 0)
  ) {
    bodyErrors.push('this endpoint takes no request body');
  }
  if (bodyErrors.length > 0) {
    core.violation('request-body', method, apiPath, `${route}: ${bodyErrors.join('; ')}`);
    const error = new HttpError(422, `Invalid request.\n\n${bodyErrors.join('\n')}`);
    return { response: errorResponse(error), route, actor: auth.actor?.login ?? null };
  }
  if (owner !== undefined && name !== undefined && !repo) {
    return {
      response: errorResponse(new HttpError(404, 'Not Found')),
      route,
      actor: auth.actor?.login ?? null,
    };
  }

  const apiReq: ApiRequest = {
    core,
    method,
    template: operation.template,
    path: apiPath,
    params,
    query: url.searchParams,
    body,
    headers: req.headers,
    auth,
    repo,
  };
  let response: ApiResponse;
  try {
    response = await handler(apiReq);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    response = errorResponse(error);
  }
  if (core.options.selfCheck && !response.text) {
    if (response.status < 300 && !isDocumentedStatus(operation, response.status)) {
      core.selfCheck(route, [`answered ${response.status}, which the spec does not document`]);
    }
    const schemaOut = responseSchema(operation, response.status);
    if (schemaOut && response.status < 300) {
      const errors = checkValue(schemaOut, response.body).filter(
        (e) => !SPEC_QUIRKS.some((q) => q.test(`${route}: ${e}`)),
      );
      core.selfCheck(route, errors.slice(0, 10));
    }
  }
  return { response, route, actor: auth.actor?.login ?? null };
}

// GitHub ignores unknown query parameters: a filter the client thinks it applied silently
// is not. That is worth a violation even though GitHub would answer normally.
function checkQuery(
  core: Core,
  method: string,
  path: string,
  op: Operation,
  query: URLSearchParams,
): void {
  const documented = queryParameters(op);
  const handled = HANDLED_QUERY[`${op.method} ${op.template}`] ?? [];
  for (const [name, value] of query) {
    if (documented.has(name) && !handled.includes(name)) {
      core.violation(
        'unimplemented-parameter',
        method,
        path,
        `query parameter "${name}" of ${op.method} ${op.template} is documented but the double ignores it`,
      );
    }
    if (!documented.has(name)) {
      core.violation(
        'suspicious-request',
        method,
        path,
        `query parameter "${name}" is not documented for ${op.method} ${op.template}; GitHub ignores it`,
      );
      continue;
    }
    const allowed = documented.get(name)?.['enum'];
    if (Array.isArray(allowed) && !allowed.includes(value)) {
      core.violation(
        'suspicious-request',
        method,
        path,
        `query parameter ${name}=${value} is not one of ${JSON.stringify(allowed)}`,
      );
    }
  }
}

// GitHub's secondary limit on content-creating requests, per actor, over the last minute.
function secondaryRateLimit(core: Core, route: string, actor: string | null): HttpError | null {
  if (!CONTENT_WRITES.has(route)) return null;
  const recent = core.contentWrites.count(actor, Date.now());
  if (recent < core.contentWritesPerMinute) return null;
  core.violation(
    'secondary-rate-limit',
    'POST',
    route,
    `${actor ?? 'anonymous'} made more than ${core.contentWritesPerMinute} content-creating requests in ${core.contentWrites.windowMs / 1000} s`,
  );
  return new HttpError(
    403,
    'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
    {},
    { 'retry-after': String(Math.ceil(core.contentWrites.windowMs / 1000)) },
  );
}
