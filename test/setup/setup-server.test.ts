import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { quoteEnvValue, updateEnvFile } from '../../src/setup/env-file.js';
import { startSetupServer, type SetupOptions } from '../../src/setup/server.js';
import { startGitHubDouble } from '../github-double/index.js';
import type { GitHubDouble } from '../github-double/scenario.js';
import { readSetupForm } from './setup-form.js';

const log = createLogger({ level: 'silent' });
let double: GitHubDouble;
let dir: string;
beforeAll(async () => {
  double = await startGitHubDouble({ webhookSecret: 'github-made-this' });
  dir = mkdtempSync(join(tmpdir(), 'ac-setup-unit-'));
});
afterAll(async () => {
  await double.close();
  rmSync(dir, { recursive: true, force: true });
});

const TOKEN = 'setup-token-for-tests';

async function withSetup<T>(
  options: Partial<SetupOptions['env']> & { organization?: string; envFile?: string },
  use: (url: string, envFile: string) => Promise<T>,
): Promise<T> {
  const { organization, envFile = join(dir, `${Math.random()}.env`), ...env } = options;
  const setup = await startSetupServer({
    env: { port: 0, host: '127.0.0.1', githubBaseUrl: double.apiUrl, ...env },
    organization,
    envFile,
    token: TOKEN,
    log,
  });
  try {
    return await use(setup.url, envFile);
  } finally {
    await setup.close();
  }
}

describe('the setup page', () => {
  it('asks for the setup token: without it nobody registers an App in its place', async () => {
    await withSetup({}, async (url) => {
      for (const path of ['/probot', '/probot?token=', '/probot?token=setup-token-for-test'])
        expect((await fetch(`${url}${path}`)).status, path).toBe(403);
      expect((await fetch(`${url}/probot?token=${TOKEN}`)).status).toBe(200);
    });
  });

  it('makes a token of its own when none is set, and logs the page with it', async () => {
    const setup = await startSetupServer({
      env: { port: 0, host: '127.0.0.1', githubBaseUrl: double.apiUrl },
      envFile: join(dir, 'own-token.env'),
      log,
    });
    try {
      const token = new URL(setup.pageUrl).searchParams.get('token');
      expect(token).toMatch(/^[\w-]{24}$/);
      expect((await fetch(`${setup.url}/probot`)).status).toBe(403);
      expect((await fetch(`${setup.url}/probot?token=${token}`)).status).toBe(200);
    } finally {
      await setup.close();
    }
  });

  it('registers the webhook at WEBHOOK_PROXY_URL when set, PUBLIC_URL or not', async () => {
    await withSetup(
      { publicUrl: 'https://coordinator.example.test', webhookProxyUrl: 'https://smee.io/abc123' },
      async (url) => {
        const html = await (await fetch(`${url}/probot?token=${TOKEN}`)).text();
        expect(readSetupForm(html).manifest.hook_attributes.url).toBe('https://smee.io/abc123');
        expect(html).not.toContain('GitHub must be able to reach this address');
      },
    );
  });

  it('falls back to the address the page was opened at, behind a proxy too, and says so', async () => {
    await withSetup({}, async (url) => {
      const html = await (
        await fetch(`${url}/probot?token=${TOKEN}`, {
          headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'coord.example.org' },
        })
      ).text();
      const { manifest } = readSetupForm(html);
      expect(manifest.hook_attributes.url).toBe('https://coord.example.org/api/github/webhooks');
      expect(manifest.redirect_url).toBe('https://coord.example.org/probot/setup');
      expect(html).toContain('GitHub must be able to reach this address');
    });
  });

  it("posts to the organization's new-App page for GH_ORG", async () => {
    await withSetup({ organization: 'acme' }, async (url) => {
      const { action } = readSetupForm(await (await fetch(`${url}/probot?token=${TOKEN}`)).text());
      expect(action.origin + action.pathname).toBe(
        `${double.url}/organizations/acme/settings/apps/new`,
      );
    });
  });

  it('writes nothing when the state is missing or GitHub refuses the code', async () => {
    await withSetup({}, async (url, envFile) => {
      const { action, manifest } = readSetupForm(
        await (await fetch(`${url}/probot?token=${TOKEN}`)).text(),
      );
      const state = action.searchParams.get('state');
      const code = double.registerAppFromManifest(manifest);
      expect((await fetch(`${url}/probot/setup?code=${code}`)).status).toBe(400);
      // A code GitHub never issued (or one already converted): GitHub answers 404.
      const refused = await fetch(`${url}/probot/setup?code=not-a-code&state=${state}`);
      expect(refused.status).toBe(502);
      expect(await refused.text()).toContain('GitHub refused the code');
      // The state was spent on the refused attempt: a replay with it is refused too.
      expect((await fetch(`${url}/probot/setup?code=${code}&state=${state}`)).status).toBe(400);
      expect(existsSync(envFile)).toBe(false);
    });
    double.assertNoViolations();
  });

  it('says what to do when the credentials cannot be written', async () => {
    const envFile = join(dir, 'no-such-dir', '.env');
    await withSetup({ envFile }, async (url) => {
      const { action, manifest } = readSetupForm(
        await (await fetch(`${url}/probot?token=${TOKEN}`)).text(),
      );
      const code = double.registerAppFromManifest(manifest);
      const state = action.searchParams.get('state');
      const answer = await fetch(`${url}/probot/setup?code=${code}&state=${state}`);
      expect(answer.status).toBe(500);
      expect(await answer.text()).toContain(
        `${double.url}/settings/apps/${double.appSlug}), generate a private key`,
      );
    });
    double.assertNoViolations();
  });

  it('answers /healthz 200 in setup mode, and says what to do', async () => {
    await withSetup({}, async (url) => {
      const before = await fetch(`${url}/healthz`);
      expect(before.status).toBe(200);
      expect(before.headers.get('content-type')).toBe('application/json');
      expect(await before.json()).toEqual({
        status: 'setup',
        message: 'no App credentials: register the GitHub App at /probot, then restart',
      });

      const { action, manifest } = readSetupForm(
        await (await fetch(`${url}/probot?token=${TOKEN}`)).text(),
      );
      const code = double.registerAppFromManifest(manifest);
      const back = await fetch(
        `${url}/probot/setup?code=${code}&state=${action.searchParams.get('state')}`,
        { redirect: 'manual' },
      );
      expect(back.status).toBe(302);

      const after = await fetch(`${url}/healthz`);
      expect(after.status).toBe(200);
      expect(await after.json()).toEqual({
        status: 'setup',
        message: `the GitHub App ${double.appId} is registered: restart to run it`,
      });
    });
    double.assertNoViolations();
  });

  it('refuses to register another App over saved credentials before the restart', async () => {
    await withSetup({}, async (url, envFile) => {
      const first = readSetupForm(await (await fetch(`${url}/probot?token=${TOKEN}`)).text());
      const second = readSetupForm(await (await fetch(`${url}/probot?token=${TOKEN}`)).text());
      const code = double.registerAppFromManifest(first.manifest);
      const back = await fetch(
        `${url}/probot/setup?code=${code}&state=${first.action.searchParams.get('state')}`,
        { redirect: 'manual' },
      );
      expect(back.status).toBe(302);
      const saved = readFileSync(envFile, 'utf8');

      const page = await fetch(`${url}/probot?token=${TOKEN}`);
      expect(page.status).toBe(409);
      expect(await page.text()).toContain(
        `The GitHub App ${double.appId} is registered and its credentials are saved: restart the app to run it.`,
      );
      // The page opened before the registration finished cannot overwrite it either.
      const otherCode = double.registerAppFromManifest(second.manifest);
      const late = await fetch(
        `${url}/probot/setup?code=${otherCode}&state=${second.action.searchParams.get('state')}`,
        { redirect: 'manual' },
      );
      expect(late.status).toBe(409);
      expect(readFileSync(envFile, 'utf8')).toBe(saved);
    });
    double.assertNoViolations();
  });

  it('keeps the variables already in .env', async () => {
    const envFile = join(dir, 'kept.env');
    writeFileSync(envFile, 'PUBLIC_URL=https://coordinator.example.test\nWEBHOOK_SECRET=old\n');
    await withSetup({ envFile }, async (url) => {
      const { action, manifest } = readSetupForm(
        await (await fetch(`${url}/probot?token=${TOKEN}`)).text(),
      );
      const code = double.registerAppFromManifest(manifest);
      const state = action.searchParams.get('state');
      const back = await fetch(`${url}/probot/setup?code=${code}&state=${state}`, {
        redirect: 'manual',
      });
      expect(back.status).toBe(302);
    });
    double.assertNoViolations();
    expect(parseEnv(readFileSync(envFile, 'utf8'))).toMatchObject({
      PUBLIC_URL: 'https://coordinator.example.test',
      WEBHOOK_SECRET: 'github-made-this',
      APP_ID: String(double.appId),
    });
  });
});

describe('the env file', () => {
  it("reads back every value it writes, as Node's env-file parser reads it", () => {
    const unit = fc.constantFrom('a', ' ', '\n', '"', "'", '`', '\\', 'n', '#', '=', '$', '\t');
    fc.assert(
      fc.property(fc.string({ unit }), (value) => {
        let quoted: string;
        try {
          quoted = quoteEnvValue(value);
        } catch {
          // Only a value no quoting fits cannot be written: a line break or a single quote, a
          // double quote or a literal backslash-n, and a backtick.
          return /[\n']/.test(value) && /"|\\n/.test(value) && value.includes('`');
        }
        const back = parseEnv(`A=${quoted}\nB=after\n`);
        return back['A'] === value && back['B'] === 'after';
      }),
      { numRuns: 2000 },
    );
  });

  it('writes a PEM on one line that loads back whole', () => {
    const envFile = join(dir, 'pem.env');
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIE\nabc=\n-----END RSA PRIVATE KEY-----\n';
    updateEnvFile(envFile, { PRIVATE_KEY: pem });
    expect(readFileSync(envFile, 'utf8').trim().split('\n')).toHaveLength(1);
    expect(parseEnv(readFileSync(envFile, 'utf8'))['PRIVATE_KEY']).toBe(pem);
  });
});
