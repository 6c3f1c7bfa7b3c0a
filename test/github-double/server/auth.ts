import type { Core } from '../core.js';
import { randomToken } from '../ids.js';
import type { Installation, Repo, TokenInfo } from '../model.js';
import { HttpError, type AuthContext } from './http.js';

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
  if (ctx.kind === 'installation' && repo) {
    const inst = core.installationFor(repo);
    // An installation token only reaches its own account's repositories.
    if (!inst || inst.id !== ctx.installationId) return new HttpError(404, 'Not Found');
  }
  return null;
}

export function issueInstallationToken(core: Core, inst: Installation): TokenInfo {
  const info: TokenInfo = {
    token: randomToken('ghs'),
    kind: 'installation',
    installationId: inst.id,
    account: core.app.bot,
    expiresAt: new Date(Date.now() + TOKEN_LIFETIME_MS),
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
