import type { AddressInfo } from 'node:net';
import { Core } from './core.js';
import { handleGraphql } from './graphql/handler.js';
import { findRun, playOrHoldCiAttempt } from './ops/actions.js';
import { buildRoutes } from './routes.js';
import { GitHubDouble } from './scenario.js';
import type { PermissionLevel } from './model.js';
import { manifestPermissions } from './server/app-manifest.js';
import { OidcIssuer } from './oidc/issuer.js';
import { Faults } from './server/faults.js';
import { GitHttp } from './server/git-http.js';
import { createHttpServer } from './server/http-server.js';
import { latencySampler, type AnswerLatency } from './server/latency.js';
import { openApi } from './server/openapi.js';
import { WebhookSender, type DeliveryChaos } from './webhooks/sender.js';
import { SimulatedWorker } from './worker/simulated-worker.js';

export interface GitHubDoubleOptions {
  webhookSecret: string;
  webhookUrl?: string;
  appId?: number;
  appSlug?: string;
  // Only these events are delivered, like an App's subscription (default: all).
  subscribedEvents?: readonly string[];
  // Check the double's own answers and webhooks against GitHub's spec (default true).
  selfCheck?: boolean;
  // The App's permissions; default: `default_permissions` of the project's app.yml.
  appPermissions?: Record<string, PermissionLevel>;
  // Deliver late, out of order and sometimes twice, as GitHub may (default: in order, once).
  delivery?: DeliveryChaos;
  // Answer each API call after a seeded random time, as GitHub takes (default: at once).
  answerLatency?: AnswerLatency;
}

export async function startGitHubDouble(options: GitHubDoubleOptions): Promise<GitHubDouble> {
  openApi();
  const core = new Core({
    webhookSecret: options.webhookSecret,
    webhookUrl: options.webhookUrl,
    appId: options.appId ?? 123456,
    appSlug: options.appSlug ?? 'agent-coordinator',
    subscribedEvents: options.subscribedEvents,
    selfCheck: options.selfCheck ?? true,
    appPermissions: options.appPermissions ?? manifestPermissions(),
  });
  const sender = new WebhookSender(core, options.delivery);
  // With reordering on, a worker's steps do not wait for their deliveries either: its push, its
  // PR and its run's completion reach the app in any order.
  const worker = new SimulatedWorker(core, { awaitDeliveries: !sender.reorders });
  core.hooks = {
    sendWebhook: (input) => sender.send(input),
    redeliver: (delivery) => sender.redeliver(delivery),
    onDispatch: (runId) => worker.onDispatch(runId),
    // A CI run plays its plan's next attempt (or holds it for `releaseCi`); the worker's run
    // is the worker's again.
    onRerun: async (runId) => {
      const run = findRun(core, runId);
      if (run?.ciPlan)
        await playOrHoldCiAttempt(core, run, async (sent) => void (await Promise.all(sent)));
      else worker.onDispatch(runId);
    },
  };
  const faults = new Faults();
  const git = new GitHttp(core, faults);
  const oidc = await OidcIssuer.create(core);
  const server = createHttpServer({
    core,
    routes: buildRoutes(),
    faults,
    graphql: handleGraphql,
    git,
    latency: options.answerLatency ? latencySampler(options.answerLatency) : undefined,
    services: async (method, url, authorization) =>
      core.jobLogs.answer(method, url) ?? oidc.answer(method, url, authorization),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  core.url = `http://127.0.0.1:${port}`;
  return new GitHubDouble({ core, server, faults, sender, worker, git, oidc });
}
