import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for api.github.com that issues installation tokens (what `probot.auth(id)`
 * asks for first) and hands every other request to `answer`.
 */
export async function startApiStub(
  answer: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    if (!req.url?.endsWith('/access_tokens')) return answer(req, res);
    const expires = new Date(Date.now() + 3_600_000).toISOString();
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ token: 'ghs_test', expires_at: expires }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
