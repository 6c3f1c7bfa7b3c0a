import { WRITE_ROLES, type RoleName } from '../core/roles.js';
import type { GitHubPort, RepoCoords } from '../github/port.js';
import type { Engine } from './context.js';

/**
 * A person's role on the repository, from `GET /repos/{o}/{r}/collaborators/{user}/permission`
 * (the port's `roleOf`), cached for a minute per (repository, person), for what only says less:
 * the answers to refused actions, look-alike PRs and check runs' starters ask it again and again
 * of the same few people.
 */
export async function roleOf(
  engine: Engine,
  port: GitHubPort,
  repo: RepoCoords,
  login: string,
): Promise<RoleName> {
  const hit = engine.memory.roles.get(roleKey(repo, login));
  if (hit !== undefined) return hit;
  return freshRoleOf(engine, port, repo, login);
}

/**
 * A person's role as GitHub says it now, for what their write access grants at once: a command,
 * the approval a merge rests on, a request for changes and the review comments an agent is given,
 * a close of the issue or of an agent PR (docs/commands.md). Someone removed a moment ago must
 * not still do these on the minute the cache remembers; they are few, and each read refreshes
 * the cache for the others.
 */
export async function freshRoleOf(
  engine: Engine,
  port: GitHubPort,
  repo: RepoCoords,
  login: string,
): Promise<RoleName> {
  const role = await port.roleOf(repo, login);
  engine.memory.roles.set(roleKey(repo, login), role);
  return role;
}

const roleKey = (repo: RepoCoords, login: string) =>
  `${repo.owner}/${repo.repo}:${login}`.toLowerCase();

/**
 * Of these people, the lower-cased logins of those with write, maintain or admin permission.
 * `fresh` when what they wrote reaches an agent (review feedback): the cache's minute would let
 * someone removed a moment ago still instruct it.
 */
export async function writersAmong(
  engine: Engine,
  port: GitHubPort,
  repo: RepoCoords,
  logins: readonly string[],
  { fresh }: { fresh: boolean },
): Promise<Set<string>> {
  const read = fresh ? freshRoleOf : roleOf;
  const writers = new Set<string>();
  for (const login of logins)
    if (WRITE_ROLES.has(await read(engine, port, repo, login))) writers.add(login.toLowerCase());
  return writers;
}
