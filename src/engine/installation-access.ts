import {
  decideInstallationLoss,
  repositoriesRemovedNow,
  type InstallationLoss,
} from '../core/lifecycle/index.js';
import type { Engine } from './context.js';
import { endUnreachableRepositories } from './unreachable.js';

/**
 * `installation.deleted` or `installation.suspend`: recorded, and the installation's runs ended,
 * only when GitHub shows it so now (core's decideInstallationLoss): the delivery may be a replay,
 * or another event's under this event's name. A read GitHub fails throws, and the delivery is
 * handled again.
 */
export async function onInstallationLost(
  engine: Engine,
  installationId: number,
  loss: InstallationLoss,
): Promise<void> {
  const now = await engine.appGitHub.installation(installationId);
  for (const effect of decideInstallationLoss(loss, now)) {
    switch (effect.kind) {
      case 'none':
        engine.log.warn(
          { installation: installationId, loss, why: effect.reason },
          'installation event that GitHub does not bear out (a replay?): nothing ended',
        );
        break;
      case 'recordRemoved':
        await endUnreachableRepositories(
          engine,
          await engine.store.repositories.recordRemoved(installationId),
        );
        break;
      case 'recordSuspended':
        await endUnreachableRepositories(
          engine,
          await engine.store.repositories.recordSuspended(installationId, true),
        );
        break;
    }
  }
}

/**
 * `installation_repositories.removed`: of the repositories it names that are recorded under the
 * installation, those GitHub shows outside it now (core's repositoriesRemovedNow) are recorded
 * removed and their runs ended; one read of GitHub each.
 */
export async function onRepositoriesRemoved(
  engine: Engine,
  installationId: number,
  repositoryIds: readonly number[],
): Promise<void> {
  const recorded = await engine.store.repositories.ofInstallation(installationId, repositoryIds);
  const holders = [];
  for (const repo of recorded)
    holders.push({
      id: repo.id,
      holder: await engine.appGitHub.repositoryInstallation({ owner: repo.owner, repo: repo.name }),
    });
  const gone = repositoriesRemovedNow(installationId, holders);
  if (gone.length < recorded.length)
    engine.log.warn(
      { installation: installationId, named: recorded.length, removed: gone.length },
      'removal of repositories that GitHub shows in the installation now (a replay?): those kept',
    );
  if (gone.length === 0) return;
  const removed = await engine.store.repositories.recordRemoved(installationId, gone);
  await endUnreachableRepositories(engine, removed);
}
