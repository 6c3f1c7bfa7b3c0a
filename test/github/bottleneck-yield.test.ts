import Bottleneck from 'bottleneck/light.js';
import { pino } from 'pino';
import { Probot } from 'probot';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  BOTTLENECK_STARTS_WITHOUT_TIMERS,
  BOTTLENECK_YIELDS_WITHOUT_TIMERS,
} from '../../src/github/bottleneck-yield.js';
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
  it('is patched: its datastore yields and its jobs start without a timer', () => {
    expect(BOTTLENECK_YIELDS_WITHOUT_TIMERS).toBe(true);
    expect(BOTTLENECK_STARTS_WITHOUT_TIMERS).toBe(true);
  });

  it('runs a job that may start now with no timer, not one per datastore step and its start', async () => {
    const limiter = new Bottleneck({ maxConcurrent: 10 });
    const { value, timers } = await zeroDelayTimers(() => limiter.schedule(async () => 42));
    expect(value).toBe(42);
    expect(timers).toBe(0);
  });

  it('still spaces jobs by minTime: the second starts on a timer, minTime after the first', async () => {
    const minTime = 40;
    const limiter = new Bottleneck({ maxConcurrent: 1, minTime });
    const starts: number[] = [];
    const spy = vi.spyOn(globalThis, 'setTimeout');
    try {
      await Promise.all(
        [1, 2].map(() => limiter.schedule(async () => void starts.push(performance.now()))),
      );
      const waits = spy.mock.calls.map(([, ms]) => ms ?? 0).filter((ms) => ms > 0);
      expect(waits.length).toBe(1);
      expect(waits[0]).toBeGreaterThan(minTime / 2);
    } finally {
      spy.mockRestore();
    }
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(minTime - 1);
  });

  it('retries a failed job after the delay its failed listener asks for, on a timer', async () => {
    const limiter = new Bottleneck();
    let calls = 0;
    limiter.on('failed', (_error, info) => (info.retryCount < 2 ? 5 : undefined));
    const { value, timers } = await zeroDelayTimers(() =>
      limiter.schedule(async () => {
        calls += 1;
        if (calls < 3) throw new Error(`attempt ${calls}`);
        return calls;
      }),
    );
    expect(value).toBe(3);
    expect(timers).toBe(0);
  });

  it('does not start a job that stop() dropped before its start came', async () => {
    const limiter = new Bottleneck({ maxConcurrent: 10 });
    let ran = false;
    const job = limiter.schedule({ id: 'dropped' }, async () => {
      ran = true;
    });
    // Bottleneck says "Drained" just before it calls `_run`, which marks the job RUNNING and
    // sets its start: stop it right after, before the start comes.
    const stopped = new Promise<void>((resolve) =>
      limiter.on('debug', (message: string) => {
        if (message === 'Drained dropped')
          queueMicrotask(() => {
            expect(limiter.jobStatus('dropped')).toBe('RUNNING');
            void limiter.stop({ dropWaitingJobs: true }).then(() => resolve());
          });
      }),
    );
    await expect(job).rejects.toThrow(/stopped/);
    await stopped;
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toBe(false);
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

    it('waits on no timer (three job starts and a dozen datastore steps before the patches)', async () => {
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
      expect(timers).toBe(0);
    });
  });
});
