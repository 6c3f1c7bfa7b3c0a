// Child process of bench/ingest.ts: one webhook receiver, ours or a do-nothing Probot app.
import { createWriteStream } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeMiddleware, Probot } from 'probot';
import { startCoordinator, type Coordinator } from '../src/coordinator.js';
import { parseEnv } from '../src/env.js';
import { createLogger } from '../src/logger.js';
import { tell, type ChildMessage } from './lib/child.js';
import { BENCH_APP_ID, BENCH_WEBHOOK_SECRET } from './lib/keys.js';
import { handlingByEvent } from './lib/metrics.js';

const mode = process.env.BENCH_MODE;
const privateKey = process.env.BENCH_PRIVATE_KEY ?? '';
// Production logs at info as JSON lines; here they go to /dev/null so the terminal costs nothing.
const log = createLogger({ level: 'info', destination: createWriteStream('/dev/null') });

let close: () => Promise<void>;
let stats: () => Promise<Record<string, unknown>>;
let port: number;

if (mode === 'ours') {
  const env = parseEnv({
    APP_ID: String(BENCH_APP_ID),
    PRIVATE_KEY: privateKey,
    WEBHOOK_SECRET: BENCH_WEBHOOK_SECRET,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    DATABASE_URL: process.env.BENCH_DATABASE_URL,
    GHE_HOST: process.env.BENCH_GHE_HOST,
    GHE_PROTOCOL: 'http',
  });
  // The production Octokit (retries and throttling on), the production sweep schedule.
  const coordinator: Coordinator = await startCoordinator({
    env: { ...env, appId: env.appId!, privateKey: env.privateKey! },
    log,
  });
  port = Number(new URL(coordinator.url).port);
  close = () => coordinator.close();
  stats = async () => ({
    byStatus: await coordinator.store.deliveries.countByStatus(),
    handling: await handlingByEvent(coordinator),
  });
} else if (mode === 'probot') {
  const probot = new Probot({
    appId: BENCH_APP_ID,
    privateKey,
    secret: BENCH_WEBHOOK_SECRET,
    log: log.child({ name: 'probot' }),
  });
  const middleware = await createNodeMiddleware(() => {}, { probot });
  const server: Server = createServer((req, res) => {
    void middleware(req, res, () => {
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  stats = async () => ({});
} else {
  throw new Error(`BENCH_MODE must be ours or probot, not ${mode}`);
}

process.on('message', (message: ChildMessage) => {
  if (message.type === 'stats') {
    void stats().then((s) =>
      tell({ type: 'stats', ...s, rssMb: process.memoryUsage().rss / 2 ** 20 }),
    );
  } else if (message.type === 'stop') {
    void close().finally(() => process.exit(0));
  }
});
process.on('disconnect', () => process.exit(0));
tell({ type: 'ready', port });
