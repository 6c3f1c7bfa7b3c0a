import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { WEBHOOK_PATH } from '../http/server.js';
import { packageRoot } from '../package-root.js';

/**
 * A GitHub App manifest: the fields GitHub reads from the `manifest` form parameter
 * (README "Registering the App on GitHub"; GitHub documents them under "Registering a GitHub
 * App from a manifest").
 */
export interface AppManifest {
  name?: string;
  url: string;
  description?: string;
  public?: boolean;
  hook_attributes: { url: string; active?: boolean };
  redirect_url: string;
  default_events?: string[];
  default_permissions?: Record<string, string>;
  [field: string]: unknown;
}

/** `app.yml` as shipped with the package (not the working directory's: the App is this one). */
export function readAppYml(): Record<string, unknown> {
  const parsed: unknown = parse(readFileSync(join(packageRoot(), 'app.yml'), 'utf8'));
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error('app.yml: expected a mapping');
  return parsed as Record<string, unknown>;
}

export interface WebhookUrlSources {
  publicUrl?: string;
  webhookProxyUrl?: string;
  /** Origin of the request for the setup page, for when neither variable is set. */
  pageOrigin: string;
}

/**
 * Where GitHub must send this App's webhooks. A proxy channel wins: it is set precisely when
 * GitHub cannot reach the app itself (local development). Otherwise this app's own webhook path
 * under PUBLIC_URL, or under the origin the setup page was opened at.
 */
export function webhookUrl(sources: WebhookUrlSources): string {
  if (sources.webhookProxyUrl) return sources.webhookProxyUrl;
  return `${(sources.publicUrl ?? sources.pageOrigin).replace(/\/+$/, '')}${WEBHOOK_PATH}`;
}

/** The manifest the setup page posts: app.yml, with the webhook and redirect URLs of this app. */
export function buildManifest(
  appYml: Record<string, unknown>,
  urls: { webhookUrl: string; redirectUrl: string },
): AppManifest {
  const hook = (appYml['hook_attributes'] ?? {}) as Record<string, unknown>;
  const url = appYml['url'];
  if (typeof url !== 'string') throw new Error('app.yml: `url` (the App homepage) is required');
  return {
    ...appYml,
    url,
    hook_attributes: { ...hook, url: urls.webhookUrl },
    redirect_url: urls.redirectUrl,
  };
}
