import { describe, expect, it } from 'vitest';
import { WritePacer } from '../../bench/lib/write-pacer.js';
import { latencySampler } from '../github-double/server/latency.js';

/** Holds the busy installation's writes at a target (bench/lib/write-pacer.ts). */
describe('WritePacer', () => {
  // A write a second; a released task brings two; five seconds of lead.
  const options = { targetPerS: 1, writesPerTask: 2, leadMs: 5000, maxOutstanding: 2 };

  it('releases while the writes stay within the target, up to the outstanding cap', () => {
    const pacer = new WritePacer(options, 0);
    expect(pacer.shouldRelease(1000)).toBe(true);
    expect(pacer.shouldRelease(1000)).toBe(true);
    // Two released, none merged: the cap holds the third.
    expect(pacer.shouldRelease(1000)).toBe(false);
    pacer.taskMerged();
    expect(pacer.shouldRelease(1000)).toBe(true);
  });

  it('counts the writes released tasks will still bring', () => {
    const pacer = new WritePacer({ ...options, maxOutstanding: 10 }, 0);
    // At 1 s the target allows 6 writes with the lead: three tasks of two.
    expect([1, 2, 3, 4].map(() => pacer.shouldRelease(1000))).toEqual([true, true, true, false]);
    // Their writes land: the same count, so no more room until time moves.
    pacer.taskMerged();
    for (let i = 0; i < 2; i++) pacer.wrote(1500);
    expect(pacer.shouldRelease(1500)).toBe(false);
    expect(pacer.shouldRelease(3000)).toBe(true);
  });

  it('pays an overshoot back: holds until the average since the start is at the target', () => {
    const pacer = new WritePacer(options, 0);
    // Two writes a second for ten seconds, from other runs of the installation.
    for (let at = 0; at < 10_000; at += 500) pacer.wrote(at);
    // 20 written; by 10 s the target allows 15 with the lead, and a task would bring 2 more.
    expect(pacer.shouldRelease(10_000)).toBe(false);
    expect(pacer.shouldRelease(16_500)).toBe(false);
    expect(pacer.shouldRelease(17_000)).toBe(true);
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
