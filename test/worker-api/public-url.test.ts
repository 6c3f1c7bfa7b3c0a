import type { LogFn } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createPublicUrl } from '../../src/github/public-url.js';
import { parseEnv } from '../../src/env.js';
import { REPO, closeScenario, startScenario, type Scenario } from '../e2e/harness.js';
import { REFUSALS } from '../../src/worker-api/refusals.js';
import { ask, startIssue } from './fixture.js';

function recordingLog() {
  const lines: Array<{ level: string; msg: string }> = [];
  const at = (level: string) =>
    ((_: unknown, msg: string) => {
      lines.push({ level, msg });
    }) as LogFn;
  return { lines, info: at('info'), error: at('error') };
}

describe('the public URL', () => {
  it('is PUBLIC_URL when set, without a trailing slash, and must be an http(s) URL', async () => {
    const env = parseEnv({ PUBLIC_URL: 'https://coordinator.example/base/' });
    expect(env.publicUrl).toBe('https://coordinator.example/base');
    expect(() => parseEnv({ PUBLIC_URL: 'ftp://coordinator.example' })).toThrow(/PUBLIC_URL/);
    expect(() => parseEnv({ PUBLIC_URL: 'coordinator.example' })).toThrow(/PUBLIC_URL/);
    const log = recordingLog();
    let reads = 0;
    const url = createPublicUrl({
      configured: env.publicUrl,
      readWebhookUrl: async () => `${++reads}`,
      log,
    });
    expect(await url.current()).toBe('https://coordinator.example/base');
    expect(reads).toBe(0);
  });

  it("is otherwise the origin of the App's webhook URL, asked again until GitHub has one", async () => {
    const log = recordingLog();
    const hook: { url?: string } = {};
    let reads = 0;
    const url = createPublicUrl({
      readWebhookUrl: async () => {
        reads++;
        return hook.url;
      },
      log,
    });
    const [first, second] = await Promise.all([url.current(), url.current()]);
    expect([first, second, reads]).toEqual([undefined, undefined, 1]);
    expect(await url.current()).toBeUndefined();
    // Said once, not on every dispatch that finds it unknown.
    expect(log.lines.filter((l) => l.level === 'error')).toHaveLength(1);
    expect(log.lines[0]!.msg).toMatch(/PUBLIC_URL is not set and cannot be worked out/);
    hook.url = 'https://hooks.example:8443/api/github/webhooks';
    expect(await url.current()).toBe('https://hooks.example:8443');
    expect(await url.current()).toBe('https://hooks.example:8443');
    expect(reads).toBe(3);
  });

  describe('in a running coordinator', () => {
    let s: Scenario | undefined;
    afterEach(async () => {
      await closeScenario(s);
      s = undefined;
    });

    it('read from GET /app/hook/config is the coordinator_url of every dispatch', async () => {
      s = await startScenario({ env: { PUBLIC_URL: '' } });
      s.double.setWorker(null);
      await startIssue(s, ['a']);
      expect(s.double.runs(REPO).map((r) => r.inputs['coordinator_url'])).toEqual([
        new URL(s.app.url).origin,
      ]);
    });

    it('unknown: said at start, nothing dispatched, workers answered 503; then it goes on', async () => {
      s = await startScenario({
        env: { PUBLIC_URL: '' },
        beforeApp: (double) =>
          double.faults.add({
            method: 'GET',
            path: /^\/app\/hook\/config$/,
            status: 404,
            times: 1000,
          }),
      });
      s.double.setWorker(null);
      await startIssue(s, ['a']);
      expect(s.double.runs(REPO)).toHaveLength(0);
      expect(s.app.logs.text()).toContain(
        "PUBLIC_URL is not set and cannot be worked out from the App's webhook URL",
      );
      const answer = await ask(s, 'Bearer a.b.c', { task_id: 'a', issue: '1', attempt: '1' });
      expect(answer).toMatchObject({ status: 503, json: { error: REFUSALS.public_url.error } });

      s.double.faults.clear();
      await s.app.sweep();
      await s.settle();
      expect(s.double.runs(REPO)).toHaveLength(1);
    });
  });
});
