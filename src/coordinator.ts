import type { Server } from 'node:http';
import { Probot, ProbotOctokit } from 'probot';
import type { Logger } from 'pino';
import { createApp, type AppServices } from './app.js';
import type { AppEnv } from './env.js';
import { createHttpServer, listen, type RouteHandler } from './http/server.js';
import { createMetrics, type Metrics } from './metrics.js';
import { openDatabase } from './store/database.js';
import { createStore, type Store } from './store/index.js';
import { createWebhookIngest } from './webhooks/ingest.js';
import { DeliveryProcessor } from './webhooks/processor.js';

export interface CoordinatorOptions {
  env: AppEnv & { appId: number; privateKey: string };
  log: Logger;
  /** Octokit class for Probot; tests pass one with retries and throttling off. */
  Octokit?: typeof ProbotOctokit;
  /** Skip listening (tests that only call the handlers). */
  listen?: boolean;
  routes?: Record<string, RouteHandler>;
  /** PGlite in memory instead of DATA_DIR (tests). */
  inMemoryDatabase?: boolean;
  services?: Partial<AppServices>;
}

export interface Coordinator {
  readonly probot: Probot;
  readonly store: Store;
  readonly metrics: Metrics;
  readonly processor: DeliveryProcessor;
  readonly server: Server;
  readonly url: string;
  /** Resolves when every accepted delivery has been handled (tests wait on this, never on sleeps). */
  whenIdle(): Promise<void>;
  close(): Promise<void>;
}

export async function startCoordinator(options: CoordinatorOptions): Promise<Coordinator> {
  const { env, log } = options;
  const metrics = createMetrics();
  const handle = await openDatabase({
    databaseUrl: env.databaseUrl,
    dataDir: env.dataDir,
    inMemory: options.inMemoryDatabase,
    onPoolError: (error) =>
      log.warn({ err: error }, 'database connection lost; the pool reconnects'),
  });
  log.info({ database: handle.kind }, 'database ready, migrations applied');
  const store = createStore(handle);

  const probot = new Probot({
    appId: env.appId,
    privateKey: env.privateKey,
    secret: env.webhookSecret,
    baseUrl: env.githubBaseUrl,
    log: log.child({ name: 'probot' }),
    Octokit: options.Octokit ?? ProbotOctokit,
  });
  await probot.load(createApp({ store, metrics, ...options.services }));

  const processor = new DeliveryProcessor({
    deliveries: store.deliveries,
    log,
    metrics,
    handle: (delivery) =>
      probot.receive({
        id: delivery.id,
        name: delivery.event,
        payload: delivery.payload,
      } as Parameters<Probot['receive']>[0]),
  });

  const ingest = createWebhookIngest({
    secret: env.webhookSecret,
    deliveries: store.deliveries,
    metrics,
    log,
    onAccepted: () => processor.kick(),
  });
  const server = createHttpServer({
    ingest,
    pingDatabase: () => handle.ping(),
    metrics,
    log,
    routes: options.routes,
  });

  let url = '';
  if (options.listen !== false) {
    const address = await listen(server, env.port, env.host);
    const host = address.host.includes(':') ? `[${address.host}]` : address.host;
    url = `http://${host}:${address.port}`;
    log.info({ url }, 'agent-coordinator listening');
  }
  // Deliveries stored before a crash or restart are handled now.
  processor.kick();

  return {
    probot,
    store,
    metrics,
    processor,
    server,
    url,
    whenIdle: () => processor.whenIdle(),
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await processor.stop();
      await handle.close();
    },
  };
}
