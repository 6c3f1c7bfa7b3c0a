import { describe, expect, it } from 'vitest';
import { fileDiff, place } from '../github-double/line-diff.js';

const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'].join('\n') + '\n';
// Line 3 changed, line 11 removed: two hunks.
const after = ['a', 'b', 'C', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'l'].join('\n') + '\n';

describe("the double's line diff: where a review comment lands", () => {
  const diff = fileDiff(before, after);

  it('makes unified hunks with three lines of context', () => {
    expect(diff.hunks.map((h) => h.header)).toEqual(['@@ -1,6 +1,6 @@', '@@ -8,5 +8,4 @@']);
  });

  it.each([
    // side, line, startLine, diff_hunk's last line, position
    ['RIGHT', 3, null, '+C', 4],
    ['LEFT', 3, null, '-c', 3],
    ['RIGHT', 5, 2, ' e', 6],
    ['RIGHT', 10, null, ' j', 11],
    ['LEFT', 11, null, '-k', 12],
  ] as const)(
    '%s line %i (from %s) quotes up to %s at position %i',
    (side, line, start, last, position) => {
      const placed = place(diff, side, line, start, start === null ? null : side);
      expect(placed?.diffHunk.split('\n').at(-1)).toBe(last);
      expect(placed?.position).toBe(position);
    },
  );

  it.each([
    ['RIGHT', 7, null, 'outside every hunk'],
    ['RIGHT', 9, 3, 'the two ends in different hunks'],
    ['RIGHT', 2, 4, 'a start after the end'],
    ['LEFT', 13, null, 'a line the old file does not have'],
  ] as const)('refuses %s line %i (from %s): %s', (side, line, start, _why) => {
    expect(place(diff, side, line, start, start === null ? null : side)).toBeNull();
  });
});
