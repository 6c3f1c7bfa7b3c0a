import { WRITE_ROLES, type RoleName } from '../core/roles.js';
import type { GitHubPort, RepoCoords } from '../github/port.js';
import type { Engine } from './context.js';

/**
 * A person's role on the repository, from `GET /repos/{o}/{r}/collaborators/{user}/permission`
 * (the port's `roleOf`), cached for a minute per (repository, person): the commands' check and
 * the vetting of review feedback ask it again and again of the same few people.
 */
export async function roleOf(
  engine: Engine,
  port: GitHubPort,
  repo: RepoCoords,
  login: string,
): Promise<RoleName> {
  const key = `${repo.owner}/${repo.repo}:${login}`.toLowerCase();
  const hit = engine.memory.roles.get(key);
  if (hit !== undefined) return hit;
  const role = await port.roleOf(repo, login);
  engine.memory.roles.set(key, role);
  return role;
}

/** Of these people, the lower-cased logins of those with write, maintain or admin permission. */
export async function writersAmong(
  engine: Engine,
  port: GitHubPort,
  repo: RepoCoords,
  logins: readonly string[],
): Promise<Set<string>> {
  const writers = new Set<string>();
  for (const login of logins)
    if (WRITE_ROLES.has(await roleOf(engine, port, repo, login))) writers.add(login.toLowerCase());
  return writers;
}
