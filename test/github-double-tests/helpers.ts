import { generateKeyPairSync } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from '@octokit/webhooks-methods';
import { Octokit } from '@octokit/rest';
import { ProbotOctokit } from 'probot';
import {
  startGitHubDouble,
  type GitHubDouble,
  type GitHubDoubleOptions,
} from '../github-double/index.js';

export const SECRET = 'double-test-secret';
export const APP_ID = 4242;

export interface ReceivedWebhook {
  event: string;
  action: string | undefined;
  delivery: string;
  payload: Record<string, unknown>;
}

// A minimal webhook receiver that refuses unsigned or wrongly signed deliveries.
export class Receiver extends EventEmitter {
  readonly received: ReceivedWebhook[] = [];
  rejected = 0;
  // Status to answer with (after verifying); lets tests make deliveries fail.
  answerStatus = 200;
  private server: Server | undefined;
  url = '';

  async start(secret: string): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const signature = String(req.headers['x-hub-signature-256'] ?? '');
        void verify(secret, body, signature).then((ok) => {
          if (!ok) {
            this.rejected += 1;
            res.writeHead(401).end('bad signature');
            return;
          }
          const payload = JSON.parse(body) as Record<string, unknown>;
          const hook: ReceivedWebhook = {
            event: String(req.headers['x-github-event']),
            action: typeof payload['action'] === 'string' ? payload['action'] : undefined,
            delivery: String(req.headers['x-github-delivery']),
            payload,
          };
          this.received.push(hook);
          this.emit('webhook', hook);
          res.writeHead(this.answerStatus, { 'content-type': 'text/plain' }).end('ok');
        });
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/github/webhooks`;
    return this;
  }

  of(event: string, action?: string): ReceivedWebhook[] {
    return this.received.filter(
      (h) => h.event === event && (action === undefined || h.action === action),
    );
  }

  names(): string[] {
    return this.received.map((h) => (h.action ? `${h.event}.${h.action}` : h.event));
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}

let cachedKey: string | undefined;
export function privateKey(): string {
  cachedKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs1', format: 'pem' })
    .toString();
  return cachedKey;
}

// Probot 14's throttle option only turns off through defaults().
export const QuietProbotOctokit = ProbotOctokit.defaults((o: Record<string, unknown>) => ({
  ...o,
  retry: { enabled: false },
  throttle: { ...(o['throttle'] as object), enabled: false },
}));

export type AppOctokit = InstanceType<typeof ProbotOctokit>;

export function installationOctokit(double: GitHubDouble, installationId: number): AppOctokit {
  return new QuietProbotOctokit({
    baseUrl: double.apiUrl,
    auth: { appId: double.appId, privateKey: privateKey(), installationId },
  }) as AppOctokit;
}

export function appOctokit(double: GitHubDouble): AppOctokit {
  return new QuietProbotOctokit({
    baseUrl: double.apiUrl,
    auth: { appId: double.appId, privateKey: privateKey() },
  }) as AppOctokit;
}

export function userOctokit(double: GitHubDouble, login: string): Octokit {
  return new Octokit({
    baseUrl: double.apiUrl,
    auth: double.createUserToken(login),
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
}

export interface World {
  double: GitHubDouble;
  receiver: Receiver;
  repo: string;
  octokit: AppOctokit;
  installationId: number;
}

// A double with one repository (acme/widgets), the app installed, and a signing receiver.
export async function startWorld(options: Partial<GitHubDoubleOptions> = {}): Promise<World> {
  const receiver = await new Receiver().start(SECRET);
  const double = await startGitHubDouble({
    webhookSecret: SECRET,
    webhookUrl: receiver.url,
    appId: APP_ID,
    ...options,
  });
  const repo = await double.createRepo({
    owner: 'acme',
    name: 'widgets',
    files: { '.github/agent-coordinator.yml': 'label: agent\n' },
  });
  const app = appOctokit(double);
  const { data } = await app.request('GET /repos/{owner}/{repo}/installation', {
    owner: 'acme',
    repo: 'widgets',
  });
  return {
    double,
    receiver,
    repo,
    octokit: installationOctokit(double, data.id),
    installationId: data.id,
  };
}

export async function stopWorld(world: World | undefined): Promise<void> {
  if (!world) return;
  await world.double.close();
  await world.receiver.close();
}

export function expectClean(double: GitHubDouble): void {
  double.assertNoViolations();
  if (double.selfCheckErrors.length > 0) {
    throw new Error(
      `double self-check failed:\n  ${double.selfCheckErrors.slice(0, 30).join('\n  ')}`,
    );
  }
}
