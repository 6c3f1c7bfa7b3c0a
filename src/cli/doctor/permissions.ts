import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { packageRoot } from '../../package-root.js';

export interface AppManifest {
  permissions: Record<string, string>;
  events: string[];
}

/** The permissions and events the App needs: `app.yml`, the manifest the App is registered from. */
export async function readAppManifest(): Promise<AppManifest> {
  const manifest = parse(await readFile(join(packageRoot(), 'app.yml'), 'utf8')) as {
    default_permissions?: Record<string, string>;
    default_events?: string[];
  };
  return {
    permissions: manifest.default_permissions ?? {},
    events: manifest.default_events ?? [],
  };
}

const LEVEL: Readonly<Record<string, number>> = { none: 0, read: 1, write: 2, admin: 3 };

export interface GrantCheck {
  /** e.g. "pull_requests: has read, needs write" */
  permissions: string[];
  events: string[];
}

/** What the installation lacks compared with the manifest (more than asked is fine). */
export function compareGrants(
  needed: AppManifest,
  granted: { permissions?: Record<string, string | undefined>; events?: readonly string[] },
): GrantCheck {
  const permissions: string[] = [];
  for (const [name, level] of Object.entries(needed.permissions)) {
    const has = granted.permissions?.[name] ?? 'none';
    if ((LEVEL[has] ?? 0) < (LEVEL[level] ?? 0))
      permissions.push(`${name}: has ${has}, needs ${level}`);
  }
  const events = needed.events.filter((e) => !(granted.events ?? []).includes(e));
  return { permissions, events };
}

export function canRead(permissions: Record<string, string | undefined>, name: string): boolean {
  return (LEVEL[permissions[name] ?? 'none'] ?? 0) >= LEVEL['read']!;
}
