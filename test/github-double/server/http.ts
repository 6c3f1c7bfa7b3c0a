import type { IncomingHttpHeaders } from 'node:http';
import type { Core } from '../core.js';
import type { Account, Repo } from '../model.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export interface FieldError {
  resource: string;
  field?: string;
  code: string;
  message?: string;
}

export const notFound = (): HttpError => new HttpError(404, 'Not Found');

export function validationFailed(message: string, errors: FieldError[] = []): HttpError {
  return new HttpError(422, message, errors.length > 0 ? { errors } : {});
}

export interface AuthContext {
  kind: 'app' | 'installation' | 'user' | 'none' | 'invalid';
  actor: Account | null;
  installationId: number | null;
  token: string | null;
  problem: string | null;
}

export interface ApiRequest {
  core: Core;
  method: string;
  template: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  headers: IncomingHttpHeaders;
  auth: AuthContext;
  repo: Repo | null;
}

export interface ApiResponse {
  status: number;
  body?: unknown;
  // Non-JSON answers, e.g. raw file contents.
  text?: { contentType: string; content: string };
  headers?: Record<string, string>;
  // Runs after the answer is written: GitHub reacts to a request after responding.
  after?: () => void | Promise<void>;
}

export type Handler = (req: ApiRequest) => ApiResponse | Promise<ApiResponse>;
export type RouteTable = Map<string, Handler>;

export function param(req: ApiRequest, name: string): string {
  const v = req.params[name];
  if (v === undefined) throw new HttpError(500, `double: missing path parameter ${name}`);
  return v;
}

export function intParam(req: ApiRequest, name: string): number {
  const raw = param(req, name);
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw notFound();
  return n;
}

export function repoOf(req: ApiRequest): Repo {
  if (!req.repo) throw notFound();
  return req.repo;
}

export function actorOf(req: ApiRequest): Account {
  if (!req.auth.actor) throw new HttpError(401, 'Requires authentication');
  return req.auth.actor;
}

export function bodyObject(req: ApiRequest): Record<string, unknown> {
  const b = req.body;
  return b && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>) : {};
}

export function str(obj: Record<string, unknown>, key: string): string | undefined {
  const v = obj[key];
  return typeof v === 'string' ? v : undefined;
}

export function json(status: number, body: unknown, headers?: Record<string, string>): ApiResponse {
  return headers ? { status, body, headers } : { status, body };
}

// Page-number pagination with a Link header, as octokit.paginate follows it.
export function paginate<T>(
  req: ApiRequest,
  items: readonly T[],
): { page: T[]; headers: Record<string, string> } {
  const perPage = Math.min(Math.max(Number(req.query.get('per_page') ?? 30) || 30, 1), 100);
  const pageNo = Math.max(Number(req.query.get('page') ?? 1) || 1, 1);
  const start = (pageNo - 1) * perPage;
  const page = items.slice(start, start + perPage);
  const lastPage = Math.max(Math.ceil(items.length / perPage), 1);
  const links: string[] = [];
  const link = (n: number, rel: string): string => {
    const q = new URLSearchParams(req.query);
    q.set('per_page', String(perPage));
    q.set('page', String(n));
    return `<${req.core.apiUrl}${req.path}?${q.toString()}>; rel="${rel}"`;
  };
  if (pageNo < lastPage) links.push(link(pageNo + 1, 'next'), link(lastPage, 'last'));
  if (pageNo > 1) links.push(link(1, 'first'), link(pageNo - 1, 'prev'));
  return { page, headers: links.length > 0 ? { link: links.join(', ') } : {} };
}

export function listResponse<T>(
  req: ApiRequest,
  items: readonly T[],
  render: (t: T) => unknown,
): ApiResponse {
  const { page, headers } = paginate(req, items);
  return { status: 200, body: page.map(render), headers };
}
