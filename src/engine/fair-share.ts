import { installationRoom, repositoriesToHandOff } from '../core/scheduler/index.js';
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
  const room = installationRoom(loads, repositoryId, engine.maxParallel);
  return {
    ...(room
      ? { installation: { room: room.room, running: room.running, ceiling: room.ceiling } }
      : {}),
    handOff: repositoriesToHandOff(loads, repositoryId, engine.maxParallel),
  };
}
