import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What each target answered to one delivery, in target order. */
export type FanoutAnswers = Map<string, number[]>;

export interface Fanout {
  readonly url: string;
  /** By X-GitHub-Delivery. */
  readonly answers: FanoutAnswers;
  close(): Promise<void>;
}

const FORWARDED = /^(content-type|user-agent|x-github-.*|x-hub-signature-256)$/;

/**
 * A webhook URL that hands every delivery to all `targets` at once, as if GitHub sent it to
 * each, and answers 202 only when every target answered 2xx (else the worst status).
 */
export async function startFanout(targets: () => string[]): Promise<Fanout> {
  const answers: FanoutAnswers = new Map();
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (FORWARDED.test(name) && typeof value === 'string') headers[name] = value;
      const statuses = await Promise.all(
        targets().map(async (url) => {
          try {
            const response = await fetch(url, { method: 'POST', headers, body });
            await response.arrayBuffer();
            return response.status;
          } catch {
            return 0;
          }
        }),
      );
      answers.set(headers['x-github-delivery'] ?? '', statuses);
      const failed = statuses.find((s) => s < 200 || s >= 300);
      res
        .writeHead(failed === undefined ? 202 : failed || 502, {
          'content-type': 'application/json',
        })
        .end(JSON.stringify({ statuses }));
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/github/webhooks`,
    answers,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}
