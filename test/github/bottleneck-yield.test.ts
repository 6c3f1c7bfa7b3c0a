import Bottleneck from 'bottleneck/light.js';
import { pino } from 'pino';
import { Probot } from 'probot';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BOTTLENECK_YIELDS_WITHOUT_TIMERS } from '../../src/github/bottleneck-yield.js';
import { CoordinatorOctokit } from '../../src/github/coordinator-octokit.js';
import { startApiStub } from '../helpers/api-stub.js';
import { TEST_APP_ID, TEST_PRIVATE_KEY } from '../helpers/app.js';

/** The zero-delay timers `fn` starts (Node clamps each to 1 ms). */
async function zeroDelayTimers<T>(fn: () => Promise<T>): Promise<{ value: T; timers: number }> {
  const spy = vi.spyOn(globalThis, 'setTimeout');
  try {
    const value = await fn();
    return { value, timers: spy.mock.calls.filter(([, ms]) => !ms).length };
  } finally {
    spy.mockRestore();
  }
}

describe('Bottleneck under Octokit’s retry and throttling plugins', () => {
  it('is patched: its datastore yields without a timer', () => {
    expect(BOTTLENECK_YIELDS_WITHOUT_TIMERS).toBe(true);
  });

  it('runs a job with one timer (the job’s own start), not one per datastore step', async () => {
    const limiter = new Bottleneck({ maxConcurrent: 10 });
    const { value, timers } = await zeroDelayTimers(() => limiter.schedule(async () => 42));
    expect(value).toBe(42);
    expect(timers).toBe(1);
  });

  it('still holds its limits: one at a time means the next job starts after the first ends', async () => {
    const limiter = new Bottleneck({ maxConcurrent: 1 });
    const events: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = limiter.schedule(async () => {
      events.push('first started');
      await held;
      events.push('first ended');
    });
    const second = limiter.schedule(async () => {
      events.push('second started');
    });
    await vi.waitFor(() => expect(events).toEqual(['first started']));
    // Give the limiter every chance to start the second job early.
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(['first started']);
    release();
    await Promise.all([first, second]);
    expect(events).toEqual(['first started', 'first ended', 'second started']);
  });

  describe('a GET of the production Octokit', () => {
    let stub: Awaited<ReturnType<typeof startApiStub>>;
    let baseUrl: string;
    beforeAll(async () => {
      stub = await startApiStub((_, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 1 }));
      });
      baseUrl = stub.baseUrl;
    });
    afterAll(() => stub.close());

    it('waits on three timers (the retry’s job and the throttle’s two), not a dozen', async () => {
      const probot = new Probot({
        appId: TEST_APP_ID,
        privateKey: TEST_PRIVATE_KEY,
        log: pino({ level: 'silent' }),
        Octokit: CoordinatorOctokit,
        baseUrl,
      });
      const octokit = await probot.auth(5);
      await octokit.request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' }); // the token
      const { value, timers } = await zeroDelayTimers(() =>
        octokit.request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' }),
      );
      expect(value.data).toEqual({ id: 1 });
      expect(timers).toBe(3);
    });
  });
});
