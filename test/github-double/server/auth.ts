import type { Core } from '../core.js';
import { randomToken } from '../ids.js';
import type { Installation, PermissionLevel, Repo, TokenInfo } from '../model.js';
import { roleOf } from '../ops/repos.js';
import { HttpError, type AuthContext } from './http.js';
import { isReadOnly, REST_PERMISSIONS } from './permissions.js';

const TOKEN_LIFETIME_MS = 60 * 60 * 1000;

function decodeJwtPayload(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => p.length === 0)) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8'));
    return payload && typeof payload === 'object'
      ? (payload as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export function authenticate(core: Core, header: string | undefined): AuthContext {
  const none: AuthContext = {
    kind: 'none',
    actor: null,
    installationId: null,
    token: null,
    problem: null,
  };
  if (!header) return none;
  const m = /^(bearer|token)\s+(\S+)$/i.exec(header.trim());
  if (!m?.[2]) return { ...none, kind: 'invalid', problem: 'Bad credentials' };
  const token = m[2];
  const known = core.tokens.get(token);
  if (known) {
    if (known.expiresAt.getTime() <= Date.now()) {
      return { ...none, kind: 'invalid', token, problem: 'Bad credentials' };
    }
    return {
      kind: known.kind,
      actor: known.account,
      installationId: known.installationId,
      token,
      problem: null,
    };
  }
  const payload = decodeJwtPayload(token);
  if (!payload) return { ...none, kind: 'invalid', token, problem: 'Bad credentials' };
  if (String(payload['iss']) !== String(core.app.id)) {
    return {
      ...none,
      kind: 'invalid',
      token,
      problem: `'Issuer' claim ('iss') must be an Integer`,
    };
  }
  const exp = Number(payload['exp']);
  if (!Number.isFinite(exp) || exp * 1000 <= Date.now()) {
    return {
      ...none,
      kind: 'invalid',
      token,
      problem: `'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires`,
    };
  }
  return { kind: 'app', actor: core.app.bot, installationId: null, token, problem: null };
}

const JWT_TEMPLATES = new Set([
  '/repos/{owner}/{repo}/installation',
  '/orgs/{org}/installation',
  '/users/{username}/installation',
]);

// Which credential GitHub wants for a route: the App JWT only for /app and the
// installation look-ups, an installation or user token for everything else.
export function authProblem(
  core: Core,
  ctx: AuthContext,
  template: string,
  repo: Repo | null,
): HttpError | null {
  if (ctx.kind === 'invalid') return new HttpError(401, ctx.problem ?? 'Bad credentials');
  const wantsJwt =
    template === '/app' || template.startsWith('/app/') || JWT_TEMPLATES.has(template);
  if (template === '/rate_limit' || template === '/meta' || template === '/zen') return null;
  // The manifest code is the credential: GitHub wants no token for its conversion.
  if (template === '/app-manifests/{code}/conversions') return null;
  if (wantsJwt) {
    if (ctx.kind === 'app') return null;
    if (ctx.kind === 'none') return new HttpError(401, 'Requires authentication');
    return new HttpError(401, 'A JSON web token could not be decoded');
  }
  if (ctx.kind === 'none') return new HttpError(401, 'Requires authentication');
  if (ctx.kind === 'app') {
    return new HttpError(401, 'A JSON web token could not be decoded', {
      message: 'This endpoint requires an installation access token, not an App JWT',
    });
  }
  if (ctx.kind === 'installation' && ctx.installationId !== null) {
    const inst = [...core.installations.values()].find((i) => i.id === ctx.installationId);
    // Uninstalled: its tokens were revoked with it (ops/installations.ts).
    if (!inst) return new HttpError(401, 'Bad credentials');
    if (inst.suspendedAt) return new HttpError(403, 'This installation has been suspended');
  }
  if (ctx.kind === 'installation' && repo) {
    const token = ctx.token ? core.tokens.get(ctx.token) : undefined;
    // A token reaches only its installation's repositories, and of those only the ones it was
    // minted for; GitHub answers anything else as if it did not exist.
    if (!token || tokenPermission(core, token, repo, 'metadata') === 'none')
      return new HttpError(404, 'Not Found');
  }
  return null;
}

export type Granted = PermissionLevel | 'none';

const RANK: Record<Granted, number> = { none: 0, read: 1, write: 2, admin: 3 };

export function atLeast(granted: Granted, wanted: Granted): boolean {
  return RANK[granted] >= RANK[wanted];
}

/**
 * The level of App permission `name` (`contents`, `issues`, `workflows`, ...) that `token`
 * holds on `repo`: 'none' outside the token's installation or its repository list, else the
 * App's grant narrowed by what the token was minted with. Metadata comes with any repository
 * permission, as GitHub grants it. A user token acts with the user's role on the repository.
 */
export function tokenPermission(core: Core, token: TokenInfo, repo: Repo, name: string): Granted {
  if (token.expiresAt.getTime() <= Date.now()) return 'none';
  if (token.kind === 'user') {
    const role = roleOf(repo, token.account.login);
    if (role === 'admin') return 'admin';
    if (role === 'maintain' || role === 'write') return 'write';
    return role === 'none' ? 'none' : 'read';
  }
  if (token.repositoryIds && !token.repositoryIds.includes(repo.id)) return 'none';
  let granted: Record<string, PermissionLevel>;
  if (token.jobRunId !== undefined) {
    granted = token.permissions ?? {};
  } else {
    const inst = core.installationFor(repo);
    if (!inst || inst.id !== token.installationId) return 'none';
    granted = narrowed(core.appPermissions, token.permissions);
  }
  const level = granted[name];
  if (level) return level;
  return name === 'metadata' && Object.keys(granted).length > 0 ? 'read' : 'none';
}

function narrowed(
  app: Record<string, PermissionLevel>,
  asked: Record<string, PermissionLevel> | undefined,
): Record<string, PermissionLevel> {
  if (!asked) return app;
  const out: Record<string, PermissionLevel> = {};
  for (const [name, level] of Object.entries(asked)) {
    const grant = app[name];
    if (grant) out[name] = RANK[level] <= RANK[grant] ? level : grant;
  }
  return out;
}

// An installation token needs the route's App permission on the repository. GitHub lets anyone
// read a public repository, so there only writes are checked.
export function permissionProblem(
  core: Core,
  ctx: AuthContext,
  route: string,
  repo: Repo | null,
  docsUrl: string,
): HttpError | null {
  if (ctx.kind !== 'installation' || !repo || !ctx.token) return null;
  const token = core.tokens.get(ctx.token);
  if (!token) return null;
  const access = REST_PERMISSIONS[route];
  if (!access) {
    core.selfCheck(route, ['no entry in the permission table (server/permissions.ts)']);
    return null;
  }
  if (access.kind !== 'repository') return null;
  if (!repo.private && isReadOnly(access)) return null;
  if (access.anyOf.some((r) => atLeast(tokenPermission(core, token, repo, r.permission), r.level)))
    return null;
  return new HttpError(403, 'Resource not accessible by integration', {
    documentation_url: docsUrl,
  });
}

export class ScopeError extends Error {}

// POST /app/installations/{id}/access_tokens with `repositories`, `repository_ids` and
// `permissions`: a token can be narrowed, never widened, with GitHub's 422 wording otherwise.
export function scopeFor(
  core: Core,
  inst: Installation,
  body: Record<string, unknown>,
): { repos: Repo[] | undefined; permissions: Record<string, PermissionLevel> | undefined } {
  const owned = [...core.repos.values()].filter(
    (r) => r.owner === inst.account && !inst.removed.has(r.id),
  );
  const names = Array.isArray(body['repositories']) ? (body['repositories'] as unknown[]) : [];
  const ids = Array.isArray(body['repository_ids']) ? (body['repository_ids'] as unknown[]) : [];
  const picked = [
    ...names.map((n) => owned.find((r) => r.name.toLowerCase() === String(n).toLowerCase())),
    ...ids.map((id) => owned.find((r) => r.id === Number(id))),
  ];
  if (picked.some((r) => !r)) {
    throw new ScopeError(
      'There is at least one repository that does not exist or is not accessible to the parent installation.',
    );
  }
  const rawPermissions = body['permissions'];
  let permissions: Record<string, PermissionLevel> | undefined;
  if (rawPermissions && typeof rawPermissions === 'object') {
    permissions = {};
    for (const [name, level] of Object.entries(rawPermissions as Record<string, unknown>)) {
      const grant = core.appPermissions[name];
      if (
        !grant ||
        (level !== 'read' && level !== 'write' && level !== 'admin') ||
        RANK[level] > RANK[grant]
      ) {
        throw new ScopeError('The permissions requested are not granted to this installation.');
      }
      permissions[name] = level;
    }
    if (Object.keys(permissions).length === 0) permissions = undefined;
  }
  const repos = picked.length > 0 ? [...new Set(picked as Repo[])] : undefined;
  return { repos, permissions };
}

export function issueInstallationToken(
  core: Core,
  inst: Installation,
  scope: { repositoryIds?: number[]; permissions?: Record<string, PermissionLevel> } = {},
): TokenInfo {
  const info: TokenInfo = {
    token: randomToken('ghs'),
    kind: 'installation',
    installationId: inst.id,
    account: core.app.bot,
    expiresAt: new Date(Date.now() + TOKEN_LIFETIME_MS),
    ...(scope.repositoryIds ? { repositoryIds: scope.repositoryIds } : {}),
    ...(scope.permissions ? { permissions: scope.permissions } : {}),
  };
  core.tokens.set(info.token, info);
  return info;
}

export function issueUserToken(core: Core, login: string): string {
  const info: TokenInfo = {
    token: randomToken('ghu'),
    kind: 'user',
    installationId: null,
    account: core.account(login),
    expiresAt: new Date(Date.now() + 8 * TOKEN_LIFETIME_MS),
  };
  core.tokens.set(info.token, info);
  return info.token;
}

export function expireAllTokens(core: Core): void {
  for (const t of core.tokens.values()) t.expiresAt = new Date(0);
}

// A job's GITHUB_TOKEN: an installation token of GitHub Actions' own App for the run's
// repository only, with the job's permissions; it ends with the job (or after 24 hours).
export function issueJobToken(
  core: Core,
  repo: Repo,
  runId: number,
  permissions: Record<string, PermissionLevel>,
): TokenInfo {
  const info: TokenInfo = {
    token: randomToken('ghs'),
    kind: 'installation',
    installationId: null,
    account: core.ciApp.bot,
    expiresAt: new Date(Date.now() + 24 * TOKEN_LIFETIME_MS),
    repositoryIds: [repo.id],
    permissions: { ...permissions, metadata: 'read' },
    jobRunId: runId,
  };
  core.tokens.set(info.token, info);
  return info;
}
