import { describe, expect, it } from 'vitest';
import { stackedBase, stackedPull } from '../../../src/core/stack/index.js';

/**
 * What a stacked task's attempt is dispatched on (docs/stacking.md): the parent's branch and
 * its PR while the parent has not merged; nothing once it has, or when the task is not stacked.
 */
describe('stackedBase and stackedPull', () => {
  it.each([
    { stackParent: 'a', stackParentPr: 12, unmetDeps: 1, base: 'agent/7/a', pr: 12 },
    { stackParent: 'a', stackParentPr: 12, unmetDeps: 0, base: null, pr: null },
    { stackParent: null, stackParentPr: null, unmetDeps: 1, base: null, pr: null },
    { stackParent: null, stackParentPr: null, unmetDeps: 0, base: null, pr: null },
  ])('stack parent $stackParent (#$stackParentPr), unmet $unmetDeps', (c) => {
    expect(stackedBase({ issueNumber: 7 }, c)).toBe(c.base);
    expect(stackedPull(c)).toBe(c.pr);
  });
});
