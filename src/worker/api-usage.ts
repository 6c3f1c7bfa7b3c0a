import type { IncomingHttpHeaders } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import {
  createBrotliDecompress,
  createGunzip,
  createInflate,
  createZstdDecompress,
} from 'node:zlib';
import { addUsage, boundedUsage, largerUsage, type Usage } from '../protocol/markers.js';
import { jsonFields } from './json-fields.js';
import { isObject, tryJson, type Json } from './json.js';
import { costUsd, type ResponseTokens } from './model-prices.js';

/**
 * The usage the worker's API-key proxy reads from the Messages API responses it forwards
 * (docs/worker.md, "What the agent spent"). Each response is read beside the agent's copy,
 * never in its way: the bytes go to the agent as they came, and a response the meter cannot
 * read (garbage, an error, a cut stream) counts what it showed, or nothing.
 */
export interface UsageMeter {
  /** Reads a response as it passes; `headers` say how it is framed and encoded. */
  observe(response: Readable, headers: IncomingHttpHeaders): void;
  /** Once every response observed has ended: their sum, or undefined when none had usage. */
  measured(): Promise<Usage | undefined>;
  /** Their sum as far as they have come, at once: for a run cancelled meanwhile (docs/worker.md). */
  soFar(): Usage | undefined;
}

/**
 * The content codings the meter decodes: what Claude Code asks for (`gzip, deflate, br, zstd`).
 * The proxy asks the API for no other (see readableEncodings).
 */
const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
  zstd: createZstdDecompress,
};

/** One stream event is small; beyond this it is not the API's. */
const MAX_EVENT_CHARS = 1024 * 1024;
/** A whole message's `usage` and `model` are small; only they are held of it (jsonFields). */
const MAX_FIELD_CHARS = 64 * 1024;

/** The largest figure of each kind one response showed: a stream's counts are cumulative. */
interface Seen {
  counted: boolean;
  model?: string;
  fast: boolean;
  input: number;
  cacheWrite: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  cacheRead: number;
  output: number;
  webSearches: number;
  /** Iterations whose tokens the top-level counts leave out (see readUsage). */
  apart: Seen[];
}

const unseen = (): Seen => ({
  counted: false,
  fast: false,
  input: 0,
  cacheWrite: 0,
  cacheWrite5m: 0,
  cacheWrite1h: 0,
  cacheRead: 0,
  output: 0,
  webSearches: 0,
  apart: [],
});

/**
 * The iterations of `usage.iterations` (`@anthropic-ai/sdk`'s `BetaIterationsUsage`) that the
 * top-level counts leave out: a server-side compaction's, on the response's model, and an
 * advisor's, on the advisor's.
 */
const APART = new Set(['compaction', 'advisor_message']);

const count = (v: unknown): number =>
  Number.isSafeInteger(v) && (v as number) > 0 ? (v as number) : 0;

/**
 * A Messages API `usage` object: `input_tokens` leaves out cache reads and writes; a write's
 * lifetime is in `cache_creation` where the API gives it.
 */
function readUsage(seen: Seen, usage: unknown, model: unknown): void {
  if (!isObject(usage)) return;
  seen.counted = true;
  if (typeof model === 'string') seen.model = model;
  const max = (key: Exclude<keyof Seen, 'counted' | 'model' | 'fast' | 'apart'>, v: unknown) =>
    (seen[key] = Math.max(seen[key], count(v)));
  max('input', usage.input_tokens);
  max('cacheWrite', usage.cache_creation_input_tokens);
  max('cacheRead', usage.cache_read_input_tokens);
  max('output', usage.output_tokens);
  if (isObject(usage.cache_creation)) {
    max('cacheWrite5m', usage.cache_creation.ephemeral_5m_input_tokens);
    max('cacheWrite1h', usage.cache_creation.ephemeral_1h_input_tokens);
  }
  if (isObject(usage.server_tool_use))
    max('webSearches', usage.server_tool_use.web_search_requests);
  if (usage.speed === 'fast') seen.fast = true;
  // Each usage that lists them lists them all.
  if (Array.isArray(usage.iterations))
    seen.apart = usage.iterations
      .filter((it): it is Json => isObject(it) && APART.has(it.type as string))
      .map((it) => {
        const part = unseen();
        readUsage(part, it, it.model);
        return part;
      });
}

/** What a response cost: cache writes of no stated lifetime are priced at the hour's rate. */
function tokensOf(seen: Seen): ResponseTokens {
  const written = Math.max(seen.cacheWrite, seen.cacheWrite5m + seen.cacheWrite1h);
  const cacheWrite5m = Math.min(seen.cacheWrite5m, written);
  return {
    input: seen.input,
    cacheWrite5m,
    cacheWrite1h: written - cacheWrite5m,
    cacheRead: seen.cacheRead,
    output: seen.output,
    webSearches: seen.webSearches,
  };
}

interface Reader {
  push(text: string): void;
  end(): void;
}

/**
 * A whole response: the message (`usage`, `model`), an error, or anything else, of any size
 * (a file's content): only the two fields are held as it passes, never the rest.
 */
function jsonReader(seen: Seen): Reader {
  const fields = jsonFields(['usage', 'model'], MAX_FIELD_CHARS);
  return {
    push: (chunk) => fields.push(chunk),
    end() {
      const message = fields.end();
      if (message) readUsage(seen, message.usage, message.model);
    },
  };
}

/**
 * A stream of server-sent events (the SSE format of the HTML standard): `message_start` holds
 * the message's model and usage so far, each `message_delta` the usage so far.
 */
function streamReader(seen: Seen): Reader {
  let buffer = '';
  let data: string[] = [];
  let size = 0;
  const dispatch = () => {
    const event = size <= MAX_EVENT_CHARS && data.length > 0 ? tryJson(data.join('\n')) : undefined;
    [data, size] = [[], 0];
    if (!isObject(event)) return;
    if (event.type === 'message_start' && isObject(event.message))
      readUsage(seen, event.message.usage, event.message.model);
    else if (event.type === 'message_delta') readUsage(seen, event.usage, undefined);
  };
  const line = (text: string) => {
    if (text === '') return dispatch();
    if (!text.startsWith('data:')) return;
    const value = text.slice(text.startsWith('data: ') ? 6 : 5);
    size += value.length + 1;
    if (size <= MAX_EVENT_CHARS) data.push(value);
  };
  return {
    push(chunk) {
      buffer += chunk;
      // A `\r` at the end may be the first half of a `\r\n` the next chunk completes.
      const ends = /\r\n|\n|\r(?=[\s\S])/g;
      let start = 0;
      for (let m = ends.exec(buffer); m; m = ends.exec(buffer)) {
        line(buffer.slice(start, m.index));
        start = m.index + m[0].length;
      }
      buffer = buffer.slice(start);
      // A line longer than any event is no event of the API's: skip it, and that event.
      if (buffer.length > MAX_EVENT_CHARS) [buffer, size] = ['', MAX_EVENT_CHARS + 1];
    },
    end() {
      line(buffer.replace(/\r$/, ''));
      dispatch();
    },
  };
}

/** The decoders for a `content-encoding`, outermost last; undefined for one it cannot read. */
function decodersFor(header: string | undefined): Transform[] | undefined {
  const codings = (header ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.some((c) => !Object.hasOwn(DECODERS, c))) return undefined;
  return codings.reverse().map((c) => DECODERS[c]!());
}

/**
 * The `accept-encoding` the proxy sends for the agent: the codings it asked for that the meter
 * can decode. A coding the meter could not read would hide the response's usage from it; with
 * none left the API is asked for the response as it is (an absent header would allow any).
 */
export function readableEncodings(header: string | string[] | undefined): string {
  const codings = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((c) => c.trim())
    .filter((c) => {
      const name = c.split(';')[0]!.trim().toLowerCase();
      return Object.hasOwn(DECODERS, name) || name === 'identity';
    });
  return codings.length > 0 ? codings.join(', ') : 'identity';
}

function observeOne(response: Readable, headers: IncomingHttpHeaders, seen: Seen): Promise<void> {
  const contentType = String(headers['content-type'] ?? '').toLowerCase();
  const reader = contentType.startsWith('text/event-stream')
    ? streamReader(seen)
    : jsonReader(seen);
  const decoders = decodersFor(headers['content-encoding']);
  if (!decoders) return Promise.resolve();
  const text = new TextDecoder();
  return new Promise((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      reader.push(text.decode());
      reader.end();
      resolve();
    };
    const onBytes = (bytes: Buffer) => {
      if (!done) reader.push(text.decode(bytes, { stream: true }));
    };
    const [first] = decoders;
    if (!first) {
      response.on('data', onBytes);
      response.once('end', finish);
      response.once('close', finish);
      return;
    }
    // The decoders are the meter's own: their failure (a cut or corrupt body) is no failure
    // of the response, which reaches the agent as it came; it ends the reading.
    for (const [i, decoder] of decoders.entries()) {
      decoder.on('error', finish);
      const next = decoders[i + 1];
      if (next) decoder.pipe(next);
    }
    const last = decoders.at(-1)!;
    last.on('data', onBytes);
    last.once('end', finish);
    response.on('data', (bytes: Buffer) => {
      if (!first.destroyed) first.write(bytes);
    });
    const close = () => {
      if (!first.destroyed && !first.writableEnded) first.end();
    };
    response.once('end', close);
    response.once('close', close);
  });
}

export function createUsageMeter(): UsageMeter {
  const responses: Seen[] = [];
  const pending: Promise<void>[] = [];
  return {
    observe(response, headers) {
      const seen = unseen();
      responses.push(seen);
      pending.push(observeOne(response, headers, seen));
    },
    async measured() {
      await Promise.all(pending);
      return priced(responses);
    },
    soFar: () => priced(responses),
  };
}

/** What the responses showed, each priced by its model; undefined when none had usage. */
function priced(responses: readonly Seen[]): Usage | undefined {
  let total: Usage | undefined;
  for (const seen of responses) {
    if (!seen.counted) continue;
    const parts = [
      seen,
      ...seen.apart.map((part) => ({ ...part, model: part.model ?? seen.model, fast: false })),
    ];
    for (const part of parts) {
      const tokens = tokensOf(part);
      total = addUsage(total, {
        costUsd: costUsd(part.model, tokens, part.fast),
        inputTokens: tokens.input + tokens.cacheWrite5m + tokens.cacheWrite1h + tokens.cacheRead,
        outputTokens: tokens.output,
      });
    }
  }
  return total;
}

/** The attempt's usage, and which of its figures are the worker's own. */
export interface AttemptUsage {
  usage?: Usage;
  measured: (keyof Usage)[];
}

/**
 * The larger of what the proxy measured and what the agent reported, figure by figure: the
 * agent may have spent on APIs the proxy never saw, but it cannot report less than the proxy
 * did. With nothing measured (an agent that never called the API through the proxy), the
 * agent's figures stand. Either is bounded (USAGE_CEILING), so the figures spell it in digits and
 * the publish job takes the result.
 */
export function attemptUsage(
  reportedAsIs: Usage | undefined,
  measured: Usage | undefined,
): AttemptUsage {
  // What the agent says is bounded where the figures can spell it (USAGE_CEILING).
  const reported = reportedAsIs && boundedUsage(reportedAsIs);
  if (!measured) return { usage: reported, measured: [] };
  const keys = ['costUsd', 'inputTokens', 'outputTokens'] as const;
  const taken = keys.filter((k) => reported === undefined || measured[k] >= reported[k]);
  return { usage: boundedUsage(largerUsage(reported, measured)!), measured: taken };
}
