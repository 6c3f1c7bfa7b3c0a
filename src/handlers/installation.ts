import { onInstallationLost, onRepositoriesRemoved } from '../engine/installation-access.js';
import type { AppServices } from './app-services.js';
import type { HandlerRegistry } from './repository-first.js';

/**
 * Keep installations and their repositories known, so the sweep can find them after a restart,
 * and record when GitHub takes a repository from the App (docs/running.md, "Removing the App"):
 * removed from the installation, the App uninstalled, or the installation suspended. Its runs end
 * then, and the slots they held go to the repositories waiting; a repository given back
 * (`installation_repositories.added`, `installation.created`, `installation.unsuspend`) is
 * reachable again, its ended runs staying ended.
 */
export function registerInstallationHandlers(app: HandlerRegistry, services: AppServices): void {
  const { store, engine } = services;

  /** The installation, and these repositories of it as reachable (given to the App again). */
  const recordReachable = async (
    installationId: number,
    repositories: readonly { id: number; full_name: string }[],
  ) => {
    await store.repositories.ensureInstallation(installationId);
    for (const repo of repositories) {
      const [owner = '', name = ''] = repo.full_name.split('/');
      await store.repositories.upsertRepository(
        installationId,
        { id: repo.id, owner, name },
        { reachable: true },
      );
    }
  };

  app.on(['installation.created', 'installation.new_permissions_accepted'], async (context) => {
    const { installation, repositories } = context.payload;
    await recordReachable(installation.id, repositories ?? []);
  });

  app.on('installation.unsuspend', async (context) => {
    await store.repositories.recordSuspended(context.payload.installation.id, false);
  });

  // A loss ends runs for good: GitHub is asked whether it holds (src/engine/installation-access.ts).
  app.on('installation.suspend', async (context) => {
    await onInstallationLost(engine, context.payload.installation.id, 'suspend');
  });

  // The payload may list the repositories; every one recorded under the installation goes.
  app.on('installation.deleted', async (context) => {
    await onInstallationLost(engine, context.payload.installation.id, 'deleted');
  });

  app.on('installation_repositories.added', async (context) => {
    const { installation, repositories_added } = context.payload;
    await recordReachable(installation.id, repositories_added);
  });

  app.on('installation_repositories.removed', async (context) => {
    const { installation, repositories_removed } = context.payload;
    await onRepositoriesRemoved(
      engine,
      installation.id,
      repositories_removed.map((r) => r.id),
    );
  });
}
