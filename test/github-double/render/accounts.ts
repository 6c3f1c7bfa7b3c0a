import type { Core } from '../core.js';
import type { Account, AppInfo, Installation } from '../model.js';

// An account's JSON depends only on fields that never change, and it is in every payload and
// most answers: one frozen object per account (and double URL), shared.
const userJsons = new WeakMap<Account, { url: string; json: Readonly<Record<string, unknown>> }>();

export function userJson(core: Core, a: Account): Record<string, unknown> {
  const known = userJsons.get(a);
  if (known?.url === core.url) return known.json;
  const json = Object.freeze(buildUserJson(core, a));
  userJsons.set(a, { url: core.url, json });
  return json;
}

function buildUserJson(core: Core, a: Account): Record<string, unknown> {
  const api = `${core.apiUrl}/users/${encodeURIComponent(a.login)}`;
  return {
    login: a.login,
    id: a.id,
    node_id: a.nodeId,
    avatar_url: `${core.url}/avatars/u/${a.id}?v=4`,
    gravatar_id: '',
    url: api,
    html_url:
      a.type === 'Bot'
        ? `${core.url}/apps/${a.login.replace(/\[bot\]$/, '')}`
        : `${core.url}/${a.login}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: a.type,
    user_view_type: 'public',
    site_admin: false,
  };
}

const APP_EVENTS = [
  'issues',
  'issue_comment',
  'pull_request',
  'pull_request_review',
  'check_run',
  'check_suite',
  'workflow_run',
  'workflow_job',
  'merge_group',
];

export function appPermissions(core: Core): Record<string, string> {
  return { ...core.appPermissions };
}

export function appJson(core: Core, app: AppInfo): Record<string, unknown> {
  return {
    id: app.id,
    slug: app.slug,
    node_id: app.nodeId,
    client_id: `Iv1.${app.id.toString(16).padStart(16, '0')}`,
    owner: userJson(core, app.owner),
    name: app.name,
    description: '',
    external_url: `${core.url}/apps/${app.slug}`,
    html_url: `${core.url}/apps/${app.slug}`,
    created_at: '2024-01-01T00:00:00Z',
    updated_at: '2024-01-01T00:00:00Z',
    permissions: appPermissions(core),
    events: APP_EVENTS,
    installations_count: core.installations.size,
  };
}

export function installationJson(core: Core, inst: Installation): Record<string, unknown> {
  return {
    id: inst.id,
    account: userJson(core, inst.account),
    repository_selection: inst.removed.size > 0 ? 'selected' : 'all',
    access_tokens_url: `${core.apiUrl}/app/installations/${inst.id}/access_tokens`,
    repositories_url: `${core.apiUrl}/installation/repositories`,
    html_url: `${core.url}/organizations/${inst.account.login}/settings/installations/${inst.id}`,
    app_id: core.app.id,
    app_slug: core.app.slug,
    client_id: `Iv1.${core.app.id.toString(16).padStart(16, '0')}`,
    target_id: inst.account.id,
    target_type: inst.account.type === 'Organization' ? 'Organization' : 'User',
    permissions: appPermissions(core),
    events: APP_EVENTS,
    created_at: inst.createdAt,
    updated_at: inst.createdAt,
    single_file_name: null,
    has_multiple_single_files: false,
    single_file_paths: [],
    suspended_by: inst.suspendedBy ? userJson(core, inst.suspendedBy) : null,
    suspended_at: inst.suspendedAt,
  };
}
