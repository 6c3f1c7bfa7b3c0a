import type { Delivery, Installation } from '../model.js';
import { appJson, appPermissions, installationJson } from '../render/accounts.js';
import { convertManifestCode } from '../ops/app-manifest.js';
import { repoJson } from '../render/repos.js';
import { issueInstallationToken, ScopeError, scopeFor } from '../server/auth.js';
import {
  bodyObject,
  HttpError,
  intParam,
  json,
  listResponse,
  notFound,
  repoOf,
  type ApiRequest,
  type Handler,
} from '../server/http.js';

function deliveryItem(d: Delivery): Record<string, unknown> {
  return {
    id: d.id,
    guid: d.guid,
    delivered_at: d.deliveredAt,
    redelivery: d.redelivery,
    duration: d.duration,
    status: d.status,
    status_code: d.statusCode ?? 0,
    event: d.event,
    action: d.action,
    installation_id: d.installationId,
    repository_id: d.repositoryId,
    throttled_at: null,
  };
}

function findInstallation(req: ApiRequest): Installation {
  const id = intParam(req, 'installation_id');
  const inst = [...req.core.installations.values()].find((i) => i.id === id);
  if (!inst) throw notFound();
  return inst;
}

// Cursor pagination, newest first, as GitHub pages the delivery log.
function listDeliveries(req: ApiRequest): {
  status: number;
  body: unknown;
  headers: Record<string, string>;
} {
  const perPage = Math.min(Math.max(Number(req.query.get('per_page') ?? 30) || 30, 1), 100);
  const cursor = req.query.get('cursor');
  const filter = req.query.get('status');
  const after = cursor ? Number(cursor.replace(/^v1_/, '')) : Number.POSITIVE_INFINITY;
  if (cursor && !Number.isFinite(after)) throw new HttpError(422, 'Invalid cursor');
  const all = req.core.deliveries
    .filter((d) => d.statusCode !== null)
    .filter((d) => {
      if (!filter) return true;
      const ok = (d.statusCode ?? 0) >= 200 && (d.statusCode ?? 0) < 300;
      return filter === 'success' ? ok : !ok;
    })
    .sort((a, b) => b.id - a.id)
    .filter((d) => d.id < after);
  const page = all.slice(0, perPage);
  const headers: Record<string, string> = {};
  const lastOnPage = page[page.length - 1];
  if (all.length > perPage && lastOnPage) {
    const q = new URLSearchParams({ per_page: String(perPage), cursor: `v1_${lastOnPage.id}` });
    if (filter) q.set('status', filter);
    headers['link'] = `<${req.core.apiUrl}/app/hook/deliveries?${q.toString()}>; rel="next"`;
  }
  return { status: 200, body: page.map(deliveryItem), headers };
}

function findDelivery(req: ApiRequest): Delivery {
  const id = intParam(req, 'delivery_id');
  const d = req.core.deliveries.find((x) => x.id === id);
  if (!d) throw notFound();
  return d;
}

export const appRoutes: [string, Handler][] = [
  [
    'POST /app-manifests/{code}/conversions',
    (req) => {
      const app = convertManifestCode(req.core, req.params['code'] ?? '');
      if (!app) throw notFound();
      return json(201, app);
    },
  ],
  ['GET /app', (req) => json(200, appJson(req.core, req.core.app))],
  [
    'GET /app/installations',
    (req) =>
      listResponse(req, [...req.core.installations.values()], (i) => installationJson(req.core, i)),
  ],
  [
    'GET /app/installations/{installation_id}',
    (req) => json(200, installationJson(req.core, findInstallation(req))),
  ],
  [
    'POST /app/installations/{installation_id}/access_tokens',
    (req) => {
      const inst = findInstallation(req);
      // GitHub's answer to a suspended installation's token request (ossf/allstar#314).
      if (inst.suspendedAt) throw new HttpError(403, 'This installation has been suspended');
      let scope: ReturnType<typeof scopeFor>;
      try {
        scope = scopeFor(req.core, inst, bodyObject(req));
      } catch (error) {
        if (error instanceof ScopeError) throw new HttpError(422, error.message);
        throw error;
      }
      const token = issueInstallationToken(req.core, inst, {
        ...(scope.repos ? { repositoryIds: scope.repos.map((r) => r.id) } : {}),
        ...(scope.permissions ? { permissions: scope.permissions } : {}),
      });
      // GitHub answers with what the token holds; metadata comes with any repository access.
      const permissions = scope.permissions
        ? { ...scope.permissions, metadata: 'read' }
        : appPermissions(req.core);
      return json(201, {
        token: token.token,
        expires_at: token.expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        permissions,
        repository_selection: scope.repos ? 'selected' : 'all',
        ...(scope.repos ? { repositories: scope.repos.map((r) => repoJson(req.core, r)) } : {}),
      });
    },
  ],
  [
    'GET /repos/{owner}/{repo}/installation',
    (req) => {
      const inst = req.core.installationFor(repoOf(req));
      if (!inst) throw notFound();
      return json(200, installationJson(req.core, inst));
    },
  ],
  [
    'GET /orgs/{org}/installation',
    (req) => {
      const inst = req.core.installations.get((req.params['org'] ?? '').toLowerCase());
      if (!inst) throw notFound();
      return json(200, installationJson(req.core, inst));
    },
  ],
  [
    'GET /users/{username}/installation',
    (req) => {
      const inst = req.core.installations.get((req.params['username'] ?? '').toLowerCase());
      if (!inst) throw notFound();
      return json(200, installationJson(req.core, inst));
    },
  ],
  [
    'GET /app/hook/config',
    (req) =>
      json(200, {
        content_type: 'json',
        url: req.core.options.webhookUrl ?? '',
        insecure_ssl: '0',
      }),
  ],
  ['GET /app/hook/deliveries', listDeliveries],
  [
    'GET /app/hook/deliveries/{delivery_id}',
    (req) => {
      const d = findDelivery(req);
      return json(200, {
        ...deliveryItem(d),
        url: req.core.options.webhookUrl ?? '',
        request: { headers: d.requestHeaders, payload: d.payload },
        response: { headers: d.responseHeaders, payload: d.responseBody },
      });
    },
  ],
  [
    'POST /app/hook/deliveries/{delivery_id}/attempts',
    (req) => {
      const d = findDelivery(req);
      return { status: 202, body: {}, after: () => void req.core.webhooks.redeliver(d) };
    },
  ],
  [
    'GET /rate_limit',
    () => {
      const reset = Math.floor(Date.now() / 1000) + 3600;
      const core = { limit: 5000, used: 0, remaining: 5000, reset };
      return json(200, {
        resources: { core, graphql: core, search: { ...core, limit: 30, remaining: 30 } },
        rate: core,
      });
    },
  ],
];
