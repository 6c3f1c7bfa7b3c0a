import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { editDistance } from '../../../src/core/commands/edit-distance.js';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['', 'hold', 4],
    ['hold', 'hold', 0],
    ['aprove', 'approve', 1],
    ['approv', 'approve', 1],
    ['retyr', 'retry', 1],
    ['unhodl', 'unhold', 1],
    ['stauts', 'status', 1],
    ['ehlp', 'help', 1],
    ['tmp', 'help', 3],
    ['foo', 'veto', 3],
    ['kitten', 'sitting', 3],
  ])('%s -> %s is %i', (a, b, expected) => {
    expect(editDistance(a, b)).toBe(expected);
    expect(editDistance(b, a)).toBe(expected);
  });

  it('is a bounded, symmetric measure', () => {
    const word = fc.string({ maxLength: 12 });
    fc.assert(
      fc.property(word, word, (a, b) => {
        const d = editDistance(a, b);
        expect(d).toBe(editDistance(b, a));
        expect(d).toBeGreaterThanOrEqual(Math.abs(a.length - b.length));
        expect(d).toBeLessThanOrEqual(Math.max(a.length, b.length));
        expect(d === 0).toBe(a === b);
      }),
    );
  });
});

describe('editDistance with a limit', () => {
  it('is exact up to the limit and limit + 1 beyond it', () => {
    const word = fc.string({ maxLength: 12 });
    fc.assert(
      fc.property(word, word, fc.nat(6), (a, b, limit) => {
        const exact = editDistance(a, b);
        expect(editDistance(a, b, limit)).toBe(exact <= limit ? exact : limit + 1);
      }),
    );
  });
});
