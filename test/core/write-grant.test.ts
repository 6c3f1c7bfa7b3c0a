import { describe, expect, it } from 'vitest';
import {
  decideWriteGrant,
  paceLevel,
  type WriteGrant,
  type WriteLimits,
} from '../../src/core/write-grant.js';
import type { WritePriority } from '../../src/core/write-priority.js';

/** One write a second on average, four at once at most, the last two for the critical path. */
const LIMITS: WriteLimits = {
  perWindow: 60,
  windowMs: 60_000,
  burst: 4,
  criticalBurst: 2,
  creatingPerLongWindow: 500,
  longWindowMs: 3_600_000,
  inFlightLeaseMs: 600_000,
};
const NOW = 1_000_000;
/** Writes granted and answered `ago` ms before now. */
const at = (...ago: number[]) => ago.map((a) => NOW - a);

describe('the pace of an installation’s writes', () => {
  it.each<[string, number[], number]>([
    ['full after a quiet window', [], 4],
    ['one taken', at(0), 3],
    ['four taken at once: empty', at(0, 0, 0, 0), 0],
    ['refills a write a second', at(2000, 2000, 2000, 2000), 2],
    ['never above the burst', at(30_000, 30_000), 4],
    ['a write a second keeps it full less one', at(3000, 2000, 1000, 0), 3],
    ['writes before the window are forgotten', at(60_001, 60_001, 60_001, 60_001, 60_001), 4],
    ['a grant stamped later than now (another replica’s clock) counts as now', [NOW + 500], 3],
  ])('%s', (_, grantedAt, level) => {
    expect(paceLevel(grantedAt, NOW, LIMITS)).toBeCloseTo(level, 9);
  });
});

describe('whether a write may go now', () => {
  const decide = (priority: WritePriority, grantedAt: number[], answeredAt = grantedAt) =>
    decideWriteGrant(priority, { grantedAt, answeredAt }, NOW, LIMITS);

  it.each<[string, WritePriority, number[], WriteGrant]>([
    ['a status edit in a quiet window', 'report', [], { go: true }],
    ['a status edit with three of the burst left', 'report', at(0), { go: true }],
    // Two taken: what is left is the critical path's.
    [
      'a status edit once only the critical part is left',
      'report',
      at(0, 0),
      { go: false, retryAt: NOW + 1000, reason: 'pace' },
    ],
    ['a reply likewise', 'prepare', at(0, 0), { go: false, retryAt: NOW + 1000, reason: 'pace' }],
    ['a dispatch takes the critical part', 'advance', at(0, 0), { go: true }],
    ['…to the last write of it', 'advance', at(0, 0, 0), { go: true }],
    [
      'a dispatch waits for the refill once the burst is spent',
      'advance',
      at(0, 0, 0, 0),
      { go: false, retryAt: NOW + 1000, reason: 'pace' },
    ],
    [
      'a status edit waits until the critical part is whole again',
      'report',
      at(0, 0, 0, 0),
      { go: false, retryAt: NOW + 3000, reason: 'pace' },
    ],
    [
      'half refilled: the rest of the write',
      'advance',
      at(500, 500, 500, 500),
      { go: false, retryAt: NOW + 500, reason: 'pace' },
    ],
  ])('%s', (_, priority, grantedAt, grant) => {
    expect(decide(priority, grantedAt)).toEqual(grant);
  });

  // The window: 60 writes answered over the last minute, at the pace (one a second).
  const paced = Array.from({ length: 60 }, (_, i) => NOW - 59_500 + i * 1000);
  it.each<[string, WritePriority, number[], WriteGrant]>([
    [
      'a dispatch when the window is full waits for its oldest to leave it',
      'advance',
      paced,
      { go: false, retryAt: paced[0]! + 60_000, reason: 'window' },
    ],
    [
      // 48 of 60: the last fifth of the window is the critical path's.
      'a status edit when the window holds its share',
      'report',
      paced.slice(12),
      { go: false, retryAt: paced[12]! + 60_000, reason: 'window' },
    ],
    ['a dispatch in the window’s last fifth', 'advance', paced.slice(12), { go: true }],
  ])('%s', (_, priority, answeredAt, grant) => {
    // Granted long ago (no pace to speak of): only the window decides.
    expect(decide(priority, [], answeredAt)).toEqual(grant);
  });

  it('names the later of the two when both hold a write', () => {
    // The pace empty for a second; the window full until its oldest leaves, 200 ms or 5 s on.
    const windowUntil = (ms: number) =>
      Array.from({ length: 60 }, (_, i) => NOW - 60_000 + ms + i * 900);
    expect(decide('advance', at(0, 0, 0, 0), windowUntil(200))).toEqual({
      go: false,
      retryAt: NOW + 1000,
      reason: 'pace',
    });
    expect(decide('advance', at(0, 0, 0, 0), windowUntil(5000))).toEqual({
      go: false,
      retryAt: NOW + 5000,
      reason: 'window',
    });
  });

  it('a burst of one still lets every write through, in turn', () => {
    const one = { ...LIMITS, burst: 1, criticalBurst: 1 };
    expect(decideWriteGrant('report', { grantedAt: [], answeredAt: [] }, NOW, one)).toEqual({
      go: true,
    });
    expect(decideWriteGrant('report', { grantedAt: at(0), answeredAt: at(0) }, NOW, one)).toEqual({
      go: false,
      retryAt: NOW + 1000,
      reason: 'pace',
    });
  });
});
