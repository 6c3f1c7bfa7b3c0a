import { generateKeyPairSync } from 'node:crypto';
import { emitterEventNames } from '@octokit/webhooks';
import type { Core } from '../core.js';
import { randomToken } from '../ids.js';
import { appJson } from '../render/accounts.js';
import { openApi, resolveRef } from '../server/openapi.js';

// GitHub's manifest flow: the form post, the redirect back with a code, the code's conversion,
// all within an hour; a code converts once.
const CODE_LIFETIME_MS = 60 * 60_000;

// The manifest parameters GitHub documents ("Registering a GitHub App from a manifest").
const MANIFEST_FIELDS = new Set([
  'name',
  'url',
  'hook_attributes',
  'redirect_url',
  'callback_urls',
  'setup_url',
  'description',
  'public',
  'default_events',
  'default_permissions',
  'request_oauth_on_install',
  'setup_on_update',
]);

function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

function permissionLevels(): Map<string, readonly string[]> {
  const schema = resolveRef(
    (openApi().spec['components'] as { schemas: Record<string, unknown> }).schemas[
      'app-permissions'
    ],
  );
  const properties = (schema?.['properties'] ?? {}) as Record<string, { enum?: string[] }>;
  return new Map(Object.entries(properties).map(([name, p]) => [name, p.enum ?? []]));
}

/** What GitHub's "register new GitHub App" form would refuse in this manifest. */
function manifestProblems(manifest: unknown): string[] {
  if (!manifest || typeof manifest !== 'object' || Array.isArray(manifest))
    return ['the manifest is not a JSON object'];
  const m = manifest as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(m))
    if (!MANIFEST_FIELDS.has(key)) problems.push(`${key} is not a manifest parameter`);
  if (!isHttpUrl(m['url'])) problems.push('url (the homepage) is required and must be a URL');
  const hook = m['hook_attributes'] as Record<string, unknown> | undefined;
  if (hook !== undefined && !isHttpUrl(hook['url']))
    problems.push('hook_attributes.url must be a URL');
  for (const key of ['redirect_url', 'setup_url'])
    if (m[key] !== undefined && !isHttpUrl(m[key])) problems.push(`${key} must be a URL`);
  const events = new Set<string>(emitterEventNames.filter((name) => !name.includes('.')));
  for (const event of (m['default_events'] as unknown[] | undefined) ?? [])
    if (typeof event !== 'string' || !events.has(event))
      problems.push(`default_events: ${String(event)} is not a webhook event`);
  const levels = permissionLevels();
  const permissions = (m['default_permissions'] ?? {}) as Record<string, unknown>;
  for (const [name, level] of Object.entries(permissions)) {
    const allowed = levels.get(name);
    if (!allowed) problems.push(`default_permissions: ${name} is not a permission`);
    else if (typeof level !== 'string' || !allowed.includes(level))
      problems.push(`default_permissions.${name}: ${String(level)} is not one of ${allowed}`);
  }
  return problems;
}

/**
 * The browser's part: the form post to `/settings/apps/new` and the user's "Create" click.
 * Answers the code GitHub appends to `redirect_url`; throws what GitHub's form would show.
 */
export function registerFromManifest(core: Core, manifest: unknown): string {
  const problems = manifestProblems(manifest);
  if (problems.length > 0) throw new Error(`GitHub refuses the manifest: ${problems.join('; ')}`);
  const code = randomToken('mfc');
  core.manifestCodes.set(code, {
    manifest: manifest as Record<string, unknown>,
    expiresAt: Date.now() + CODE_LIFETIME_MS,
  });
  return code;
}

/**
 * `POST /app-manifests/{code}/conversions`: the App the double plays, as registered from the
 * manifest, with a fresh private key and the double's webhook secret (the one it signs with).
 */
export function convertManifestCode(core: Core, code: string): Record<string, unknown> | null {
  const registration = core.manifestCodes.get(code);
  core.manifestCodes.delete(code);
  if (!registration || registration.expiresAt < Date.now()) return null;
  const { manifest } = registration;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    ...appJson(core, core.app),
    description: typeof manifest['description'] === 'string' ? manifest['description'] : '',
    external_url: manifest['url'],
    permissions: { ...(manifest['default_permissions'] as object), metadata: 'read' },
    events: manifest['default_events'] ?? [],
    installations_count: 0,
    client_secret: randomToken('cs'),
    webhook_secret: core.options.webhookSecret,
    pem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
  };
}
