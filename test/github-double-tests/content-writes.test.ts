import { describe, expect, it } from 'vitest';
import { ContentWriteWindow } from '../github-double/server/content-writes.js';

describe("the double's content-write window", () => {
  it('counts each actor’s writes of the last window, a write exactly a window old no longer', () => {
    const window = new ContentWriteWindow();
    window.windowMs = 1000;
    for (let at = 0; at < 10_000; at += 10) window.record('app[bot]', at);
    window.record('someone', 5000);
    // Writes at 9010 … 9990 are inside (9000, 10000]; the one at 9000 has left.
    expect(window.count('app[bot]', 10_000)).toBe(99);
    expect(window.count('someone', 5999)).toBe(1);
    expect(window.count('someone', 6000)).toBe(0);
    expect(window.count('nobody', 10_000)).toBe(0);
    expect(window.count('app[bot]', 11_000)).toBe(0);
    window.record('app[bot]', 11_000);
    expect(window.count('app[bot]', 11_000)).toBe(1);
  });

  it('answers the same as a scan of every write, at any check time', () => {
    const window = new ContentWriteWindow();
    window.windowMs = 500;
    const all: number[] = [];
    let at = 0;
    for (let i = 0; i < 5000; i++) {
      at += (i * 7919) % 23;
      window.record(null, at);
      all.push(at);
      if (i % 37 === 0) {
        const now = at + ((i * 31) % 400);
        expect(window.count(null, now)).toBe(all.filter((t) => t > now - 500).length);
      }
    }
  });
});
