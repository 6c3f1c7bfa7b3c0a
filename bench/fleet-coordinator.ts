// Child process of bench/fleet.ts: the real coordinator (server, processor, sweep) on Postgres,
// talking to the GitHub double in the parent.
import { createWriteStream } from 'node:fs';
import { startCoordinator } from '../src/coordinator.js';
import { parseEnv } from '../src/env.js';
import { createLogger } from '../src/logger.js';
import { TestOctokit } from '../test/helpers/app.js';
import { tell, type ChildMessage } from './lib/child.js';
import { handlingByEvent, statementBuckets } from './lib/metrics.js';

const env = parseEnv({
  APP_ID: process.env.BENCH_APP_ID,
  PRIVATE_KEY: process.env.BENCH_PRIVATE_KEY,
  WEBHOOK_SECRET: process.env.BENCH_WEBHOOK_SECRET,
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
  DATABASE_URL: process.env.BENCH_DATABASE_URL,
  GHE_HOST: process.env.BENCH_GHE_HOST,
  GHE_PROTOCOL: 'http',
  COORDINATOR_MAX_PARALLEL: process.env.BENCH_MAX_PARALLEL,
});
const whatIf = Number(process.env.BENCH_PROCESSOR_CONCURRENCY ?? '');
// The production run (bench/production.ts) takes the app's defaults: CoordinatorOctokit and the
// installation write budget on GitHub's limits.
const production = process.env.BENCH_PRODUCTION === '1';
const coordinator = await startCoordinator({
  env: { ...env, appId: env.appId!, privateKey: env.privateKey! },
  log: createLogger({ level: 'info', destination: createWriteStream('/dev/null') }),
  // The fleet: Octokit's throttling plugin spaces writes 1 s apart per installation (GitHub's
  // advice for one token); against the double that would measure the plugin, not the coordinator.
  // Likewise the installation write budget (80 writes a minute): the fleet is one installation,
  // and the double's own limit is off. `fleet_writes_per_task` says what the budget would meter.
  ...(production ? {} : { Octokit: TestOctokit, writeBudget: false as const }),
  // What-if runs only (bench/run.ts --processor-concurrency): the processor's concurrency,
  // else the app's (DEFAULT_CONCURRENCY in src/webhooks/processor.ts).
  ...(whatIf > 0 ? { processor: { concurrency: whatIf } } : {}),
});

let rssPeak = 0;
const sample = () => {
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
};
const sampler = setInterval(sample, 100);

process.on('message', (message: ChildMessage) => {
  if (message.type === 'idle') {
    void coordinator.whenIdle().then(() => tell({ type: 'idle' }));
  } else if (message.type === 'stats') {
    sample();
    void Promise.all([
      coordinator.store.deliveries.countByStatus(),
      handlingByEvent(coordinator),
      statementBuckets(coordinator),
    ]).then(([byStatus, handling, statements]) =>
      tell({
        type: 'stats',
        rssPeakMb: rssPeak / 2 ** 20,
        rssMb: process.memoryUsage().rss / 2 ** 20,
        heapMb: process.memoryUsage().heapUsed / 2 ** 20,
        byStatus,
        handling,
        statements,
      }),
    );
  } else if (message.type === 'stop') {
    clearInterval(sampler);
    void coordinator.close().finally(() => process.exit(0));
  }
});
process.on('disconnect', () => process.exit(0));
tell({ type: 'ready', url: coordinator.url });
