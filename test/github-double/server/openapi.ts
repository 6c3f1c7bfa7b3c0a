import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// GitHub's own OpenAPI description is the contract the double holds clients to.

export type Schema = Record<string, unknown>;

interface RawOperation {
  operationId?: string;
  externalDocs?: { url?: string };
  requestBody?: unknown;
  responses?: Record<string, unknown>;
}

export interface Operation {
  method: string;
  template: string;
  operationId: string;
  raw: RawOperation;
}

interface CompiledPath {
  template: string;
  literalSegments: number;
  strict: RegExp;
  // Lets the last parameter swallow slashes for clients that do not encode them.
  loose: RegExp | null;
  names: string[];
  methods: Map<string, Operation>;
  segments: string[];
}

export interface OpenApi {
  spec: Record<string, unknown>;
  paths: CompiledPath[];
}

const SLASHY_PARAMS = new Set(['ref', 'path', 'basehead', 'branch', 'name', 'workflow_id']);
let cached: OpenApi | undefined;

export function openApi(): OpenApi {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const file = require.resolve('@octokit/openapi/generated/api.github.com.json');
  const spec = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const rawPaths = spec['paths'] as Record<string, Record<string, RawOperation>>;
  const paths: CompiledPath[] = [];
  for (const [template, item] of Object.entries(rawPaths)) {
    const names: string[] = [];
    const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
    const strictSrc = escaped.replace(/\{(\w+)\}/g, (_m, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    const last = names[names.length - 1];
    const loose =
      last !== undefined && SLASHY_PARAMS.has(last) && template.endsWith(`{${last}}`)
        ? new RegExp(`^${strictSrc.replace(/\(\[\^\/\]\+\)$/, '(.+)')}$`)
        : null;
    const methods = new Map<string, Operation>();
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete', 'head'].includes(method)) continue;
      const upper = method.toUpperCase();
      methods.set(upper, {
        method: upper,
        template,
        operationId: op.operationId ?? `${upper} ${template}`,
        raw: op,
      });
    }
    paths.push({
      template,
      literalSegments: template.split('/').filter((s) => s && !s.includes('{')).length,
      strict: new RegExp(`^${strictSrc}$`),
      loose,
      names,
      methods,
      segments: template.split('/'),
    });
  }
  // Most literal first, so /pulls/{n}/merge wins over anything more generic.
  paths.sort((a, b) => b.literalSegments - a.literalSegments || a.names.length - b.names.length);
  cached = { spec, paths };
  return cached;
}

export type MatchResult =
  | { kind: 'ok'; operation: Operation; params: Record<string, string> }
  | { kind: 'method-not-documented'; template: string }
  | { kind: 'path-not-documented' };

// A strict pattern matches one segment per segment (a parameter never spans a slash), so only
// templates with as many segments and the same literals where the path is keyed can match; kept
// in the description's order of precedence. Every call is matched, and there are about a
// thousand templates.
const KEY_SEGMENTS = [1, 4];
const strictCandidates = new Map<string, CompiledPath[]>();
const CANDIDATE_LISTS_KEPT = 2000;

function candidatesFor(api: OpenApi, rawPath: string): CompiledPath[] {
  const segments = rawPath.split('/');
  const key = [segments.length, ...KEY_SEGMENTS.map((i) => segments[i] ?? '')].join('/');
  let list = strictCandidates.get(key);
  if (!list) {
    list = api.paths.filter(
      (p) =>
        p.segments.length === segments.length &&
        KEY_SEGMENTS.every((i) => {
          const literal = p.segments[i];
          return literal === undefined || literal.includes('{') || literal === segments[i];
        }),
    );
    if (strictCandidates.size >= CANDIDATE_LISTS_KEPT) strictCandidates.clear();
    strictCandidates.set(key, list);
  }
  return list;
}

export function matchOperation(method: string, rawPath: string): MatchResult {
  const api = openApi();
  const upper = method === 'HEAD' ? 'GET' : method;
  let pathOnly: CompiledPath | undefined;
  for (const pass of ['strict', 'loose'] as const) {
    for (const p of pass === 'strict' ? candidatesFor(api, rawPath) : api.paths) {
      const re = pass === 'strict' ? p.strict : p.loose;
      const m = re?.exec(rawPath);
      if (!m) continue;
      const operation = p.methods.get(upper);
      if (!operation) {
        pathOnly ??= p;
        continue;
      }
      const params: Record<string, string> = {};
      p.names.forEach((name, i) => {
        params[name] = safeDecode(m[i + 1] ?? '');
      });
      return { kind: 'ok', operation, params };
    }
  }
  return pathOnly
    ? { kind: 'method-not-documented', template: pathOnly.template }
    : { kind: 'path-not-documented' };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function resolveRef(schema: unknown): Schema | undefined {
  let current = schema;
  for (let depth = 0; depth < 20; depth++) {
    if (!current || typeof current !== 'object') return undefined;
    const ref = (current as Schema)['$ref'];
    if (typeof ref !== 'string') return current as Schema;
    current = lookupPointer(ref);
  }
  return undefined;
}

function lookupPointer(ref: string): unknown {
  const parts = ref.replace(/^#\//, '').split('/');
  let node: unknown = openApi().spec;
  for (const part of parts) {
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

export function requestBodySchema(op: Operation): {
  schema: Schema | undefined;
  required: boolean;
} {
  const body = resolveRef(op.raw.requestBody);
  if (!body) return { schema: undefined, required: false };
  const content = body['content'] as Record<string, { schema?: unknown }> | undefined;
  const json = content?.['application/json'] ?? Object.values(content ?? {})[0];
  return { schema: resolveRef(json?.schema), required: body['required'] === true };
}

export function responseSchema(op: Operation, status: number): Schema | undefined {
  const response = resolveRef(op.raw.responses?.[String(status)]);
  const content = response?.['content'] as Record<string, { schema?: unknown }> | undefined;
  return resolveRef(content?.['application/json']?.schema);
}

export function queryParameters(op: Operation): Map<string, Schema | undefined> {
  const item =
    (openApi().spec['paths'] as Record<string, Record<string, unknown>>)[op.template] ?? {};
  const all = [
    ...((item['parameters'] as unknown[]) ?? []),
    ...(((op.raw as Record<string, unknown>)['parameters'] as unknown[]) ?? []),
  ];
  const out = new Map<string, Schema | undefined>();
  for (const p of all.map((x) => resolveRef(x))) {
    if (p?.['in'] === 'query' && typeof p['name'] === 'string')
      out.set(p['name'], resolveRef(p['schema']));
  }
  return out;
}

export function isDocumentedStatus(op: Operation, status: number): boolean {
  return op.raw.responses?.[String(status)] !== undefined;
}

export function webhookSchema(event: string, action: string | undefined): Schema | undefined {
  const hooks = openApi().spec['x-webhooks'] as Record<string, Record<string, RawOperation>>;
  const key = `${event}${action ? `-${action}` : ''}`.replaceAll('_', '-');
  const op = hooks[key]?.['post'];
  if (!op) return undefined;
  const body = resolveRef(op.requestBody);
  const content = body?.['content'] as Record<string, { schema?: unknown }> | undefined;
  return resolveRef(content?.['application/json']?.schema);
}
