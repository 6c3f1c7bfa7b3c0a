/**
 * A webhook body as the handlers see it: a JSON object, or undefined when it is not one.
 *
 * Postgres text and jsonb hold neither NUL nor a lone surrogate, and both can reach us only as
 * JSON escapes: a handler writing such a string (a task title, a comment) would fail on every
 * retry. They become U+FFFD, as a UTF-8 decoder would make them.
 */
export function parseWebhookBody(body: string): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  return (UNSTORABLE_ESCAPE.test(body) ? storable(parsed) : parsed) as Record<string, unknown>;
}

const UNSTORABLE_ESCAPE = /\\u(0000|d[89a-f])/i;
const UNSTORABLE_CHARS =
  // eslint-disable-next-line no-control-regex -- NUL is the point
  /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function storable(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(UNSTORABLE_CHARS, '\ufffd');
  if (Array.isArray(value)) return value.map(storable);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [storable(k), storable(v)]));
  return value;
}
