import { isCriticalWrite, windowLimitFor, type WritePriority } from './write-priority.js';

/** How many writes an installation may send, how fast, and how long the windows are. */
export interface WriteLimits {
  /** Every write (any non-GET request, GraphQL mutations) in a window. */
  perWindow: number;
  windowMs: number;
  /**
   * The pace: writes are granted at `perWindow` a window on average, with at most `burst` at
   * once after a quiet spell. Without it an installation could spend its whole window in a few
   * seconds and then wait for it to roll, up to a window.
   */
  burst: number;
  /** Of the burst, the part only the critical path may take (at least one write's worth apart). */
  criticalBurst: number;
  /** Writes that create content (comments, issues, pull requests, reviews, labels). */
  creatingPerLongWindow: number;
  longWindowMs: number;
  /**
   * A reservation not answered within this long is taken for a process that died mid-request
   * and stops counting (a live request is answered, or given up, long before).
   */
  inFlightLeaseMs: number;
}

/** The installation's writes a grant decision looks at (every replica's), as epoch ms. */
export interface WriteHistory {
  /**
   * Each write the window still counts, by when GitHub answered it (an unanswered one: now): it
   * counts from its reservation until a window after its answer.
   */
  answeredAt: number[];
  /** When each write of the last window was granted (its reservation). */
  grantedAt: number[];
}

export type WriteGrant = { go: true } | { go: false; retryAt: number; reason: 'window' | 'pace' };

/**
 * The pace as a token bucket: it holds up to `burst` writes, refills at `perWindow` a window,
 * and each grant takes one. It is replayed from the grants of the last window, starting full: a
 * bucket that was lower then has caught up with a full one by the time it refilled, so the
 * replay is exact unless the installation wrote flat out for a whole window, and then the
 * window's own limit holds.
 */
export function paceLevel(grantedAt: readonly number[], now: number, limits: WriteLimits): number {
  const rate = limits.perWindow / limits.windowMs;
  const sorted = grantedAt.map((t) => Math.min(t, now)).sort((a, b) => a - b);
  let level = limits.burst;
  let at = now - limits.windowMs;
  for (const t of sorted) {
    if (t < at) continue;
    level = Math.min(limits.burst, level + (t - at) * rate) - 1;
    at = t;
  }
  return Math.min(limits.burst, level + (now - at) * rate);
}

/** Rounding of the refill's arithmetic: a level this close to a whole write is that write. */
const EPSILON = 1e-9;

/**
 * Whether a write of this priority may go now, and if not, when to ask again. Two rules, both
 * shared by every replica (the store applies them under the installation's lock):
 * - the window: at most `perWindow` writes in it, the last fifth of it for the critical path
 *   (`windowLimitFor`), which is what GitHub counts;
 * - the pace: the bucket above; a write that is not on the critical path leaves
 *   `criticalBurst` in it, so a dispatch after a merge finds room even while the other runs of
 *   the installation keep it busy.
 */
export function decideWriteGrant(
  priority: WritePriority,
  history: WriteHistory,
  now: number,
  limits: WriteLimits,
): WriteGrant {
  let retryAt = now;
  let reason: 'window' | 'pace' = 'window';
  const limit = windowLimitFor(priority, limits.perWindow);
  if (history.answeredAt.length >= limit) {
    // The limit-th most recent: the next write may go when it leaves the window.
    const latest = [...history.answeredAt].sort((a, b) => b - a);
    retryAt = latest[limit - 1]! + limits.windowMs;
  }
  const need =
    1 + (isCriticalWrite(priority) ? 0 : Math.min(limits.criticalBurst, limits.burst - 1));
  const level = paceLevel(history.grantedAt, now, limits);
  if (level < need - EPSILON) {
    const paced = now + Math.ceil((need - level) / (limits.perWindow / limits.windowMs));
    if (paced > retryAt) {
      retryAt = paced;
      reason = 'pace';
    }
  }
  return retryAt > now ? { go: false, retryAt, reason } : { go: true };
}
