import type { Logger } from 'pino';
import type { RouteHandler } from '../http/server.js';
import type { AppDatabase } from '../store/database.js';
import { DashboardAuth } from './auth.js';
import { LiveUpdates } from './events.js';
import { Links } from './links.js';
import { renderRunDetail } from './pages/run-page.js';
import { renderRunsList } from './pages/runs-page.js';
import { DashboardQueries } from './queries.js';
import { notFound, page, unauthorized } from './responses.js';

export const DASHBOARD_PATH = '/dashboard';

export interface DashboardOptions {
  db: AppDatabase;
  /** DASHBOARD_TOKEN: without it there is no dashboard at all (its paths answer 404). */
  token: string;
  /** The GitHub REST base URL (GHE_HOST); links point at its web pages. Default github.com. */
  githubBaseUrl?: string;
  log: Logger;
  /** How often an open page's view is checked for changes (default 1 s). */
  pollMs?: number;
  now?: () => Date;
}

export interface Dashboard {
  /** For `createHttpServer`'s routes: `/dashboard` and everything under it. */
  readonly routes: Record<string, RouteHandler>;
  close(): void;
}

export function createDashboard(options: DashboardOptions): Dashboard {
  const auth = new DashboardAuth(options.token);
  const queries = new DashboardQueries(options.db);
  const links = Links.fromApiBaseUrl(options.githubBaseUrl);
  const live = new LiveUpdates({ pollMs: options.pollMs ?? 1000, log: options.log });
  const now = options.now ?? (() => new Date());

  const handle: RouteHandler = async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://dashboard.invalid');
    const verdict = auth.check(req, url);
    if (verdict.kind === 'denied') return unauthorized(res);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('GET only\n');
      return;
    }
    if (verdict.kind === 'login') {
      res
        .writeHead(303, {
          location: verdict.location,
          'set-cookie': verdict.cookie,
          'cache-control': 'no-store',
          'referrer-policy': 'no-referrer',
        })
        .end();
      return;
    }
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const fragment = url.searchParams.get('fragment') === '1';

    if (path === DASHBOARD_PATH) {
      const version = await queries.listVersion();
      const body = renderRunsList(await queries.listRuns(), links, now());
      return page(res, 'Runs · agent-coordinator', body, fragment, {
        version,
        events: `${DASHBOARD_PATH}/events`,
        fragment: `${DASHBOARD_PATH}?fragment=1`,
      });
    }
    const runMatch = /^\/dashboard\/runs\/(\d{1,15})$/.exec(path);
    if (runMatch) {
      const runId = Number(runMatch[1]);
      const version = await queries.runVersion(runId);
      const detail = version === undefined ? undefined : await queries.runDetail(runId);
      if (!detail) return notFound(res);
      const { run } = detail;
      return page(
        res,
        `${run.owner}/${run.repo}#${run.issueNumber} · agent-coordinator`,
        renderRunDetail(detail, links, now()),
        fragment,
        {
          version: version ?? '',
          events: `${DASHBOARD_PATH}/events?run=${runId}`,
          fragment: `${DASHBOARD_PATH}/runs/${runId}?fragment=1`,
        },
      );
    }
    if (path === `${DASHBOARD_PATH}/events`) {
      const run = url.searchParams.get('run');
      const since = url.searchParams.get('since');
      if (run !== null) {
        if (!/^\d{1,15}$/.test(run)) return notFound(res);
        const runId = Number(run);
        if ((await queries.runVersion(runId)) === undefined) return notFound(res);
        return live.stream(req, res, `run:${runId}`, () => queries.runVersion(runId), since);
      }
      return live.stream(req, res, 'list', () => queries.listVersion(), since);
    }
    return notFound(res);
  };

  return {
    routes: { [DASHBOARD_PATH]: handle, [`${DASHBOARD_PATH}/*`]: handle },
    close: () => live.close(),
  };
}
