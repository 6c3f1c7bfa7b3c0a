import type { Logger } from 'pino';
import type { Probot } from 'probot';
import { createAppGitHub } from '../github/app-github.js';
import { createOctokitPort, type Octokit } from '../github/octokit-port.js';
import type { WriteBudget } from '../github/write-budget.js';
import type { PublicUrl } from '../github/public-url.js';
import type { Metrics } from '../metrics.js';
import type { Store } from '../store/index.js';
import type { Engine } from './context.js';
import { createEngineMemory } from './memory.js';
import { refreshStatus, StatusQueue } from './status.js';

export interface EngineOptions {
  store: Store;
  log: Logger;
  probot: Probot;
  appId: number;
  maxParallel: number;
  publicUrl: PublicUrl;
  now?: () => Date;
  metrics?: Pick<Metrics, 'decisionSeconds'>;
  writeBudget?: Pick<WriteBudget, 'nextWriteInSeconds'>;
}

export type RunningEngine = Engine & {
  readonly statusQueue: StatusQueue;
  flushStatus(): Promise<void>;
};

export function createEngine(options: EngineOptions): RunningEngine {
  const now = options.now ?? (() => new Date());
  let appLogin: Promise<string> | undefined;
  const appOctokit = async () => (await options.probot.auth()) as Octokit;
  const readAppLogin = async () => {
    const octokit = await appOctokit();
    const { data } = await octokit.request('GET /app');
    if (!data?.slug) throw new Error("GitHub's record of the App names no slug");
    return `${data.slug}[bot]`;
  };
  const engine: RunningEngine = {
    store: options.store,
    log: options.log,
    maxParallel: options.maxParallel,
    coordinatorUrl: () => options.publicUrl.current(),
    appLogin() {
      appLogin ??= readAppLogin().catch((error: unknown) => {
        appLogin = undefined;
        throw error;
      });
      return appLogin;
    },
    metrics: options.metrics,
    writeBudget: options.writeBudget,
    now,
    memory: createEngineMemory(now),
    appGitHub: createAppGitHub(appOctokit),
    async portFor(installationId: number) {
      const octokit = (await options.probot.auth(installationId)) as Octokit;
      return createOctokitPort(octokit, { appId: options.appId });
    },
    requestStatus(runId: number) {
      statusQueue.request(runId);
    },
    statusQueue: undefined as unknown as StatusQueue,
    async flushStatus() {
      await statusQueue.flush((runId, error) =>
        options.log.error({ err: error, run: runId }, 'status comment refresh failed'),
      );
    },
  };
  const statusQueue = new StatusQueue((runId) => refreshStatus(engine, runId));
  Object.assign(engine, { statusQueue });
  return engine;
}
