import { describe, expect, it } from 'vitest';
import { LOCK_KEYS, MAX_LOCKED_ID } from '../../src/store/lock-keys.js';

const PER_OBJECT = [
  'repositoryDispatch',
  'repositoryMerges',
  'runStatus',
  'installationWrites',
  'installationRefusals',
] as const;
const FIXED = ['migrations', 'sweep', 'inboxClaims', 'globalDispatch'] as const;
const INT64_MAX = (1n << 63n) - 1n;

describe('advisory lock keys', () => {
  it('give one object the same key in one namespace and different keys across namespaces', () => {
    for (const id of [1, 42, 2 ** 40 + 7, Number.MAX_SAFE_INTEGER]) {
      const keys = PER_OBJECT.map((name) => LOCK_KEYS[name](id));
      expect(new Set(keys).size).toBe(PER_OBJECT.length);
      for (const name of PER_OBJECT) expect(LOCK_KEYS[name](id)).toBe(LOCK_KEYS[name](id));
    }
  });

  it('keep every namespace apart, from the largest id of one to the smallest of the next', () => {
    const ranges = PER_OBJECT.map((name) => ({
      name,
      low: LOCK_KEYS[name](0),
      high: LOCK_KEYS[name](Number.MAX_SAFE_INTEGER),
    })).sort((a, b) => (a.low < b.low ? -1 : 1));
    for (let i = 1; i < ranges.length; i++)
      expect(ranges[i]!.low > ranges[i - 1]!.high, ranges[i]!.name).toBe(true);
    for (const range of ranges) expect(range.high <= INT64_MAX).toBe(true);
    for (const name of FIXED) {
      const key = LOCK_KEYS[name];
      const inside = ranges.find((r) => key >= r.low && key <= MAX_LOCKED_ID + r.low);
      expect(inside?.name, name).toBeUndefined();
      expect(key > 0n && key <= INT64_MAX).toBe(true);
    }
    expect(new Set(FIXED.map((name) => LOCK_KEYS[name])).size).toBe(FIXED.length);
  });

  it('refuse an id that would reach into the next namespace', () => {
    expect(() => LOCK_KEYS.runStatus(-1)).toThrow(RangeError);
    expect(() => LOCK_KEYS.runStatus(Number(MAX_LOCKED_ID) * 2)).toThrow(RangeError);
  });
});
