import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { sign } from '@octokit/webhooks-methods';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startGitHubDouble } from '../github-double/index.js';
import { spawnApp, type AppProcess } from '../helpers/process.js';
import { readSetupForm } from './setup-form.js';

// The contract for the App's registration (README "Registering the App on GitHub").
const EVENTS = [
  'issues',
  'issue_comment',
  'pull_request',
  'pull_request_review',
  'check_run',
  'check_suite',
  'workflow_run',
  'workflow_job',
  'merge_group',
];
const PERMISSIONS = {
  actions: 'write',
  checks: 'write',
  contents: 'write',
  issues: 'write',
  pull_requests: 'write',
  merge_queues: 'write',
  statuses: 'read',
  metadata: 'read',
};
const appYml = parse(readFileSync(join(import.meta.dirname, '../../app.yml'), 'utf8')) as Record<
  string,
  unknown
>;

// Only a guard against a hang: a cold PGlite start takes half a minute on a loaded machine.
const STARTUP_MS = 90_000;
const GITHUB_WEBHOOK_SECRET = 'secret-github-generated-for-the-new-app';

async function deliverPing(url: string, id: string, secret: string): Promise<number> {
  const body = JSON.stringify({ zen: 'Design for failure.', hook_id: 1 });
  const response = await fetch(`${url}/api/github/webhooks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'ping',
      'x-github-delivery': id,
      'x-hub-signature-256': await sign(secret, body),
    },
    body,
  });
  return response.status;
}

describe('registering the App through the setup flow', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it(
    'registers the App with its webhook at PUBLIC_URL, writes DATA_DIR/.env, and runs from it',
    async () => {
      const double = await startGitHubDouble({ webhookSecret: GITHUB_WEBHOOK_SECRET });
      cleanups.push(() => double.close());
      const cwd = mkdtempSync(join(tmpdir(), 'ac-setup-'));
      cleanups.push(() => rmSync(cwd, { recursive: true, force: true }));
      const github = { GHE_HOST: double.gheHost, GHE_PROTOCOL: 'http' };

      const setup: AppProcess = spawnApp(
        {
          ...github,
          PORT: '0',
          HOST: '127.0.0.1',
          LOG_LEVEL: 'info',
          PUBLIC_URL: 'https://coordinator.example.test/',
        },
        { cwd },
      );
      cleanups.push(() => setup.kill());
      const ready = JSON.parse(await setup.waitForLine(/open the setup page/, STARTUP_MS)) as {
        url: string;
      };
      const origin = new URL(ready.url).origin;

      // The browser opens the app and is sent to the setup page.
      const root = await fetch(`${origin}/`, { redirect: 'manual' });
      expect(root.status).toBe(302);
      expect(root.headers.get('location')).toBe('/probot');
      const form = readSetupForm(await (await fetch(ready.url)).text());

      expect(form.method).toBe('post');
      expect(form.action.origin + form.action.pathname).toBe(`${double.url}/settings/apps/new`);
      const state = form.action.searchParams.get('state');
      expect(state).toMatch(/^[0-9a-f]{32}$/);
      const manifest = form.manifest;
      expect(manifest.hook_attributes).toEqual({
        url: 'https://coordinator.example.test/api/github/webhooks',
      });
      expect(manifest.redirect_url).toBe(`${origin}/probot/setup`);
      expect(manifest.default_events).toEqual(EVENTS);
      expect(manifest.default_permissions).toEqual(PERMISSIONS);
      expect(appYml['default_events']).toEqual(EVENTS);
      expect(appYml['default_permissions']).toEqual(PERMISSIONS);
      for (const field of ['name', 'url', 'description', 'public'])
        expect(manifest[field]).toEqual(appYml[field]);

      // GitHub accepts the manifest and sends the browser back with a code and our state.
      const code = double.registerAppFromManifest(manifest);
      const forged = await fetch(`${manifest.redirect_url}?code=${code}&state=not-ours`, {
        redirect: 'manual',
      });
      expect(forged.status).toBe(400);
      const back = await fetch(`${manifest.redirect_url}?code=${code}&state=${state}`, {
        redirect: 'manual',
      });
      expect(back.status).toBe(302);
      expect(back.headers.get('location')).toBe(
        `${double.url}/apps/${double.appSlug}/installations/new`,
      );
      expect(
        double.requests.filter((r) => r.route === 'POST /app-manifests/{code}/conversions'),
      ).toEqual([
        expect.objectContaining({ status: 201, path: `/app-manifests/${code}/conversions` }),
      ]);

      // DATA_DIR's default, in the working directory; nothing is written beside the code.
      const envFile = join(cwd, '.data', '.env');
      expect(existsSync(join(cwd, '.env'))).toBe(false);
      const written = parseEnv(readFileSync(envFile, 'utf8'));
      expect(written).toMatchObject({
        APP_ID: String(double.appId),
        WEBHOOK_SECRET: GITHUB_WEBHOOK_SECRET,
        GITHUB_CLIENT_ID: expect.any(String),
        GITHUB_CLIENT_SECRET: expect.any(String),
      });
      expect(written['PRIVATE_KEY']).toMatch(
        /^-----BEGIN RSA PRIVATE KEY-----\n[\s\S]+\n-----END RSA PRIVATE KEY-----\n?$/,
      );
      expect(statSync(envFile).mode & 0o777).toBe(0o600);
      await setup.kill('SIGTERM');
      expect(setup.child.exitCode).toBe(0);

      // Restarted with nothing but the file it wrote: the App runs, with GitHub's secret.
      const app = spawnApp(
        { ...github, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'debug' },
        { cwd },
      );
      cleanups.push(() => app.kill());
      const listening = JSON.parse(
        await app.waitForLine(/agent-coordinator listening/, STARTUP_MS),
      ) as {
        url: string;
      };
      expect(await deliverPing(listening.url, 'ping-signed-by-github', GITHUB_WEBHOOK_SECRET)).toBe(
        202,
      );
      // Stored and acknowledged; no handler acts on a ping (src/webhooks/handled-events.ts).
      await app.waitForLine(
        /"delivery":"ping-signed-by-github".*no handler acts on it/,
        STARTUP_MS,
      );
      expect(await deliverPing(listening.url, 'ping-forged', 'development')).toBe(401);
      expect(await deliverPing(listening.url, 'ping-other-secret', 'another-secret')).toBe(401);
      // The private key from .env signs App JWTs GitHub accepts (the start-up sweep's delivery read).
      await double.waitFor(
        (d) => d.requests.find((r) => r.path === '/app/hook/deliveries' && r.status === 200),
        {
          description: 'an App-authenticated request from the restarted app',
          timeoutMs: STARTUP_MS,
        },
      );
      double.assertNoViolations();
    },
    4 * STARTUP_MS,
  );
});
