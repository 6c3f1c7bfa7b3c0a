import { describe, expect, it } from 'vitest';
import {
  decideInstallationLoss,
  repositoriesRemovedNow,
  type InstallationLoss,
  type InstallationNow,
} from '../../../src/core/lifecycle/index.js';

/**
 * An installation event's delivery may be a replay, or another event's body under its name: a
 * loss is recorded only when GitHub shows it now (src/core/lifecycle/access-loss.ts).
 */
describe('decideInstallationLoss', () => {
  const rows: { loss: InstallationLoss; now: InstallationNow; effect: string }[] = [
    { loss: 'deleted', now: null, effect: 'recordRemoved' },
    { loss: 'deleted', now: { suspended: false }, effect: 'none' },
    { loss: 'deleted', now: { suspended: true }, effect: 'none' },
    { loss: 'suspend', now: { suspended: true }, effect: 'recordSuspended' },
    { loss: 'suspend', now: { suspended: false }, effect: 'none' },
    // Uninstalled since: the deletion's own event records that.
    { loss: 'suspend', now: null, effect: 'none' },
  ];
  it.each(rows)('$loss, GitHub showing $now: $effect', ({ loss, now, effect }) => {
    const effects = decideInstallationLoss(loss, now);
    expect(effects.map((e) => e.kind)).toEqual([effect]);
  });
});

describe('repositoriesRemovedNow', () => {
  it('keeps those the installation holds now, and takes those held by none or by another', () => {
    const holders = [
      { id: 1, holder: 7 }, // given back since, or never removed
      { id: 2, holder: null }, // removed
      { id: 3, holder: 8 }, // moved to another installation
    ];
    expect(repositoriesRemovedNow(7, holders)).toEqual([2, 3]);
    expect(repositoriesRemovedNow(7, [])).toEqual([]);
  });
});
