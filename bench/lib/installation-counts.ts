// GitHub calls per installation: the coordinator's, as the double logs them, plus the real
// worker's per attempt (which the simulated worker makes on the double directly).
import type { RequestLogEntry } from '../../test/github-double/index.js';
import { isWrite } from '../../test/github-double/double-base.js';
import { isContentCreation, WORKER_CALLS_PER_ATTEMPT, type PerTask } from './github-bound.js';

export interface InstallationCounts extends PerTask {
  /** The coordinator's writes alone (what its write budget and throttling meter). */
  coordinatorWrites: number;
  /** Calls with the App's JWT (`/app/…`: token mints, the hook config): not the installation's. */
  appCalls: number;
  byRoute: Map<string, number>;
}

export function emptyCounts(): InstallationCounts {
  return {
    calls: 0,
    writes: 0,
    contentCreations: 0,
    coordinatorWrites: 0,
    appCalls: 0,
    byRoute: new Map(),
  };
}

const bump = (map: Map<string, number>, key: string, by = 1) =>
  map.set(key, (map.get(key) ?? 0) + by);

/** The owner a REST path names (`/repos/{owner}/…`), which is the installation in the fleet. */
export function ownerOf(path: string): string | undefined {
  const parts = path.split('/');
  return parts[1] === 'repos' ? parts[2]?.toLowerCase() : undefined;
}

/** One request the coordinator made, as the double logged it. */
export function countCoordinatorCall(counts: InstallationCounts, entry: RequestLogEntry): void {
  if (entry.path.startsWith('/app/') || entry.path.startsWith('/app?')) {
    counts.appCalls++;
    return;
  }
  const route = entry.route ?? `${entry.method} ${entry.path}`;
  counts.calls++;
  bump(counts.byRoute, route);
  if (isWrite(entry)) {
    counts.writes++;
    counts.coordinatorWrites++;
  }
  if (entry.status < 400 && isContentCreation(route)) counts.contentCreations++;
}

/** One worker attempt's own calls (github-bound.ts `WORKER_CALLS_PER_ATTEMPT`). */
export function countWorkerAttempt(
  counts: InstallationCounts,
  kind: keyof typeof WORKER_CALLS_PER_ATTEMPT,
): void {
  for (const call of WORKER_CALLS_PER_ATTEMPT[kind]) {
    counts.calls++;
    bump(counts.byRoute, `worker: ${call.route}`);
    if (call.write) counts.writes++;
    if (isContentCreation(call.route)) counts.contentCreations++;
  }
}

export function addCounts(into: InstallationCounts, from: InstallationCounts): void {
  into.calls += from.calls;
  into.writes += from.writes;
  into.contentCreations += from.contentCreations;
  into.coordinatorWrites += from.coordinatorWrites;
  into.appCalls += from.appCalls;
  for (const [route, n] of from.byRoute) bump(into.byRoute, route, n);
}
