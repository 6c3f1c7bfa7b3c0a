import type { ProbotOctokit } from 'probot';
import { CONFIG_PATH } from '../config/schema.js';
import type { ConfigFile, GitHubPort, RepoCoords, RoleName } from './port.js';

type Octokit = InstanceType<typeof ProbotOctokit>;

const ROLES: ReadonlySet<string> = new Set([
  'admin',
  'maintain',
  'write',
  'triage',
  'read',
  'none',
]);

export function createOctokitPort(octokit: Octokit): GitHubPort {
  return {
    async roleOf(repo: RepoCoords, login: string): Promise<RoleName> {
      try {
        const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
          ...repo,
          username: login,
        });
        // role_name distinguishes maintain/triage, which `permission` folds into write/read.
        const role = data.role_name ?? data.permission;
        if (ROLES.has(role)) return role as RoleName;
        return data.permission === 'admin' || data.permission === 'write'
          ? (data.permission as RoleName)
          : 'read';
      } catch (error) {
        // GitHub answers 404 for a user who is not a collaborator at all.
        if ((error as { status?: number }).status === 404) return 'none';
        throw error;
      }
    },

    async readConfigFile(repo: RepoCoords): Promise<ConfigFile> {
      try {
        const { config } = await octokit.config.get({ ...repo, path: CONFIG_PATH });
        return { ok: true, raw: config };
      } catch (error) {
        const status = (error as { status?: number }).status;
        if (status !== undefined) throw error;
        const message = (error as Error).message.replace(
          /^\[@probot\/octokit-plugin-config\]\s*/,
          '',
        );
        return { ok: false, error: `${CONFIG_PATH}: ${message.split('\n')[0]}` };
      }
    },

    async createIssueComment(repo, issueNumber, body) {
      const { data } = await octokit.rest.issues.createComment({
        ...repo,
        issue_number: issueNumber,
        body,
      });
      return { id: data.id };
    },
  };
}
