import { describe, expect, it } from 'vitest';
import { TriggerLabelCache } from '../../src/config/trigger-labels.js';

describe('TriggerLabelCache', () => {
  it('knows a label is not the trigger only while the entry is fresh', () => {
    let now = 0;
    const cache = new TriggerLabelCache(60_000, () => now);
    expect(cache.isKnownOther(1, 'bug')).toBe(false);
    cache.remember(1, 'agent');
    expect(cache.isKnownOther(1, 'bug')).toBe(true);
    expect(cache.isKnownOther(1, 'agent')).toBe(false);
    expect(cache.isKnownOther(2, 'bug')).toBe(false);
    now = 59_999;
    expect(cache.isKnownOther(1, 'bug')).toBe(true);
    now = 60_000;
    expect(cache.isKnownOther(1, 'bug')).toBe(false);
  });

  it('forgets the repository remembered longest ago when full', () => {
    const cache = new TriggerLabelCache(60_000, () => 0, 2);
    cache.remember(1, 'a');
    cache.remember(2, 'a');
    cache.remember(1, 'a');
    cache.remember(3, 'a');
    expect(cache.isKnownOther(2, 'x')).toBe(false);
    expect(cache.isKnownOther(1, 'x')).toBe(true);
    expect(cache.isKnownOther(3, 'x')).toBe(true);
  });
});
