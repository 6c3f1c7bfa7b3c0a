import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { sign } from '@octokit/webhooks-methods';
import type { ProbotOctokit } from 'probot';
import {
  startCoordinator,
  type Coordinator,
  type CoordinatorOptions,
} from '../../src/coordinator.js';
import { parseEnv } from '../../src/env.js';
import { CoordinatorOctokit } from '../../src/github/coordinator-octokit.js';
import { GITHUB_WRITE_LIMITS } from '../../src/github/write-budget.js';
import { createLogger } from '../../src/logger.js';
import { pgliteTemplate } from './pglite.js';

export const TEST_PRIVATE_KEY = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs1', format: 'pem' })
  .toString();

export const TEST_WEBHOOK_SECRET = 'test-webhook-secret';
export const TEST_APP_ID = 4242;
export const TEST_PUBLIC_URL = 'http://coordinator.test';

/**
 * The server's Octokit with its retry and throttling plugins off. Probot 14 ignores
 * `throttle: { enabled: false }` in options (probot#2039); the function form works.
 */
export const TestOctokit = CoordinatorOctokit.defaults((options: Record<string, unknown>) => ({
  ...options,
  retry: { enabled: false },
  throttle: { ...(options.throttle as object), enabled: false },
})) as typeof ProbotOctokit;

/** Every log line the app writes, kept for assertions (and for scanning for secrets). */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  text(): string {
    return this.lines.join('\n');
  }
}

export interface TestCoordinator extends Coordinator {
  logs: LogCapture;
  /** POST a signed webhook to the running app; returns the HTTP status. */
  send(
    event: string,
    payload: unknown,
    options?: { id?: string; secret?: string },
  ): Promise<Response>;
}

/**
 * GitHub's write window without the pace (a burst may take the whole window). The double answers
 * at once, so a test's writes come in bursts no agent's pace would make, and past the pace's
 * burst each would wait 0.75 s: a four-task stacking scenario took 20 s instead of 1.5 s. The pace
 * is tested in test/core/write-grant.test.ts, test/github/write-budget.test.ts (the store, the
 * queue, two replicas) and test/reliability/write-budget-fleet.test.ts (two replicas, real time).
 */
const TEST_WRITE_LIMITS = {
  ...GITHUB_WRITE_LIMITS,
  burst: GITHUB_WRITE_LIMITS.perWindow,
  criticalBurst: 0,
};

export async function startTestCoordinator(
  options: {
    databaseUrl?: string;
    githubBaseUrl?: string;
    env?: NodeJS.ProcessEnv;
    /**
     * `test` (default): TestOctokit, retries and throttling off. `production`: the Octokit
     * `npm start` uses (Probot's, retry and throttling plugins on).
     */
    octokit?: 'test' | 'production';
  } & Partial<
    Pick<
      CoordinatorOptions,
      'services' | 'now' | 'sweepGraceMs' | 'processor' | 'writeBudget' | 'oidc' | 'limits'
    >
  > = {},
): Promise<TestCoordinator> {
  const env = parseEnv({
    APP_ID: String(TEST_APP_ID),
    PRIVATE_KEY: TEST_PRIVATE_KEY,
    WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'debug',
    // The workers' OIDC audience and the dispatches' coordinator_url; a test that wants it
    // worked out from the App's webhook URL sets PUBLIC_URL to ''.
    PUBLIC_URL: TEST_PUBLIC_URL,
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    ...(options.githubBaseUrl
      ? { GHE_HOST: new URL(options.githubBaseUrl).host, GHE_PROTOCOL: 'http' }
      : {}),
    ...options.env,
  });
  const logs = new LogCapture();
  const coordinator = await startCoordinator({
    env: { ...env, appId: env.appId!, privateKey: env.privateKey! },
    log: createLogger({ level: 'debug', destination: logs }),
    Octokit: options.octokit === 'production' ? undefined : TestOctokit,
    inMemoryDatabase: options.databaseUrl ? false : await pgliteTemplate(),
    services: options.services,
    now: options.now,
    sweepGraceMs: options.sweepGraceMs,
    processor: options.processor,
    writeBudget: options.writeBudget ?? { limits: TEST_WRITE_LIMITS },
    oidc: options.oidc,
    limits: options.limits,
    // Tests step the sweep by hand.
    schedule: false,
    // A scrape shows what the test just did.
    metricsSnapshotMaxAgeMs: 0,
  });
  return Object.assign(coordinator, {
    logs,
    async send(event: string, payload: unknown, opts: { id?: string; secret?: string } = {}) {
      const body = JSON.stringify(payload);
      return fetch(`${coordinator.url}/api/github/webhooks`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': event,
          'x-github-delivery': opts.id ?? randomUUID(),
          'x-hub-signature-256': await sign(opts.secret ?? TEST_WEBHOOK_SECRET, body),
        },
        body,
      });
    },
  });
}
