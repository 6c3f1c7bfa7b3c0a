import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';

export interface PostAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * One POST of a delivery, on node:http rather than fetch: the fleet benchmark sends thousands,
 * and fetch's streams, abort signals and header objects cost the double more CPU than the rest
 * of a delivery. Rejects on a network error or when no answer came within `timeoutMs`.
 */
export function postDelivery(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostAnswer> {
  const target = targetOf(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      {
        ...target,
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

// Every delivery goes to the same receiver: its URL is parsed once.
let lastTarget: { url: string; options: ReturnType<typeof urlToHttpOptions> } | undefined;

function targetOf(url: string): ReturnType<typeof urlToHttpOptions> {
  if (lastTarget?.url !== url) lastTarget = { url, options: urlToHttpOptions(new URL(url)) };
  return lastTarget.options;
}
