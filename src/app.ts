import type { ApplicationFunction, Context, ProbotOctokit } from 'probot';
import type { RepoConfig } from './config/schema.js';
import { createOctokitPort } from './github/octokit-port.js';
import type { GitHubPort } from './github/port.js';
import { registerInstallationHandlers } from './handlers/installation.js';
import { registerIssueHandlers } from './handlers/issues.js';
import type { Metrics } from './metrics.js';
import type { Store } from './store/index.js';

export interface AppServices {
  store: Store;
  metrics: Metrics;
  port: (octokit: InstanceType<typeof ProbotOctokit>) => GitHubPort;
  /** Starts a run for a labelled issue (the planning pipeline). */
  onRunRequested?: (request: {
    context: Context<'issues.labeled'>;
    config: RepoConfig;
  }) => Promise<void>;
}

export function createApp(
  services: Omit<AppServices, 'port'> & Partial<Pick<AppServices, 'port'>>,
): ApplicationFunction {
  const full: AppServices = { port: createOctokitPort, ...services };
  return (app) => {
    registerInstallationHandlers(app, full.store);
    registerIssueHandlers(app, full);
    app.onAny(async (context) => {
      const payload = context.payload as {
        installation?: { id?: number };
        repository?: {
          id: number;
          name: string;
          owner: { login: string };
          default_branch?: string;
        };
      };
      const installationId = payload.installation?.id;
      const repo = payload.repository;
      if (!installationId || !repo) return;
      await full.store.repositories.ensureInstallation(installationId, repo.owner.login);
      await full.store.repositories.upsertRepository(installationId, {
        id: repo.id,
        owner: repo.owner.login,
        name: repo.name,
        defaultBranch: repo.default_branch,
      });
    });
  };
}
