/** The narrow interface the coordinator needs from GitHub; one Octokit adapter implements it. */
export interface RepoCoords {
  owner: string;
  repo: string;
}

/** GitHub's role names; `maintain` and `triage` only appear in `role_name`. */
export type RoleName = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

export type ConfigFile = { ok: true; raw: unknown } | { ok: false; error: string };

export interface GitHubPort {
  /** The user's role on the repository, from the collaborator permission API. */
  roleOf(repo: RepoCoords, login: string): Promise<RoleName>;
  /** `.github/agent-coordinator.yml` from the default branch; a missing file is `{ ok: true, raw: null }`. */
  readConfigFile(repo: RepoCoords): Promise<ConfigFile>;
  createIssueComment(repo: RepoCoords, issueNumber: number, body: string): Promise<{ id: number }>;
}

export const WRITE_ROLES: ReadonlySet<RoleName> = new Set(['admin', 'maintain', 'write']);
