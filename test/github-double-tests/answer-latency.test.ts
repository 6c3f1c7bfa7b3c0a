import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectClean, startWorld, stopWorld, type World } from './helpers.js';

// The production benchmark's GitHub answers in 50–150 ms (bench/production.ts).
describe('the double with an answer latency', () => {
  let w: World | undefined;
  beforeEach(async () => {
    w = await startWorld({ answerLatency: { minMs: 60, maxMs: 80, seed: 1 } });
  });
  afterEach(async () => {
    const world = w;
    w = undefined;
    await stopWorld(world);
    if (world) expectClean(world.double);
  });

  it('answers each API call after the drawn time, logging when the request arrived', async () => {
    const { double, octokit } = w!;
    const sent = Date.now();
    await octokit.rest.repos.get({ owner: 'acme', repo: 'widgets' });
    const answered = Date.now();
    const entry = double.requests.at(-1)!;
    expect(entry.route).toBe('GET /repos/{owner}/{repo}');
    // The installation token's request came first, with a latency of its own.
    expect(entry.receivedAtMs).toBeGreaterThanOrEqual(sent + 60);
    expect(answered - entry.receivedAtMs).toBeGreaterThanOrEqual(60);
  });
});
