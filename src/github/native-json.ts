import { JSONParse } from 'json-with-bigint';
import { wholeBodyOf, type WholeBody } from './octokit-fetch.js';

/**
 * @octokit/request 10 parses every JSON answer with json-with-bigint, so that an integer past
 * 2^53 comes back as a BigInt. On Node 20 its parse is a regular-expression pass over the whole
 * text and then JSON.parse with a reviver: about 490 µs for a 15 KB pull request against 55 µs
 * for JSON.parse (`npm run bench -- --only octokit`), on every call the coordinator makes. Here a
 * successful answer is read as Octokit reads it, and parsed by JSON.parse unless the text holds a
 * run of 16 digits (the shortest integer that can pass 2^53); then json-with-bigint parses it, so
 * the result is what Octokit would have returned. Error answers keep Octokit's own parse.
 */
const MAY_PASS_2_53 = /\d{16}/;

export function parseJsonText(text: string): unknown {
  return MAY_PASS_2_53.test(text) ? JSONParse(text) : JSON.parse(text);
}

interface RequestOptions {
  request?: { parseSuccessResponseBody?: boolean };
}

interface OctokitAnswer {
  headers: Record<string, string | number | undefined>;
  data: unknown;
}

interface HookedOctokit {
  hook: {
    wrap(
      name: 'request',
      fn: (
        request: (options: RequestOptions) => Promise<OctokitAnswer>,
        options: RequestOptions,
      ) => Promise<OctokitAnswer>,
    ): void;
  };
}

/** An Octokit plugin: successful answers are parsed as `parseJsonText` says. */
export function nativeJsonResponses(octokit: HookedOctokit): void {
  octokit.hook.wrap('request', async (request, options) => {
    // A caller that asked for the stream gets it.
    if (options.request?.parseSuccessResponseBody === false) return request(options);
    // A wrap's `request` is bound to the call's own options object: a new object passed to it
    // would be ignored, so the flag goes on that object (each call has its own).
    options.request = { ...options.request, parseSuccessResponseBody: false };
    const answer = await request(options);
    // 204, 205 and HEAD answers carry no stream: Octokit set their data already.
    if (answer.data === null || answer.data instanceof ReadableStream)
      answer.data = await bodyOf(answer.data, String(answer.headers['content-type'] ?? ''));
    return answer;
  });
}

// The same three cases, in the same order, as Octokit's own reading of a body.
async function bodyOf(stream: ReadableStream | null, contentType: string): Promise<unknown> {
  // Our own fetch's answers are read without the web stream (see octokitFetch).
  const body: WholeBody = (stream && wholeBodyOf(stream)) || new Response(stream);
  const [type = '', ...parameters] = contentType.split(';').map((part) => part.trim());
  const mimeType = type.toLowerCase();
  if (contentType === '') return body.text().catch(() => '');
  if (mimeType === 'application/json' || mimeType === 'application/scim+json') {
    let text = '';
    try {
      text = await body.text();
      return parseJsonText(text);
    } catch {
      return text;
    }
  }
  const utf8 = parameters.some((p) => /^charset\s*=\s*"?utf-8"?$/i.test(p));
  if (mimeType.startsWith('text/') || (utf8 && mimeType !== 'application/octet-stream'))
    return body.text().catch(() => '');
  return body.arrayBuffer().catch(() => new ArrayBuffer(0));
}
