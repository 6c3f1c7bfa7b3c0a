import type { Probot } from 'probot';
import { endUnreachableRepositories } from '../engine/unreachable.js';
import type { AppServices } from './app-services.js';

/**
 * Keep installations and their repositories known, so the sweep can find them after a restart,
 * and record when GitHub takes a repository from the App (docs/running.md, "Removing the App"):
 * removed from the installation, the App uninstalled, or the installation suspended. Its runs end
 * then, and the slots they held go to the repositories waiting; a repository given back
 * (`installation_repositories.added`, `installation.created`, `installation.unsuspend`) is
 * reachable again, its ended runs staying ended.
 */
export function registerInstallationHandlers(app: Probot, services: AppServices): void {
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

  app.on('installation.suspend', async (context) => {
    const suspended = await store.repositories.recordSuspended(
      context.payload.installation.id,
      true,
    );
    await endUnreachableRepositories(engine, suspended);
  });

  // The payload may list the repositories; every one recorded under the installation goes.
  app.on('installation.deleted', async (context) => {
    const removed = await store.repositories.recordRemoved(context.payload.installation.id);
    await endUnreachableRepositories(engine, removed);
  });

  app.on('installation_repositories.added', async (context) => {
    const { installation, repositories_added } = context.payload;
    await recordReachable(installation.id, repositories_added);
  });

  app.on('installation_repositories.removed', async (context) => {
    const { installation, repositories_removed } = context.payload;
    const removed = await store.repositories.recordRemoved(
      installation.id,
      repositories_removed.map((r) => r.id),
    );
    await endUnreachableRepositories(engine, removed);
  });
}
