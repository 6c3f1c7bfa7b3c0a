import {
  capacityView,
  installationRoom,
  repositoriesToHandOff,
  type CapacityView,
} from '../core/scheduler/index.js';
import type { Engine } from './context.js';

/** What a scheduling pass takes from the installations' shares of the global cap. */
export interface ShareDecision {
  /** The installation's share, the claim's limit on its tasks in flight; none: nothing shared. */
  installation?: { room: number; running: number; ceiling: number };
  /** Other installations' repositories that may start a task now, scheduled after this pass. */
  handOff: number[];
}

/**
 * Core's decision on the installations' shares (src/core/scheduler/fair-share.ts, docs/running.md,
 * "Sharing the capacity"), from one read of every loaded repository. Without a cap nothing is
 * shared and nothing is read.
 */
export async function shareDecision(engine: Engine, repositoryId: number): Promise<ShareDecision> {
  if (!Number.isFinite(engine.maxParallel)) return { handOff: [] };
  const loads = await engine.store.attempts.loads(engine.now());
  const installation = installationRoom(loads, repositoryId, engine.maxParallel);
  return {
    ...(installation ? { installation } : {}),
    handOff: repositoriesToHandOff(loads, repositoryId, engine.maxParallel),
  };
}

/**
 * The capacity as the status comment shows it: with a cap, the loads the shares are decided from
 * hold the counts in flight too, so a render reads one statement for both, as without one.
 */
export async function statusCapacity(engine: Engine, repositoryId: number): Promise<CapacityView> {
  if (!Number.isFinite(engine.maxParallel))
    return { inflight: await engine.store.attempts.inflightCounts(repositoryId) };
  const loads = await engine.store.attempts.loads(engine.now());
  return capacityView(loads, repositoryId, engine.maxParallel);
}
