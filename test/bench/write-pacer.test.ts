import { describe, expect, it } from 'vitest';
import { WritePacer } from '../../bench/lib/write-pacer.js';
import { latencySampler } from '../github-double/server/latency.js';

/** Holds the busy installation's writes near a target (bench/lib/write-pacer.ts). */
describe('WritePacer', () => {
  const options = { targetPerS: 0.8, windowMs: 10_000, maxOutstanding: 2 };

  it('releases while the trailing rate is below the target, up to the outstanding cap', () => {
    const pacer = new WritePacer(options, 0);
    expect(pacer.shouldRelease(1000)).toBe(true);
    expect(pacer.shouldRelease(1000)).toBe(true);
    // Two released, none merged: the cap holds the third.
    expect(pacer.shouldRelease(1000)).toBe(false);
    pacer.taskMerged();
    expect(pacer.shouldRelease(1000)).toBe(true);
  });

  it('holds once the writes of the last window reach the target', () => {
    const pacer = new WritePacer(options, 0);
    for (let at = 10_000; at < 20_000; at += 1000) pacer.wrote(at);
    expect(pacer.shouldRelease(20_000)).toBe(false);
    // Ten seconds later those writes left the window.
    expect(pacer.shouldRelease(30_500)).toBe(true);
  });

  it('forgets the writes before a restart', () => {
    const pacer = new WritePacer(options, 0);
    for (let at = 0; at < 10_000; at += 500) pacer.wrote(at);
    expect(pacer.shouldRelease(10_000)).toBe(false);
    pacer.restart(10_000);
    expect(pacer.shouldRelease(10_500)).toBe(true);
  });
});

/** The double's answer latency (test/github-double/server/latency.ts). */
describe('latencySampler', () => {
  it('draws uniformly within its bounds, the same sequence for the same seed', () => {
    const draws = Array.from({ length: 2000 }, latencySampler({ minMs: 50, maxMs: 150, seed: 7 }));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(50);
    expect(Math.max(...draws)).toBeLessThanOrEqual(150);
    const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
    expect(mean).toBeGreaterThan(97);
    expect(mean).toBeLessThan(103);
    const again = latencySampler({ minMs: 50, maxMs: 150, seed: 7 });
    expect(again()).toBe(draws[0]);
    expect(latencySampler({ minMs: 50, maxMs: 150, seed: 8 })()).not.toBe(draws[0]);
  });

  it('refuses bounds that are not an interval', () => {
    expect(() => latencySampler({ minMs: 100, maxMs: 50, seed: 1 })).toThrow(/minMs <= maxMs/);
  });
});
