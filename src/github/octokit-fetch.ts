import { STATUS_CODES } from 'node:http';
import type { Readable } from 'node:stream';
import { Agent, interceptors, request, type Dispatcher } from 'undici';

/**
 * The `fetch` our Octokit sends GitHub calls with: undici's `request` under the subset of
 * fetch that @octokit/request uses. Node's global fetch (undici's fetch, with its Request,
 * Response, web streams and abort machinery) costs about 750–1,000 µs of CPU for a small GET
 * against 300–360 µs for `request` (bench/README.md, section "2026-12-02, 03:57–06:50 UTC"),
 * and a handler makes ten such calls per task. Redirects are followed as fetch follows them (the
 * Authorization header is not sent to another origin) unless the call asks for `manual`.
 * Bodies other than a string or bytes (a stream upload) go to the global fetch.
 */
// undici 8 turns HTTP/2 on by default (ALPN). This transport is measured (bench/README.md) and
// tested over HTTP/1.1, as Node's global fetch speaks to GitHub: it keeps to HTTP/1.1.
const agent = new Agent({ allowH2: false });
const following = agent.compose(interceptors.redirect({ maxRedirections: 20 }));

interface FetchInit {
  method?: string;
  body?: unknown;
  redirect?: 'follow' | 'manual' | 'error';
  headers?: Record<string, string>;
  signal?: AbortSignal | null;
}

export async function octokitFetch(url: string | URL, init: FetchInit = {}): Promise<Response> {
  const { body } = init;
  const sendable =
    body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
  if (!sendable || init.redirect === 'error') return fetch(url, init as RequestInit);
  const dispatcher: Dispatcher = init.redirect === 'manual' ? agent : following;
  const method = (init.method ?? 'GET').toUpperCase();
  const answer = await request(url, {
    method: method as Dispatcher.HttpMethod,
    headers: init.headers,
    body: body as string | Uint8Array | null | undefined,
    signal: init.signal ?? undefined,
    dispatcher,
  });
  // Octokit reads no body for these: the connection is free again only once it is read.
  const empty = method === 'HEAD' || [204, 205, 304].includes(answer.statusCode);
  if (empty) await answer.body.dump();
  return new OctokitFetchResponse(String(url), answer, empty) as unknown as Response;
}

/** The body of an answer, read whole without going through a web stream (see bodyOf). */
export interface WholeBody {
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

const wholeBodies = new WeakMap<ReadableStream, WholeBody>();

/** How to read `stream` whole, if it is the body of one of our answers. */
export function wholeBodyOf(stream: ReadableStream): WholeBody | undefined {
  return wholeBodies.get(stream);
}

// What @octokit/request reads of a fetch Response: status, url, headers (get, iteration), text,
// arrayBuffer, body (a web stream, when the caller asked for the body unparsed), statusText.
class OctokitFetchResponse implements WholeBody {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: AnswerHeaders;
  private stream: ReadableStream | null | undefined;

  constructor(
    readonly url: string,
    private readonly answer: Dispatcher.ResponseData,
    private readonly empty: boolean,
  ) {
    this.status = answer.statusCode;
    this.statusText = STATUS_CODES[answer.statusCode] ?? '';
    this.ok = answer.statusCode >= 200 && answer.statusCode < 300;
    this.headers = new AnswerHeaders(answer.headers);
  }

  text(): Promise<string> {
    return this.empty ? Promise.resolve('') : this.answer.body.text();
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.empty ? Promise.resolve(new ArrayBuffer(0)) : this.answer.body.arrayBuffer();
  }

  get body(): ReadableStream | null {
    if (this.stream === undefined) {
      this.stream = this.empty ? null : lazyWebStream(this.answer.body);
      if (this.stream) wholeBodies.set(this.stream, this);
    }
    return this.stream;
  }
}

/**
 * What Octokit reads of fetch's Headers (`get` and iteration): names lower-case, repeated values
 * joined by ", ".
 */
class AnswerHeaders {
  private readonly values = new Map<string, string>();

  constructor(raw: Record<string, string | string[] | undefined>) {
    for (const [name, value] of Object.entries(raw)) {
      if (value === undefined) continue;
      this.values.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value);
    }
  }

  get(name: string): string | null {
    return this.values.get(name.toLowerCase()) ?? null;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.values.entries();
  }
}

/**
 * A web stream over `body` that reads nothing until it is read: the body can still be read whole
 * (`wholeBodyOf`) when nobody reads the stream. A high-water mark of 0 keeps the stream from
 * pulling a first chunk on its own.
 */
function lazyWebStream(body: Readable): ReadableStream<Uint8Array> {
  let chunks: AsyncIterator<Buffer> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        chunks ??= body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
        const { done, value } = await chunks.next();
        if (done) controller.close();
        else controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
      },
      cancel() {
        body.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}
