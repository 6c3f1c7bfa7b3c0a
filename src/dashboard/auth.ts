import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const SESSION_COOKIE = 'ac_dashboard';
const SESSION_MAX_AGE_S = 12 * 60 * 60;

export type AuthResult =
  | { kind: 'ok' }
  /** A right `?token=`: set the cookie and send the browser to the same URL without it. */
  | { kind: 'login'; cookie: string; location: string }
  | { kind: 'denied' };

/** Constant-time equality of two strings of any lengths (compares their digests). */
export function safeEqual(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * Who may see the dashboard: requests carrying DASHBOARD_TOKEN as `Authorization: Bearer`,
 * or once as `?token=`, after which an HttpOnly SameSite=Strict cookie holds a value derived
 * from the token (never the token itself). Changing the token logs every browser out.
 */
export class DashboardAuth {
  private readonly session: string;

  constructor(private readonly token: string) {
    this.session = createHmac('sha256', token)
      .update('agent-coordinator dashboard session v1')
      .digest('base64url');
  }

  check(req: IncomingMessage, url: URL): AuthResult {
    const offered = url.searchParams.get('token');
    if (offered !== null) {
      if (!safeEqual(offered, this.token)) return { kind: 'denied' };
      url.searchParams.delete('token');
      const secure = isHttps(req) ? '; Secure' : '';
      return {
        kind: 'login',
        cookie: `${SESSION_COOKIE}=${this.session}; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=${SESSION_MAX_AGE_S}${secure}`,
        location: `${url.pathname}${url.search}`,
      };
    }
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (bearer !== undefined)
      return safeEqual(bearer, this.token) ? { kind: 'ok' } : { kind: 'denied' };
    const cookie = readCookie(req.headers.cookie, SESSION_COOKIE);
    if (cookie !== undefined && safeEqual(cookie, this.session)) return { kind: 'ok' };
    return { kind: 'denied' };
  }
}

function isHttps(req: IncomingMessage): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted) return true;
  const forwarded = req.headers['x-forwarded-proto'];
  return (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim() === 'https';
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
