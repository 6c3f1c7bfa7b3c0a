import type { ChildProcess } from 'node:child_process';
import { startGitHubDouble, type GitHubDoubleOptions } from '../../test/github-double/index.js';
import type { GitHubDouble } from '../../test/github-double/scenario.js';
import { forkTs, stopChild } from './child.js';
import { BENCH_APP_ID, BENCH_WEBHOOK_SECRET, benchPrivateKey } from './keys.js';
import {
  autovacuumStandIn,
  createBenchDatabase,
  type AutovacuumStandIn,
  type BenchDatabase,
} from './postgres.js';
import type { Report } from './report.js';

/** COORDINATOR_MAX_PARALLEL of the fleets' coordinator. */
export const MAX_PARALLEL = 2000;

/** What a fleet benchmark runs against: a database, the GitHub double, the coordinator. */
export interface FleetStack {
  database: BenchDatabase;
  autovacuum: AutovacuumStandIn | undefined;
  double: GitHubDouble;
  /** bench/fleet-coordinator.ts, the real coordinator in a process of its own. */
  child: ChildProcess;
}

/**
 * A fresh database (with the autovacuum stand-in where the server has none), the GitHub double
 * with the App's subscription, and the coordinator started against both. The double never
 * refuses content writes: the coordinator's own budget and throttling (when on) meter them.
 */
export async function startFleetStack(options: {
  subscribedEvents: string[];
  nodeArgs?: string[];
  /** bench/fleet-coordinator.ts's BENCH_* settings beyond the connection's. */
  env?: Record<string, string>;
  answerLatency?: GitHubDoubleOptions['answerLatency'];
}): Promise<FleetStack> {
  const database = await createBenchDatabase();
  const autovacuum = await autovacuumStandIn(database.url);
  const double = await startGitHubDouble({
    webhookSecret: BENCH_WEBHOOK_SECRET,
    appId: BENCH_APP_ID,
    subscribedEvents: options.subscribedEvents,
    // The double checks its own answers against GitHub's OpenAPI spec; the tests keep that on.
    selfCheck: false,
    ...(options.answerLatency ? { answerLatency: options.answerLatency } : {}),
  });
  double.contentWritesPerMinute = Number.MAX_SAFE_INTEGER;
  const child = forkTs('fleet-coordinator.ts', {
    nodeArgs: options.nodeArgs,
    env: {
      BENCH_APP_ID: String(BENCH_APP_ID),
      BENCH_PRIVATE_KEY: benchPrivateKey(),
      BENCH_WEBHOOK_SECRET,
      BENCH_DATABASE_URL: database.url,
      BENCH_GHE_HOST: double.gheHost,
      BENCH_MAX_PARALLEL: String(MAX_PARALLEL),
      ...options.env,
    },
  });
  return { database, autovacuum, double, child };
}

/** Stops what startFleetStack started; `beforeDouble` runs once the coordinator is gone. */
export async function stopFleetStack(
  stack: FleetStack,
  report: Report,
  beforeDouble?: () => void,
): Promise<void> {
  await stopChild(stack.child, 60_000);
  beforeDouble?.();
  await stack.double.close();
  if (stack.autovacuum) {
    await stack.autovacuum.stop();
    report.note(
      `autovacuum is off on this server: the bench stood in for it (${stack.autovacuum.vacuums} vacuums, ${stack.autovacuum.analyzes} analyzes; see bench/lib/postgres.ts)`,
    );
  }
  await stack.database.drop();
}
