import type { InstallationNow } from '../core/lifecycle/index.js';
import type { Octokit } from './octokit-port.js';
import { statusOf, type RepoCoords } from './port.js';

/**
 * What the App asks GitHub as itself, with its JWT rather than an installation's token: which
 * installations and repositories GitHub gives it now. An installation event's payload may be a
 * replay (src/core/lifecycle/access-loss.ts); these answers are GitHub's at the time of asking.
 */
export interface AppGitHub {
  /** `GET /app/installations/{installation_id}`: null when GitHub has no such installation (404). */
  installation(id: number): Promise<InstallationNow>;
  /**
   * `GET /repos/{owner}/{repo}/installation`: the id of the installation that holds the
   * repository now; null when none of this App's does (404).
   */
  repositoryInstallation(repo: RepoCoords): Promise<number | null>;
}

/** An AppGitHub on the App's own Octokit (`probot.auth()` without an installation id). */
export function createAppGitHub(appOctokit: () => Promise<Octokit>): AppGitHub {
  const orNullOn404 = async <T>(read: () => Promise<T>): Promise<T | null> => {
    try {
      return await read();
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw error;
    }
  };
  return {
    async installation(id) {
      const octokit = await appOctokit();
      return orNullOn404(async () => {
        const { data } = await octokit.request('GET /app/installations/{installation_id}', {
          installation_id: id,
        });
        return { suspended: Boolean(data.suspended_at) };
      });
    },
    async repositoryInstallation(repo) {
      const octokit = await appOctokit();
      return orNullOn404(async () => {
        const { data } = await octokit.request('GET /repos/{owner}/{repo}/installation', {
          owner: repo.owner,
          repo: repo.repo,
        });
        return data.id;
      });
    },
  };
}
