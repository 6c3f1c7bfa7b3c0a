/**
 * Installations share COORDINATOR_MAX_PARALLEL (docs/running.md, "Sharing the capacity"): when
 * the cap binds, the free slots go to the installations with the fewest tasks in flight first
 * (max-min fairness), so writers of one installation who label many issues cannot hold the slots
 * another installation's ready task waits for. Nothing running is stopped: an installation over
 * its share keeps what it runs and gets no new slot while another one waits below it.
 */
import { unreachableBecause, type RepositoryAccess } from '../lifecycle/reachability.js';

/** An installation's load: its tasks in flight and the ready tasks its repositories could start. */
export interface InstallationLoad {
  installationId: number;
  running: number;
  ready: number;
}

/** One repository's load as the store reads it, before its own limit is applied. */
export interface RepositoryLoad {
  repositoryId: number;
  installationId: number;
  /** Its tasks in flight (the claim's count). */
  inflight: number;
  /** Its ready tasks (deps merged, no backoff, run running), whatever its limit. */
  ready: number;
  /** concurrency.maxParallel as its newest run saw it; null: no run has read it yet. */
  repoLimit: number | null;
  /**
   * What its row records of the installation events; absent: reachable. A repository the App can
   * no longer reach has its runs ended (src/core/lifecycle/reachability.ts): until they are, what
   * it runs or has ready takes no share and starts nothing.
   */
  access?: RepositoryAccess;
}

function reachable(r: RepositoryLoad): boolean {
  return r.access === undefined || unreachableBecause(r.access) === null;
}

/** A repository's ready tasks as far as its own `concurrency.maxParallel` lets them start. */
function startable(r: RepositoryLoad): number {
  return r.repoLimit === null ? 0 : Math.min(r.ready, Math.max(0, r.repoLimit - r.inflight));
}

/**
 * The installations' loads: a repository's ready tasks count only as far as it can start them
 * (`startable`), so an installation is not given slots it cannot use.
 */
export function installationLoads(repositories: readonly RepositoryLoad[]): InstallationLoad[] {
  const byId = new Map<number, InstallationLoad>();
  for (const r of repositories.filter(reachable)) {
    const load = byId.get(r.installationId) ?? {
      installationId: r.installationId,
      running: 0,
      ready: 0,
    };
    load.running += r.inflight;
    load.ready += startable(r);
    byId.set(r.installationId, load);
  }
  return [...byId.values()];
}

/**
 * How many tasks each installation may start now, by installation id, within `cap` tasks in
 * flight across all of them: the free slots raise the installations with the fewest in flight
 * first (a water level), each up to what it has ready. Slots left at the last level go one each
 * by installation id, lowest first, so the decision is the same from every caller. O(n log demand).
 */
export function fairStarts(loads: readonly InstallationLoad[], cap: number): Map<number, number> {
  const starts = new Map(loads.map((l) => [l.installationId, 0]));
  const running = loads.reduce((sum, l) => sum + l.running, 0);
  const free = Number.isFinite(cap) ? Math.max(0, cap - running) : Infinity;
  if (free === Infinity) {
    for (const l of loads) starts.set(l.installationId, l.ready);
    return starts;
  }
  // What raising every installation to `level` in flight would start.
  const startsAt = (level: number, l: InstallationLoad) =>
    Math.min(l.ready, Math.max(0, level - l.running));
  const total = (level: number) => loads.reduce((sum, l) => sum + startsAt(level, l), 0);
  // The highest level whose starts fit in the free slots (level 0 starts nothing).
  let low = 0;
  let high = Math.max(0, ...loads.map((l) => l.running + l.ready));
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (total(mid) <= free) low = mid;
    else high = mid - 1;
  }
  let left = free - total(low);
  for (const l of [...loads].sort((a, b) => a.installationId - b.installationId)) {
    let n = startsAt(low, l);
    // Those the next level would raise take its slots while any are left.
    if (left > 0 && startsAt(low + 1, l) > n) {
      n += 1;
      left -= 1;
    }
    starts.set(l.installationId, n);
  }
  return starts;
}

/** An installation's room in one claim: what it may start now, and the ceiling the claim guards. */
export interface InstallationRoom {
  installationId: number;
  /** Tasks it may start now (`fairStarts`). */
  room: number;
  /** Its tasks in flight now. */
  running: number;
  /** Its share now: what it runs plus what it may start, the claim's limit on it in flight. */
  ceiling: number;
}

/**
 * The room of `repositoryId`'s installation under `cap`, from every repository's load. Undefined
 * when nothing is shared: no cap, the repository has no load (nothing in flight, nothing ready),
 * or no other installation has any; a lone installation is held by the cap alone, not by a count
 * of its ready tasks that a task made ready since would outdate.
 */
export function installationRoom(
  repositories: readonly RepositoryLoad[],
  repositoryId: number,
  cap: number,
): InstallationRoom | undefined {
  if (!Number.isFinite(cap)) return undefined;
  const own = repositories.find((r) => r.repositoryId === repositoryId);
  if (!own) return undefined;
  const loads = installationLoads(repositories);
  if (!loads.some((l) => l.installationId !== own.installationId && l.running + l.ready > 0))
    return undefined;
  const room = fairStarts(loads, cap).get(own.installationId) ?? 0;
  const running = loads.find((l) => l.installationId === own.installationId)?.running ?? 0;
  return { installationId: own.installationId, room, running, ceiling: running + room };
}

/**
 * The repositories of other installations that may start a task now (`fairStarts`), for a pass
 * that found its own installation at its share: the slot it leaves goes to them at once rather
 * than at the next sweep. In repository id order.
 */
export function repositoriesToHandOff(
  repositories: readonly RepositoryLoad[],
  repositoryId: number,
  cap: number,
): number[] {
  if (!Number.isFinite(cap)) return [];
  // A pass for a repository the App can no longer reach starts nothing there: what its ended
  // runs freed goes to every installation's repositories, its own installation's included.
  const own = repositories.find((r) => r.repositoryId === repositoryId && reachable(r));
  const starts = fairStarts(installationLoads(repositories), cap);
  return repositories
    .filter(
      (r) =>
        reachable(r) &&
        r.installationId !== own?.installationId &&
        (starts.get(r.installationId) ?? 0) > 0 &&
        startable(r) > 0,
    )
    .map((r) => r.repositoryId)
    .sort((a, b) => a - b);
}

/** The capacity as the status comment shows it: the counts in flight, the installation's share. */
export interface CapacityView {
  inflight: { repository: number; global: number };
  installation?: { room: number; running: number; ceiling: number };
}

/**
 * The status comment's view of the capacity, from the loads alone: every repository with a task in
 * flight is among them, so the counts are the claim's (docs/status-comment.md).
 */
export function capacityView(
  repositories: readonly RepositoryLoad[],
  repositoryId: number,
  cap: number,
): CapacityView {
  const inflight = {
    repository: repositories.find((r) => r.repositoryId === repositoryId)?.inflight ?? 0,
    global: repositories.reduce((sum, r) => sum + r.inflight, 0),
  };
  const room = installationRoom(repositories, repositoryId, cap);
  if (!room) return { inflight };
  return {
    inflight,
    installation: { room: room.room, running: room.running, ceiling: room.ceiling },
  };
}
