import {
  approversToRead,
  type ApproverStanding,
  type MergeSnapshot,
} from '../../core/merge/index.js';
import { WRITE_ROLES } from '../../core/roles.js';
import type { GitHubPort, RepoCoords } from '../../github/port.js';
import type { Engine, RunScope } from '../context.js';
import { freshRoleOf } from '../roles.js';

/**
 * The permission now of the approvers core asks about for these snapshots (approversToRead: of
 * PRs otherwise ready to merge or enter the queue), by lower-cased login, as GitHub says it now
 * (freshRoleOf: not the minute's cache, since the merge is what the approval grants). A read that fails (a network error, a 5xx) is `unknown`: that PR
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
      standings.set(
        login,
        await approverStanding(engine, scope.port, scope.repo, login, { run: scope.run.id }),
      );
    }
  return standings;
}

/** One approver's standing now, read from GitHub; `unknown` when GitHub did not answer. */
export async function approverStanding(
  engine: Engine,
  port: GitHubPort,
  repo: RepoCoords,
  login: string,
  logContext: Record<string, unknown>,
): Promise<ApproverStanding> {
  try {
    const role = await freshRoleOf(engine, port, repo, login);
    return WRITE_ROLES.has(role) ? 'writer' : 'not_writer';
  } catch (error) {
    engine.log.warn(
      { ...logContext, approver: login, err: error },
      "merge: could not read an approver's permission; no merge on that approval now",
    );
    return 'unknown';
  }
}
