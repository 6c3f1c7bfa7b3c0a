import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { PermissionLevel } from '../model.js';

// The App the double plays has the permissions the project's own manifest asks for, so a
// call the manifest does not cover fails here as it would on GitHub.
const MANIFEST = new URL('../../../app.yml', import.meta.url);

export function manifestPermissions(): Record<string, PermissionLevel> {
  const manifest = parse(readFileSync(MANIFEST, 'utf8')) as {
    default_permissions?: Record<string, PermissionLevel>;
  };
  return { ...(manifest.default_permissions ?? {}) };
}
