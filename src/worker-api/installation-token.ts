import { WORKER_TOKEN_PERMISSIONS } from '../protocol/assignment.js';
import type { Octokit } from '../github/octokit-port.js';

export interface WorkerToken {
  token: string;
  expiresAt: string;
}

/** Mints the worker's token: one repository, `WORKER_TOKEN_PERMISSIONS`, nothing else. */
export type WorkerTokenMinter = (
  installationId: number,
  repositoryId: number,
) => Promise<WorkerToken>;

/** GitHub answered with more (or other) than was asked for: the token is not handed out. */
export class TokenScopeError extends Error {}

/**
 * `POST /app/installations/{id}/access_tokens` with the App JWT. GitHub narrows the token to
 * `repository_ids` and `permissions` and answers with what it granted; that answer is checked,
 * so a token wider than the worker's is never handed out. (`metadata: read` comes with every
 * installation token and grants no write.)
 */
export function createWorkerTokenMinter(appOctokit: () => Promise<Octokit>): WorkerTokenMinter {
  return async (installationId, repositoryId) => {
    const octokit = await appOctokit();
    const { data } = await octokit.request(
      'POST /app/installations/{installation_id}/access_tokens',
      {
        installation_id: installationId,
        repository_ids: [repositoryId],
        permissions: { ...WORKER_TOKEN_PERMISSIONS },
        // A retried mint is harmless, but a slow one is better answered 502 than twice.
        request: { retries: 0 },
      },
    );
    const granted = Object.entries(data.permissions ?? {}).filter(
      ([name, level]) => !(name === 'metadata' && level === 'read'),
    );
    const wanted = Object.entries(WORKER_TOKEN_PERMISSIONS);
    const samePermissions =
      granted.length === wanted.length &&
      wanted.every(([name, level]) => (data.permissions as Record<string, string>)[name] === level);
    const repositories = data.repositories ?? [];
    const oneRepository =
      data.repository_selection === 'selected' &&
      repositories.length === 1 &&
      repositories[0]?.id === repositoryId;
    if (!samePermissions || !oneRepository)
      throw new TokenScopeError(
        `GitHub granted ${JSON.stringify(data.permissions)} on ${data.repository_selection ?? '?'} repositories (${repositories.map((r) => r.id).join(', ')}); asked for ${JSON.stringify(WORKER_TOKEN_PERMISSIONS)} on repository ${repositoryId}`,
      );
    return { token: data.token, expiresAt: data.expires_at };
  };
}
