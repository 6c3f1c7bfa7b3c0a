import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv, promisify } from 'node:util';
import { sign } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/package-root.js';
import { readSetupForm } from '../setup/setup-form.js';
import { startGitHubDouble } from '../github-double/index.js';
import type { GitHubDouble } from '../github-double/scenario.js';
import { spawnProcess, type AppProcess } from '../helpers/process.js';
import { buildImageLayout, type ImageLayout } from './image-layout.js';
import { imageUser, type ImageUser } from './image-user.js';

const exec = promisify(execFile);

// Guards against a hang only: the build runs tsc and an npm install, and a cold PGlite start
// takes half a minute on a loaded machine.
const BUILD_MS = 5 * 60_000;
const STARTUP_MS = 90_000;
const GITHUB_WEBHOOK_SECRET = 'secret-github-generated-for-the-image-app';

/**
 * The Docker image without Docker (README "Running it", docs/running.md "Setup mode"): the
 * Dockerfile's stages reproduced into a directory, its final stage started as its `USER`
 * with its `ENV` and `CMD`, on whatever `node` is on PATH, and probed with its own
 * `HEALTHCHECK`. The test's own are the port (0: any free one), the log level, GitHub (the
 * double), and a temporary directory that holds the image's paths.
 */
describe('the image', () => {
  let user: ImageUser;
  let image: ImageLayout;
  let double: GitHubDouble;
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  beforeAll(async () => {
    user = await imageUser('node');
    const into = mkdtempSync(join(tmpdir(), 'ac-image-'));
    // The image's user owns what it wrote under the volume: only root removes it.
    cleanups.push(() => run(user.privileged(['rm', '-rf', into])));
    image = await buildImageLayout({
      context: packageRoot(),
      dockerfile: join(packageRoot(), 'Dockerfile'),
      into,
      user,
    });
    double = await startGitHubDouble({ webhookSecret: GITHUB_WEBHOOK_SECRET });
    cleanups.push(() => double.close());
  }, BUILD_MS);

  /** The container: its CMD as its USER in its WORKDIR, with its ENV and GitHub at the double. */
  function start(): AppProcess {
    expect(image.user).toBe(user.name);
    const env = {
      PATH: process.env.PATH,
      ...image.env,
      PORT: '0',
      // Debug lines say when a delivery is handled.
      LOG_LEVEL: 'debug',
      GHE_HOST: double.gheHost,
      GHE_PROTOCOL: 'http',
    };
    const app = spawnProcess(user.wrap(image.cmd, env), {
      cwd: image.workdir,
      env: { PATH: process.env.PATH },
    });
    cleanups.push(() => app.kill());
    return app;
  }

  /** The address in a start-up log line, reached through the loopback as the health check does. */
  async function address(app: AppProcess, line: RegExp): Promise<string> {
    return new URL(await logged(app, line)).origin;
  }

  /** The URL a start-up log line prints, reached through the loopback as the health check does. */
  async function logged(app: AppProcess, line: RegExp): Promise<string> {
    const { url } = JSON.parse(await app.waitForLine(line, STARTUP_MS)) as { url: string };
    const local = new URL(url);
    local.hostname = '127.0.0.1';
    return local.href;
  }

  /** The image's HEALTHCHECK, run by a shell as its USER with its ENV: true when it exits 0. */
  async function healthcheck(port: string): Promise<boolean> {
    const argv = user.wrap(['sh', '-c', image.healthcheck], {
      PATH: process.env.PATH,
      ...image.env,
      PORT: port,
    });
    return run(argv).then(
      () => true,
      () => false,
    );
  }

  /** The uid of the app's own process: setpriv's exec, under sudo's child when not root. */
  function uidOf(app: AppProcess): number {
    let pid = String(app.child.pid);
    for (;;) {
      const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
      if (children === '') break;
      pid = children.split(' ')[0]!;
    }
    // The program, not the thread name: Node 24 names its main thread "MainThread".
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    expect(argv).toContain(image.cmd.at(-1));
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
  }

  it(
    'runs as its user, in setup mode while it has no credentials, healthy, and writes them to its volume',
    async () => {
      const dataDir = image.env['DATA_DIR']!;
      expect(image.volumes).toEqual(['/data']);
      expect(dataDir).toBe(image.hostPath('/data'));
      expect(image.env['NODE_ENV']).toBe('production');

      const setup = start();
      // The log gives the setup page with its token (docs/running.md "Setup mode").
      const pageUrl = await logged(setup, /open the setup page to register the GitHub App/);
      const origin = new URL(pageUrl).origin;
      expect((await fetch(`${origin}/probot`)).status).toBe(403);
      expect(uidOf(setup)).toBe(user.uid);
      expect(await healthcheck(new URL(origin).port)).toBe(true);
      const health = await fetch(`${origin}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'setup' });

      // The browser registers the App on GitHub (the double) and comes back with the code.
      const { action, manifest } = readSetupForm(await (await fetch(pageUrl)).text());
      const code = double.registerAppFromManifest(manifest);
      const back = await fetch(
        `${manifest.redirect_url}?code=${code}&state=${action.searchParams.get('state')}`,
        { redirect: 'manual' },
      );
      expect(back.status).toBe(302);

      const envFile = join(dataDir, '.env');
      expect(parseEnv(readFileSync(envFile, 'utf8'))).toMatchObject({
        APP_ID: String(double.appId),
        WEBHOOK_SECRET: GITHUB_WEBHOOK_SECRET,
      });
      expect(statSync(envFile)).toMatchObject({ uid: user.uid });
      expect(statSync(envFile).mode & 0o777).toBe(0o600);
      expect(existsSync(join(image.workdir, '.env'))).toBe(false);
      await setup.kill('SIGTERM');
      expect(setup.child.exitCode).toBe(0);
    },
    2 * STARTUP_MS,
  );

  it(
    'restarted, runs the App from the credentials on its volume: healthy, and takes signed webhooks',
    async () => {
      const app = start();
      const origin = await address(app, /agent-coordinator listening/);
      expect(uidOf(app)).toBe(user.uid);
      expect(await healthcheck(new URL(origin).port)).toBe(true);
      expect(await (await fetch(`${origin}/healthz`)).json()).toEqual({
        status: 'ok',
        database: 'ok',
      });
      // PGlite keeps its data on the volume too.
      expect(existsSync(join(image.env['DATA_DIR']!, 'pglite'))).toBe(true);

      const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
      const deliver = async (id: string, secret: string) =>
        (
          await fetch(`${origin}/api/github/webhooks`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-github-event': 'ping',
              'x-github-delivery': id,
              'x-hub-signature-256': await sign(secret, body),
            },
            body,
          })
        ).status;
      expect(await deliver('image-ping', GITHUB_WEBHOOK_SECRET)).toBe(202);
      await app.waitForLine(/"delivery":"image-ping".*no handler acts on it/, STARTUP_MS);
      expect(await deliver('image-ping-forged', 'development')).toBe(401);
      await app.kill('SIGTERM');
      expect(app.child.exitCode).toBe(0);
      double.assertNoViolations();
    },
    2 * STARTUP_MS,
  );
});

async function run(argv: string[]): Promise<void> {
  await exec(argv[0]!, argv.slice(1));
}
