import type { Probot } from 'probot';
import type { Store } from '../store/index.js';

/** Keep installations and their repositories known, so the sweep can find them after a restart. */
export function registerInstallationHandlers(app: Probot, store: Store): void {
  app.on(
    ['installation.created', 'installation.new_permissions_accepted', 'installation.unsuspend'],
    async (context) => {
      const { installation, repositories } = context.payload;
      await store.repositories.upsertInstallation(installation.id);
      for (const repo of repositories ?? []) {
        const [owner = '', name = ''] = repo.full_name.split('/');
        await store.repositories.upsertRepository(installation.id, { id: repo.id, owner, name });
      }
    },
  );

  app.on('installation.suspend', async (context) => {
    const { installation } = context.payload;
    await store.repositories.upsertInstallation(installation.id, true);
  });

  app.on('installation_repositories.added', async (context) => {
    const { installation, repositories_added } = context.payload;
    await store.repositories.upsertInstallation(installation.id);
    for (const repo of repositories_added) {
      const [owner = '', name = ''] = repo.full_name.split('/');
      await store.repositories.upsertRepository(installation.id, { id: repo.id, owner, name });
    }
  });
}
