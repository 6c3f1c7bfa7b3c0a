import { isOpenAppPull } from '../core/lifecycle/index.js';
import type { PullInfo } from '../github/port.js';
import type { Engine, RunScope } from './context.js';

/** The open PR the App opened from `branch` of this repository, if any (core's isOpenedByApp). */
export async function appPullForBranch(
  engine: Engine,
  scope: RunScope,
  branch: string,
): Promise<PullInfo | null> {
  const appLogin = await engine.appLogin();
  const pulls = await scope.port.openPullsForBranch(scope.repo, branch);
  return pulls.find((p) => isOpenAppPull(p, scope.repositoryId, appLogin)) ?? null;
}
