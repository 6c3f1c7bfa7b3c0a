import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Octokit } from '@octokit/rest';
import type { Logger } from 'pino';
import type { AppEnv } from '../env.js';
import { listen } from '../http/server.js';
import { updateEnvFile } from './env-file.js';
import { buildManifest, readAppYml, webhookUrl } from './manifest.js';
import { messagePage, setupPage } from './page.js';

const SETUP_PAGE_PATH = '/probot';
const SETUP_CALLBACK_PATH = '/probot/setup';
// The coordinator's health path (src/http/server.ts), answered in setup mode too.
const HEALTH_PATH = '/healthz';

// GitHub's manifest flow must finish within an hour of the page (README "Registering the App").
const STATE_LIFETIME_MS = 60 * 60_000;
const MAX_PENDING_STATES = 100;

export interface SetupOptions {
  env: Pick<AppEnv, 'port' | 'host' | 'publicUrl' | 'webhookProxyUrl' | 'githubBaseUrl'>;
  /** GH_ORG: register the App on this organization instead of the user's account. */
  organization?: string;
  /** The env file the App's credentials are written to (`.env` in DATA_DIR, src/env.ts). */
  envFile: string;
  /**
   * The setup page asks for it (`/probot?token=…`): until the App is registered, whoever opens
   * the page registers the App whose credentials this process keeps. SETUP_TOKEN, or a random
   * one written to the log at start (docs/running.md "Setup mode").
   */
  token?: string;
  log: Logger;
}

export interface SetupServer {
  server: Server;
  url: string;
  /** The setup page with its token: what the start-up log prints. */
  pageUrl: string;
  close(): Promise<void>;
}

/**
 * Without credentials the app serves GitHub's App manifest flow: a page whose form posts the
 * manifest to GitHub, and the redirect back, where the temporary code is exchanged for the new
 * App's id, private key and webhook secret (`POST /app-manifests/{code}/conversions`), which go
 * into the env file. A restart then runs the App.
 */
export async function startSetupServer(options: SetupOptions): Promise<SetupServer> {
  const { env, log } = options;
  const appYml = readAppYml();
  const githubWeb = env.githubBaseUrl?.replace(/\/api\/v3$/, '') ?? 'https://github.com';
  const newAppUrl = options.organization
    ? `${githubWeb}/organizations/${encodeURIComponent(options.organization)}/settings/apps/new`
    : `${githubWeb}/settings/apps/new`;
  const github = new Octokit({ baseUrl: env.githubBaseUrl, userAgent: 'agent-coordinator-setup' });
  // GitHub hands the state back on the redirect: a redirect we did not start is refused.
  const pendingStates = new Map<string, number>();
  // Once credentials are saved, nobody may register another App over them before the restart.
  let registered: { appId: number } | undefined;
  const token = options.token?.trim() || randomBytes(18).toString('base64url');

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      log.error({ err: error, url: req.url }, 'setup request failed');
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://setup.invalid');
    if (req.method !== 'GET') return send(res, 405, messagePage('Not allowed', 'Use GET.'));
    if (url.pathname === '/') {
      res.writeHead(302, { location: SETUP_PAGE_PATH }).end();
      return;
    }
    if (url.pathname === HEALTH_PATH) return health(res);
    if (registered && [SETUP_PAGE_PATH, SETUP_CALLBACK_PATH].includes(url.pathname)) {
      const message = `The GitHub App ${registered.appId} is registered and its credentials are saved: restart the app to run it.`;
      return send(res, 409, messagePage('Already registered', message));
    }
    if (url.pathname === SETUP_PAGE_PATH) {
      if (!tokenMatches(url.searchParams.get('token'), token)) {
        return send(
          res,
          403,
          messagePage(
            'Setup token needed',
            "Open the setup page from the address in the app's start-up log (it ends in ?token=…), or set SETUP_TOKEN.",
          ),
        );
      }
      return page(req, res);
    }
    if (url.pathname === SETUP_CALLBACK_PATH) return callback(url, res);
    send(res, 404, messagePage('Not found', 'The setup flow starts at /probot.'));
  }

  /**
   * The process is up and doing its job, which until the App is registered is the setup page:
   * 200, so that a container's health check lets it run long enough to be registered; the body
   * says it is not the coordinator yet (docs/running.md "Setup mode").
   */
  function health(res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(
      JSON.stringify({
        status: 'setup',
        message: registered
          ? `the GitHub App ${registered.appId} is registered: restart to run it`
          : `no App credentials: register the GitHub App at ${SETUP_PAGE_PATH}, then restart`,
      }),
    );
  }

  function page(req: IncomingMessage, res: ServerResponse): void {
    const origin = pageOrigin(req);
    const manifest = buildManifest(appYml, {
      webhookUrl: webhookUrl({ ...env, pageOrigin: origin }),
      redirectUrl: `${origin}${SETUP_CALLBACK_PATH}`,
    });
    const state = newState();
    const html = setupPage({
      manifest,
      formAction: `${newAppUrl}?state=${state}`,
      guessedWebhookUrl: !env.publicUrl && !env.webhookProxyUrl,
    });
    send(res, 200, html);
  }

  async function callback(url: URL, res: ServerResponse): Promise<void> {
    const code = url.searchParams.get('code');
    const state = url.searchParams.get('state');
    if (!code) return send(res, 400, messagePage('No code', 'GitHub sent no code back.'));
    if (!state || !takeState(state)) {
      return send(
        res,
        400,
        messagePage(
          'Unknown registration',
          'This redirect does not come from a setup page this process served within the hour: open /probot and register again.',
        ),
      );
    }
    let app;
    try {
      ({ data: app } = await github.rest.apps.createFromManifest({ code }));
    } catch (error) {
      log.error({ err: error }, 'GitHub refused the manifest code');
      return send(
        res,
        502,
        messagePage('GitHub refused the code', `${(error as Error).message}. Register again.`),
      );
    }
    const credentials: Record<string, string> = {
      APP_ID: String(app.id),
      PRIVATE_KEY: app.pem,
      GITHUB_CLIENT_ID: app.client_id,
      GITHUB_CLIENT_SECRET: app.client_secret,
    };
    if (app.webhook_secret) credentials['WEBHOOK_SECRET'] = app.webhook_secret;
    else log.warn('GitHub returned no webhook secret: set WEBHOOK_SECRET in the App settings');
    try {
      updateEnvFile(options.envFile, credentials);
    } catch (error) {
      // The code is spent: GitHub will not hand these credentials out again.
      log.error({ err: error, appId: app.id, app: app.html_url }, 'could not write the env file');
      return send(
        res,
        500,
        messagePage(
          'The App is registered, but its credentials could not be saved',
          `Could not write ${options.envFile} (${(error as Error).message}). In the App's settings (${newAppUrl.replace(/new$/, app.slug ?? '')}), generate a private key and set a webhook secret, then set APP_ID=${app.id}, PRIVATE_KEY and WEBHOOK_SECRET.`,
        ),
      );
    }
    registered = { appId: app.id };
    pendingStates.clear();
    log.info(
      { appId: app.id, app: app.html_url, envFile: options.envFile },
      'GitHub App registered and its credentials written: restart to run it, then install it',
    );
    // GitHub's own next step: install the new App on an account.
    res.writeHead(302, { location: `${app.html_url}/installations/new` }).end();
  }

  function newState(): string {
    const now = Date.now();
    for (const [state, issued] of pendingStates)
      if (now - issued > STATE_LIFETIME_MS || pendingStates.size >= MAX_PENDING_STATES)
        pendingStates.delete(state);
    const state = randomBytes(16).toString('hex');
    pendingStates.set(state, now);
    return state;
  }

  function takeState(state: string): boolean {
    const issued = pendingStates.get(state);
    pendingStates.delete(state);
    return issued !== undefined && Date.now() - issued <= STATE_LIFETIME_MS;
  }

  const address = await listen(server, env.port, env.host);
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  const url = `http://${host}:${address.port}`;
  const pageUrl = `${url}${SETUP_PAGE_PATH}?token=${encodeURIComponent(token)}`;
  log.info(
    { url: pageUrl, webhookUrl: env.webhookProxyUrl ?? env.publicUrl },
    'no APP_ID or private key: open the setup page to register the GitHub App',
  );
  return {
    server,
    url,
    pageUrl,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function tokenMatches(given: string | null, token: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function send(res: ServerResponse, status: number, html: string): void {
  res
    .writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // The page's only job is a form post to GitHub: nothing else runs or loads.
      'content-security-policy': "default-src 'none'; form-action https: http:",
    })
    .end(html);
}

/** Where the browser opened the page, behind a reverse proxy too (as Probot reads it). */
function pageOrigin(req: IncomingMessage): string {
  const forwardedProto = first(req.headers['x-forwarded-proto']);
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  const proto = forwardedProto ?? (encrypted ? 'https' : 'http');
  const host = first(req.headers['x-forwarded-host']) ?? req.headers.host ?? 'localhost';
  return `${proto}://${host}`;
}

function first(value: string | string[] | undefined): string | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  return raw?.split(',')[0]?.trim() || undefined;
}
