import type { Server } from 'node:http';
import type { EmitterWebhookEvent } from '@octokit/webhooks';
import { Probot, ProbotOctokit } from 'probot';
import type { Logger } from 'pino';
import cron from 'node-cron';
import { createApp } from './app.js';
import type { AppServices } from './handlers/app-services.js';
import { TriggerLabelCache } from './config/trigger-labels.js';
import { createDashboard } from './dashboard/index.js';
import { createEngine, type RunningEngine } from './engine/create.js';
import { CoordinatorOctokit } from './github/coordinator-octokit.js';
import type { Octokit } from './github/octokit-port.js';
import { createPublicUrl } from './github/public-url.js';
import { ASSIGNMENT_PATH } from './protocol/assignment.js';
import { createWorkerTokenMinter } from './worker-api/installation-token.js';
import { actionsIssuer, createOidcVerifier, type OidcIssuer } from './worker-api/oidc.js';
import { createAssignmentRoute } from './worker-api/route.js';
import { withRateLimitMetrics } from './github/rate-limit-metrics.js';
import { WriteBudget, type BudgetClock } from './github/write-budget.js';
import { withWriteBudget } from './github/write-budget-octokit.js';
import { createRedeliverer } from './engine/redeliver.js';
import { sweep, type SweepReport } from './engine/sweep.js';
import { LOCK_KEYS } from './store/lock-keys.js';
import type { AppEnv } from './env.js';
import { createHttpServer, listen, type RouteHandler } from './http/server.js';
import { createMetrics, type Metrics } from './metrics.js';
import { parseWebhookBody } from './webhooks/payload.js';
import { IngestPressure } from './webhooks/pressure.js';
import { openDatabase, type OpenOptions } from './store/database.js';
import { createStore, type Store } from './store/index.js';
import { CONNECTION_MODE_MEANING } from './store/connection-mode.js';
import { readMetricsSnapshot } from './store/metrics-queries.js';
import { WriteReservationStore, type WriteLimits } from './store/write-reservations.js';
import { HandledEvents } from './webhooks/handled-events.js';
import { createWebhookIngest } from './webhooks/ingest.js';
import { DeliveryProcessor, type ProcessorOptions } from './webhooks/processor.js';

export interface CoordinatorOptions {
  env: AppEnv & { appId: number; privateKey: string };
  log: Logger;
  /** Octokit class for Probot (default CoordinatorOctokit); tests pass one with retries and throttling off. */
  Octokit?: typeof ProbotOctokit;
  /** Skip listening (tests that only call the handlers). */
  listen?: boolean;
  routes?: Record<string, RouteHandler>;
  /** PGlite in memory instead of DATA_DIR (tests), starting from a dumped data directory or not. */
  inMemoryDatabase?: OpenOptions['inMemory'];
  services?: Partial<AppServices>;
  /** The engine's clock (tests move time forward to reach timeouts and backoffs). */
  now?: () => Date;
  /** Run the periodic sweep on `env.sweepSchedule` (default true; tests step it by hand). */
  schedule?: boolean;
  /** Grace before a dispatch with no known run is checked against GitHub. */
  sweepGraceMs?: number;
  /** How long one database read serves later /metrics scrapes (default 2 s). */
  metricsSnapshotMaxAgeMs?: number;
  /**
   * Where workers' OIDC tokens come from (default GitHub Actions' issuer, or GitHub
   * Enterprise's at `<GHE_PROTOCOL>://<GHE_HOST>/_services/token`); tests point it at their own.
   */
  oidc?: Partial<OidcIssuer>;
  /** Delivery processor tuning (tests shorten the retry backoff). */
  processor?: Pick<ProcessorOptions, 'retryDelayMs' | 'maxAttempts' | 'concurrency'>;
  /**
   * The installation write budget shared with the other replicas (default GitHub's limits on
   * real time; tests scale the windows, benchmarks that measure the coordinator turn it off).
   */
  writeBudget?: { limits?: WriteLimits; clock?: BudgetClock } | false;
  /**
   * The HTTP server's limits on what a client sends (default: GitHub's 10 s for a whole request,
   * two of GitHub's largest payloads unverified at once); tests shrink them.
   */
  limits?: { requestTimeoutMs?: number; maxUnverifiedBytes?: number };
}

export interface Coordinator {
  readonly probot: Probot;
  readonly store: Store;
  readonly metrics: Metrics;
  readonly processor: DeliveryProcessor;
  readonly server: Server;
  readonly engine: RunningEngine;
  /** Undefined when the options turned it off. */
  readonly writeBudget: WriteBudget | undefined;
  readonly url: string;
  /** One sweep now (skipped, returning undefined, when another process holds the sweep lock). */
  sweep(): Promise<SweepReport | undefined>;
  /** Resolves when every accepted delivery has been handled (tests wait on this, never on sleeps). */
  whenIdle(): Promise<void>;
  close(): Promise<void>;
}

const DELIVERY_RETENTION_MS = 7 * 24 * 60 * 60_000;

export async function startCoordinator(options: CoordinatorOptions): Promise<Coordinator> {
  const { env, log } = options;
  const handle = await openDatabase({
    databaseUrl: env.databaseUrl,
    directDatabaseUrl: env.directDatabaseUrl,
    dataDir: env.dataDir,
    inMemory: options.inMemoryDatabase,
    onPoolError: (error) =>
      log.warn({ err: error }, 'database connection lost; the pool reconnects'),
  });
  log.info(
    {
      database: handle.kind,
      connection: handle.mode,
      directDatabaseUrl: env.directDatabaseUrl !== undefined,
    },
    `database ready, migrations applied: ${CONNECTION_MODE_MEANING[handle.mode]}`,
  );
  const store = createStore(handle);
  const metrics = createMetrics({
    readSnapshot: () => readMetricsSnapshot(handle.db),
    snapshotMaxAgeMs: options.metricsSnapshotMaxAgeMs,
    log,
  });

  const writeBudget =
    options.writeBudget === false
      ? undefined
      : new WriteBudget({
          reservations: new WriteReservationStore(handle.db),
          ...options.writeBudget,
          metrics,
          log,
        });
  const Octokit = options.Octokit ?? CoordinatorOctokit;
  const probot = new Probot({
    appId: env.appId,
    privateKey: env.privateKey,
    secret: env.webhookSecret,
    baseUrl: env.githubBaseUrl,
    log: log.child({ name: 'probot' }),
    Octokit: withRateLimitMetrics(
      writeBudget ? withWriteBudget(Octokit, writeBudget) : Octokit,
      metrics,
    ),
  });
  const appOctokit = async () => (await probot.auth()) as Octokit;
  const publicUrl = createPublicUrl({
    configured: env.publicUrl,
    readWebhookUrl: async () => {
      const { data } = await (
        await appOctokit()
      ).request('GET /app/hook/config', {
        request: { retries: 0 },
      });
      return data.url;
    },
    log,
  });
  const engine = createEngine({
    store,
    log,
    probot,
    publicUrl,
    appId: env.appId,
    maxParallel: env.maxParallel,
    now: options.now,
    metrics,
    writeBudget,
  });
  // One cache of trigger labels for the label handler and for ingest, which decides as it does.
  const triggerLabels = options.services?.triggerLabels ?? new TriggerLabelCache();
  const handledEvents = new HandledEvents(env.appId, triggerLabels);
  await probot.load(
    createApp(
      { store, metrics, engine, appId: env.appId, triggerLabels, ...options.services },
      handledEvents,
    ),
  );

  const pressure = new IngestPressure();
  const processor = new DeliveryProcessor({
    pressure,
    ...options.processor,
    deliveries: store.deliveries,
    log,
    metrics,
    afterDrain: () => engine.flushStatus(),
    handle: (delivery) => {
      const payload = parseWebhookBody(delivery.body);
      // Ingest stored only JSON objects: anything else is a row written by something else.
      if (!payload) throw new Error(`delivery ${delivery.id} holds no JSON object`);
      return probot.receive({
        id: delivery.id,
        name: delivery.event,
        payload,
      } as EmitterWebhookEvent);
    },
  });

  const ingest = createWebhookIngest({
    secret: env.webhookSecret,
    deliveries: store.deliveries,
    metrics,
    log,
    onAccepted: () => processor.kick(),
    actsOn: (event, action, payload) => handledEvents.actsOn(event, action, payload),
    pressure,
    maxUnverifiedBytes: options.limits?.maxUnverifiedBytes,
  });
  // Off (404) unless DASHBOARD_TOKEN is set.
  const dashboard = env.dashboardToken
    ? createDashboard({
        db: store.handle.db,
        token: env.dashboardToken,
        githubBaseUrl: env.githubBaseUrl,
        log,
      })
    : undefined;
  const server = createHttpServer({
    ingest,
    requestTimeoutMs: options.limits?.requestTimeoutMs,
    pingDatabase: () => handle.ping(),
    metrics,
    log,
    routes: {
      ...dashboard?.routes,
      [ASSIGNMENT_PATH]: createAssignmentRoute({
        engine,
        publicUrl,
        verify: createOidcVerifier({ ...actionsIssuer(env.gheOrigin), ...options.oidc }),
        mintToken: createWorkerTokenMinter(appOctokit),
        metrics,
        log,
      }),
      ...options.routes,
    },
  });

  let url = '';
  if (options.listen !== false) {
    const address = await listen(server, env.port, env.host);
    const host = address.host.includes(':') ? `[${address.host}]` : address.host;
    url = `http://${host}:${address.port}`;
    log.info({ url }, 'agent-coordinator listening');
  }
  // Said at start, without holding the start up: an unknown public URL means nothing is
  // dispatched, and its own log line says why.
  void publicUrl.current().then((known) => {
    if (known) log.info({ publicUrl: known }, 'workers reach the coordinator at its public URL');
  });
  const redeliver = createRedeliverer({ probot, deliveries: store.deliveries, log });
  const runSweep = async () => {
    const report = await handle.tryExclusive(LOCK_KEYS.sweep, async () => {
      const timer = metrics.sweepSeconds.startTimer();
      await redeliver().catch((error: unknown) =>
        log.warn({ err: error }, 'could not redeliver failed webhook deliveries'),
      );
      // Kept well past GitHub's 3-day redelivery window, so a late redelivery is still known.
      await store.deliveries
        .forget(new Date(Date.now() - DELIVERY_RETENTION_MS))
        .catch((error: unknown) => log.warn({ err: error }, 'could not forget old deliveries'));
      const result = await sweep(engine, { graceMs: options.sweepGraceMs });
      await engine.flushStatus();
      timer();
      return result;
    });
    // Retries that came due and deliveries a crashed process left behind.
    processor.kick();
    if (report) log.debug({ ...report }, 'sweep done');
    return report;
  };
  const task =
    options.schedule === false
      ? undefined
      : cron.schedule(
          env.sweepSchedule,
          () =>
            void runSweep().catch((error: unknown) => log.error({ err: error }, 'sweep failed')),
          {
            noOverlap: true,
            name: 'agent-coordinator-sweep',
          },
        );
  // Once right after start: deliveries stored before a crash, runs that moved while we were down.
  if (options.schedule !== false)
    void runSweep().catch((error: unknown) => log.error({ err: error }, 'sweep failed'));
  else processor.kick();

  return {
    probot,
    store,
    metrics,
    processor,
    server,
    engine,
    writeBudget,
    url,
    sweep: runSweep,
    whenIdle: () => processor.whenIdle(),
    async close() {
      await task?.stop();
      dashboard?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      // Writes waiting for the budget's window fail now rather than hold the shutdown for up to
      // a window (their deliveries are handled again after the restart); the rest go on.
      writeBudget?.close();
      await processor.stop();
      await handle.close();
    },
  };
}
