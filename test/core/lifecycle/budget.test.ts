import { describe, expect, it } from 'vitest';
import { decideBudget } from '../../../src/core/lifecycle/index.js';

/** docs/configuration.md budget: the run is held once its spend reaches the limit. */
describe('decideBudget', () => {
  const run = {
    state: 'running',
    finished: false,
    waived: false,
    spentUsd: 5,
    maxCostUsdPerRun: 5,
  };
  it.each([
    { name: 'spend at the limit holds a running run', over: {}, kind: 'hold' },
    { name: 'spend past the limit holds it', over: { spentUsd: 7.5 }, kind: 'hold' },
    { name: 'spend under the limit', over: { spentUsd: 4.99 }, kind: 'within' },
    {
      name: 'a waived budget (/unhold after a budget hold)',
      over: { waived: true },
      kind: 'within',
    },
    { name: 'a finished run', over: { finished: true }, kind: 'within' },
    { name: 'a run already held', over: { state: 'held' }, kind: 'within' },
    { name: 'a run still planning', over: { state: 'planning' }, kind: 'within' },
  ])('$name', ({ over, kind }) => {
    expect(decideBudget({ ...run, ...over }).kind).toBe(kind);
  });

  it('says what was spent of what, in the hold and in the comment', () => {
    const decision = decideBudget({ ...run, spentUsd: 1.2, maxCostUsdPerRun: 1 });
    expect(decision).toMatchObject({
      kind: 'hold',
      reason: 'budget reached: $1.20 of $1.00 spent',
    });
    expect(decision.kind === 'hold' && decision.comment).toContain('`/unhold`');
  });
});
