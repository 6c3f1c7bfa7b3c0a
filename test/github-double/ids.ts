import { randomUUID } from 'node:crypto';

// Ids start above 2^32 so anything that squeezes them into int32/uint32 breaks in tests,
// as it would against github.com where comment, run and check ids already exceed 2^31.
const BASES = {
  repo: 4_300_000_000,
  issue: 4_400_000_000,
  pull: 4_500_000_000,
  comment: 5_000_000_000,
  reaction: 5_500_000_000,
  review: 5_600_000_000,
  reviewComment: 5_700_000_000,
  label: 6_000_000_000,
  installation: 7_000_000_000,
  workflow: 7_500_000_000,
  run: 9_000_000_000,
  job: 15_000_000_000,
  checkSuite: 10_000_000_000,
  checkRun: 20_000_000_000,
  status: 25_000_000_000,
  delivery: 40_000_000_000,
} as const;

export type IdKind = keyof typeof BASES;

export class Ids {
  private readonly counters = new Map<IdKind, number>();

  next(kind: IdKind): number {
    const n = (this.counters.get(kind) ?? 0) + 1;
    this.counters.set(kind, n);
    // Non-contiguous steps so an off-by-one between kinds does not accidentally line up.
    return BASES[kind] + n * 7;
  }
}

export function nodeId(prefix: string, id: number | string): string {
  return `${prefix}_kwDO${Buffer.from(String(id)).toString('base64url')}`;
}

export function uuid(): string {
  return randomUUID();
}

export function randomToken(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`;
}

// GitHub timestamps have second precision and a Z suffix. Every request, delivery and record
// asks for one, so the current second's string is kept.
let isoSecond = -1;
let isoString = '';

export function isoNow(offsetMs = 0): string {
  const second = Math.floor((Date.now() + offsetMs) / 1000);
  if (second !== isoSecond) {
    isoSecond = second;
    isoString = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return isoString;
}
