import type { Core } from '../core.js';
import type { Account, Repo } from '../model.js';
import { roleOf } from '../ops/repos.js';
import { tokenPermission } from './auth.js';

// What a git client may do with a repository, decided the way GitHub decides it for
// HTTPS git: a token is the password of Basic auth (`x-access-token:<token>`, as
// actions/checkout and the worker send it) or a Bearer/token header.

type GitCredential =
  | { kind: 'none' }
  | { kind: 'invalid' }
  | {
      kind: 'token';
      actor: Account;
      read: boolean;
      write: boolean;
      workflows: boolean;
      app: boolean;
    };

function tokenFromHeader(header: string | undefined): string | null | undefined {
  if (!header) return null;
  const bearer = /^(?:bearer|token)\s+(\S+)$/i.exec(header.trim());
  if (bearer?.[1]) return bearer[1];
  const basic = /^basic\s+(\S+)$/i.exec(header.trim());
  if (!basic?.[1]) return undefined;
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // GitHub takes the token as the password, or as the user name with an empty password.
  const user = colon >= 0 ? decoded.slice(0, colon) : decoded;
  const password = colon >= 0 ? decoded.slice(colon + 1) : '';
  return password || user || undefined;
}

function allows(level: string | undefined, wanted: 'read' | 'write'): boolean {
  if (level === 'write' || level === 'admin') return true;
  return wanted === 'read' && level === 'read';
}

export function gitCredential(core: Core, header: string | undefined, repo: Repo): GitCredential {
  const token = tokenFromHeader(header);
  if (token === null) return { kind: 'none' };
  const info = token === undefined ? undefined : core.tokens.get(token);
  if (!info || info.expiresAt.getTime() <= Date.now()) return { kind: 'invalid' };
  if (info.kind === 'user') {
    const role = roleOf(repo, info.account.login);
    return {
      kind: 'token',
      actor: info.account,
      read: role !== 'none',
      write: role === 'admin' || role === 'maintain' || role === 'write',
      // A person's own push: their token is taken to carry the workflow scope.
      workflows: true,
      app: false,
    };
  }
  // One decision for git and the API: the token's repositories and permissions, narrowed
  // from the App's (which hold no `workflows`), or a job token's own.
  const level = (name: string) => tokenPermission(core, info, repo, name);
  return {
    kind: 'token',
    actor: info.account,
    // Anyone may read a public repository; a token reaches only its own otherwise.
    read: !repo.private || allows(level('contents'), 'read'),
    write: allows(level('contents'), 'write'),
    workflows: allows(level('workflows'), 'write'),
    app: true,
  };
}
