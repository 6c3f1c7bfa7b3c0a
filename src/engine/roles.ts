import type { GitHubPort, RepoCoords, RoleName } from '../github/port.js';
import type { Engine } from './context.js';

/**
 * A person's role on the repository, from `GET /repos/{o}/{r}/collaborators/{user}/permission`
 * (the port's `roleOf`), cached for a minute per (repository, person): the commands' check and
 * the review check ask it again and again of the same few people.
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
