import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach } from 'vitest';
import { SONNET_ANSWER } from '../worker/helpers/sonnet-answer.js';

/**
 * The Messages API behind the worker's key proxy, for each test of the file: every request is
 * answered with SONNET_ANSWER. Its URL is the job's ANTHROPIC_BASE_URL (the proxy's upstream).
 */
export function useSonnetApi(): { url(): string } {
  let api: Server;
  let url = '';
  beforeEach(async () => {
    api = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(SONNET_ANSWER);
    }).listen(0, '127.0.0.1');
    await once(api, 'listening');
    url = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    api.close();
  });
  return { url: () => url };
}
