import {
  approversToRead,
  type ApproverStanding,
  type MergeSnapshot,
} from '../../core/merge/index.js';
import { WRITE_ROLES } from '../../core/roles.js';
import type { Engine, RunScope } from '../context.js';
import { roleOf } from '../roles.js';

/**
 * The permission now of the approvers core asks about for these snapshots (approversToRead: of
 * PRs otherwise ready to merge or enter the queue), by lower-cased login, through the cached
 * roleOf (a minute per person). A read that fails (a network error, a 5xx) is `unknown`: that PR
 * does not merge this turn and keeps its approval, and the next event or sweep asks again.
 */
export async function readApprovers(
  engine: Engine,
  scope: RunScope,
  snapshots: readonly MergeSnapshot[],
): Promise<Map<string, ApproverStanding>> {
  const standings = new Map<string, ApproverStanding>();
  for (const snapshot of snapshots)
    for (const login of approversToRead(snapshot)) {
      if (standings.has(login)) continue;
      standings.set(login, await standingOf(engine, scope, login));
    }
  return standings;
}

async function standingOf(
  engine: Engine,
  scope: RunScope,
  login: string,
): Promise<ApproverStanding> {
  try {
    const role = await roleOf(engine, scope.port, scope.repo, login);
    return WRITE_ROLES.has(role) ? 'writer' : 'not_writer';
  } catch (error) {
    engine.log.warn(
      { run: scope.run.id, approver: login, err: error },
      "merge: could not read an approver's permission; no merge on that approval this turn",
    );
    return 'unknown';
  }
}
