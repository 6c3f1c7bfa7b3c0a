import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyChunks } from '../http/body-chunks.js';
import type { RouteHandler } from '../http/server.js';
import { answerAssignment, type AssignmentDeps } from './assignment.js';

/** Three identifiers fit in far less; anything longer is not a worker's request. */
const MAX_BODY_BYTES = 4096;

/** `POST /api/worker/assignment` (docs/worker.md, "Assignment"). */
export function createAssignmentRoute(deps: AssignmentDeps): RouteHandler {
  return async (req, res) => {
    if (req.method !== 'POST') {
      send(res, 405, { error: 'method: expected POST' }, { allow: 'POST' });
      return;
    }
    const body = await readBody(req);
    const answer = await answerAssignment(
      deps,
      req.headers.authorization,
      // An oversized body is answered as a malformed one.
      body ?? '',
    );
    send(res, answer.status, answer.body);
  };
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res
    .writeHead(status, {
      'content-type': 'application/json',
      // The answer holds a token: never kept by a proxy or a cache.
      'cache-control': 'no-store',
      ...headers,
    })
    .end(JSON.stringify(body));
}

/**
 * The body, or undefined when it is longer than any worker's request. Its chunks are copied
 * together (`BodyChunks`): anyone may send one, a byte a chunk.
 */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks = new BodyChunks();
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.add(chunk);
  }
  return chunks.bytes().toString('utf8');
}
