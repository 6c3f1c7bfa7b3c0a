import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { MAINTAINER, OWNER, REPO, REPO_NAME } from './e2e/harness.js';
import { startGitHubDouble } from './github-double/index.js';
import { TEST_APP_ID, TEST_PRIVATE_KEY, TEST_WEBHOOK_SECRET } from './helpers/app.js';
import { createTestDatabase } from './helpers/postgres.js';
import { spawnApp } from './helpers/process.js';

/**
 * A proxy in front of the GitHub double that holds the first request matching `hold` until
 * `release()`: the test knows a delivery is mid-handling without sleeping.
 */
async function startHoldingProxy(target: string, hold: (req: IncomingMessage) => boolean) {
  const upstream = new URL(target);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let onHeld!: (path: string) => void;
  const held = new Promise<string>((resolve) => (onHeld = resolve));
  let holding = false;
  const server: Server = createServer((req, res) => {
    const forward = () => {
      const up = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    };
    if (!holding && hold(req)) {
      holding = true;
      onHeld(req.url ?? '');
      void released.then(forward);
    } else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    held,
    release,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('graceful shutdown', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('on SIGTERM stops taking webhooks, finishes the delivery in flight, and exits 0', async () => {
    const double = await startGitHubDouble({
      webhookSecret: TEST_WEBHOOK_SECRET,
      appId: TEST_APP_ID,
    });
    cleanups.push(() => double.close());
    double.setWorker(null);
    const permission = new RegExp(`/repos/${REPO}/collaborators/${MAINTAINER}/permission`);
    const proxy = await startHoldingProxy(double.url, (req) => permission.test(req.url ?? ''));
    cleanups.push(() => proxy.close());
    const database = await createTestDatabase(inject('templateDatabase'));
    cleanups.push(() => database.drop());

    const app = spawnApp({
      APP_ID: String(TEST_APP_ID),
      PRIVATE_KEY: TEST_PRIVATE_KEY,
      WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'debug',
      DATABASE_URL: database.url,
      GHE_HOST: proxy.host,
      GHE_PROTOCOL: 'http',
    });
    cleanups.push(() => app.kill());
    const line = await app.waitForLine(/agent-coordinator listening/);
    const url = (JSON.parse(line) as { url: string }).url;
    double.setWebhookUrl(`${url}/api/github/webhooks`);
    await double.createRepo({ owner: OWNER, name: REPO_NAME });
    await double.setPermission(REPO, MAINTAINER, 'maintain');
    const issue = await double.openIssue(REPO, {
      title: 'Login',
      body: '```tasks\n- id: a\n  title: A\n```',
      user: MAINTAINER,
    });
    await double.addLabel(REPO, issue, 'agent', MAINTAINER);
    const labeled = double.deliveries({ event: 'issues', action: 'labeled' })[0]!;
    expect(labeled.statusCode).toBe(202);

    // The labeled delivery is being handled: its permission check is held at the proxy.
    await proxy.held;
    app.child.kill('SIGTERM');
    await app.waitForLine(/shutting down: finishing in-flight deliveries/);
    // Stopped listening, not exited: it waits for the delivery.
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    expect(app.child.exitCode).toBeNull();

    proxy.release();
    expect(await app.exited).toBe(0);
    const output = app.output.join('\n');
    expect(output).toMatch(new RegExp(`"delivery":"${labeled.guid}".*delivery handled`));
    expect(output).not.toMatch(/handling failed|"level":(50|60)/);
    // The handling went to the end: task a was dispatched on its branch.
    expect(double.branches(REPO)).toContain(`agent/${issue}/a`);
    expect(double.runs(REPO).map((r) => r.inputs['task_id'])).toEqual(['a']);
  }, 60_000);
});
