import type { Server } from 'node:http';
import type { Core } from './core.js';
import type { Delivery, PermissionLevel, RequestLogEntry, TokenInfo, Violation } from './model.js';
import { CONTENT_WRITES } from './server/content-writes.js';
import { expireAllTokens, issueInstallationToken, issueUserToken } from './server/auth.js';
import type { GitHttp } from './server/git-http.js';
import type { OidcIssuer } from './oidc/issuer.js';
import type { Faults } from './server/faults.js';
import { waitUntil } from './wait.js';
import type { WebhookSender } from './webhooks/sender.js';
import type { SimulatedWorker } from './worker/simulated-worker.js';

export interface DoubleEventMap {
  request: RequestLogEntry;
  'webhook-sent': Delivery;
  'webhook-answered': Delivery;
  'state-change': { kind: string; detail: unknown };
  violation: Violation;
  'self-check': { where: string; errors: readonly string[] };
  'worker-error': Error;
  'deliveries-idle': undefined;
}

export type DoubleEvent = keyof DoubleEventMap;

export interface DeliveryView {
  id: number;
  guid: string;
  event: string;
  action: string | null;
  statusCode: number | null;
  redelivery: boolean;
  payload: Record<string, unknown>;
}

export interface Counts {
  apiCalls: number;
  contentWrites: number;
  // The most content writes seen in any 60-second window.
  maxContentWritesPerMinute: number;
}

export interface DoubleParts {
  core: Core;
  server: Server;
  faults: Faults;
  sender: WebhookSender;
  worker: SimulatedWorker;
  git: GitHttp;
  oidc: OidcIssuer;
}

// Lifecycle, strictness reporting and test synchronisation.
export class DoubleBase {
  readonly url: string;
  readonly apiUrl: string;
  readonly graphqlUrl: string;
  readonly faults: Faults;
  // GitHub Actions' OIDC provider for the runs this double starts.
  readonly oidc: OidcIssuer;
  protected readonly core: Core;
  protected readonly server: Server;
  protected readonly sender: WebhookSender;
  protected readonly worker: SimulatedWorker;
  private readonly git: GitHttp;

  constructor(parts: DoubleParts) {
    this.git = parts.git;
    this.core = parts.core;
    this.server = parts.server;
    this.faults = parts.faults;
    this.oidc = parts.oidc;
    this.sender = parts.sender;
    this.worker = parts.worker;
    this.url = parts.core.url;
    this.apiUrl = `${this.url}/api/v3`;
    this.graphqlUrl = `${this.url}/api/graphql`;
  }

  /** GitHub dates what happens from now on `ms` later (timestamps have second precision). */
  advanceClock(ms: number): void {
    this.core.clockOffsetMs += ms;
  }

  get appId(): number {
    return this.core.app.id;
  }

  get appSlug(): string {
    return this.core.app.slug;
  }

  get botLogin(): string {
    return this.core.app.bot.login;
  }

  get violations(): readonly Violation[] {
    return this.core.violations;
  }

  // Places where the double's own answers or webhooks disagree with GitHub's spec.
  get selfCheckErrors(): readonly string[] {
    return this.core.selfCheckErrors;
  }

  get workerErrors(): readonly Error[] {
    return this.core.workerErrors;
  }

  get requests(): readonly RequestLogEntry[] {
    return this.core.requests;
  }

  get webhooksDown(): boolean {
    return this.core.webhooksDown;
  }

  set webhooksDown(down: boolean) {
    this.core.webhooksDown = down;
  }

  // Make every dispatch answer 204 even when return_run_details is asked for.
  get dispatchReturnsNoContent(): boolean {
    return this.core.dispatchReturnsNoContent;
  }

  set dispatchReturnsNoContent(on: boolean) {
    this.core.dispatchReturnsNoContent = on;
  }

  // update-branch answers 202 and holds its merge until `releaseBranchUpdates()`, as GitHub's
  // asynchronous update leaves a moment in which another push can land first. Default off.
  get deferBranchUpdates(): boolean {
    return this.core.deferBranchUpdates;
  }

  set deferBranchUpdates(on: boolean) {
    this.core.deferBranchUpdates = on;
  }

  // After each head or base move, this many reads of a PR answer mergeable: null
  // (mergeable_state 'unknown'), as GitHub does while it recomputes. Default 0.
  get mergeabilityLag(): number {
    return this.core.mergeabilityLag;
  }

  set mergeabilityLag(reads: number) {
    this.core.mergeabilityLag = reads;
  }

  // GitHub's secondary limit on content-creating requests per actor (default 80); going
  // over answers 403 with retry-after and records a violation.
  // How many entries a recursive tree listing holds before GitHub says `truncated` (100,000).
  get treeEntryLimit(): number {
    return this.core.treeEntryLimit;
  }

  set treeEntryLimit(entries: number) {
    this.core.treeEntryLimit = entries;
  }

  get contentWritesPerMinute(): number {
    return this.core.contentWritesPerMinute;
  }

  set contentWritesPerMinute(limit: number) {
    this.core.contentWritesPerMinute = limit;
  }

  // GITHUB_SERVER_URL: where repositories are cloned from (GitHub's https://github.com).
  get serverUrl(): string {
    return this.url;
  }

  // The URL actions/checkout clones from: `${serverUrl}/<owner>/<repo>` (git's smart HTTP,
  // with or without .git). Pushes need a token: `Authorization: basic
  // base64("x-access-token:<token>")` or `Bearer <token>`.
  gitUrl(repo: string): string {
    const r = this.core.repo(repo);
    return `${this.serverUrl}/${r.owner.login}/${r.name}`;
  }

  // An installation token as POST /app/installations/{id}/access_tokens would mint it:
  // `repositories` and `permissions` narrow it; left out, it has all the installation's
  // repositories and all the App's permissions (which include no `workflows`).
  createInstallationToken(
    owner: string,
    options: {
      repositories?: string[];
      permissions?: Record<string, 'read' | 'write' | 'admin'>;
    } = {},
  ): string {
    const inst = this.core.installations.get(owner.toLowerCase());
    if (!inst) throw new Error(`github double: the App is not installed on ${owner}`);
    const info: TokenInfo = {
      ...issueInstallationToken(this.core, inst),
      ...(options.repositories
        ? { repositoryIds: options.repositories.map((r) => this.core.repo(r).id) }
        : {}),
      ...(options.permissions ? { permissions: { ...options.permissions } } : {}),
    };
    this.core.tokens.set(info.token, info);
    return info.token;
  }

  // The window of that limit (default 60 s); tests that scale the app's write budget scale it too.
  get contentWritesWindowMs(): number {
    return this.core.contentWrites.windowMs;
  }

  set contentWritesWindowMs(ms: number) {
    this.core.contentWrites.windowMs = ms;
  }

  /**
   * The most writes one actor made in any `windowMs`: every request that is not a read (GET,
   * HEAD, a GraphQL query) or a token request, answered or refused, by GitHub's receive order.
   */
  maxWritesInWindow(actor: string, windowMs: number): number {
    const writes = this.core.requests
      .filter((r) => r.actor === actor && isWrite(r))
      .map((r) => Date.parse(r.at))
      .sort((a, b) => a - b);
    return maxInWindow(writes, windowMs);
  }

  /** Writes by one actor (see maxWritesInWindow), grouped by route. */
  writesByRoute(actor: string): Map<string, number> {
    const byRoute = new Map<string, number>();
    for (const r of this.core.requests) {
      if (r.actor !== actor || !isWrite(r)) continue;
      const route = r.route ?? `${r.method} ${r.path}`;
      byRoute.set(route, (byRoute.get(route) ?? 0) + 1);
    }
    return byRoute;
  }

  // For Probot's GHE_HOST (with GHE_PROTOCOL=http).
  get gheHost(): string {
    return new URL(this.url).host;
  }

  get webhookUrl(): string | undefined {
    return this.core.options.webhookUrl;
  }

  setWebhookUrl(url: string | undefined): void {
    this.core.options.webhookUrl = url;
  }

  async close(): Promise<void> {
    this.core.closed = true;
    // Wake anything waiting on the double (e.g. a merge group waiting for checks).
    this.core.changed('closed');
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.worker.idle();
    await this.sender.idle();
    this.git.close();
  }

  assertNoViolations(): void {
    const problems = [
      ...this.core.violations.map((v) => `[${v.kind}] ${v.method} ${v.path}: ${v.message}`),
      ...this.core.workerErrors.map((e) => `[worker-error] ${e.message}`),
    ];
    if (problems.length > 0) {
      throw new Error(
        `GitHub double saw ${problems.length} violation(s):\n  ${problems.join('\n  ')}`,
      );
    }
  }

  clearViolations(): void {
    this.core.violations.length = 0;
  }

  counts(): Counts {
    const writes = this.core.requests
      .filter((r) => r.route !== null && CONTENT_WRITES.has(r.route))
      .map((r) => Date.parse(r.at));
    const max = maxInWindow(writes, 60_000);
    return {
      apiCalls: this.core.requests.length,
      contentWrites: writes.length,
      maxContentWritesPerMinute: max,
    };
  }

  /** The App's permissions from now on (default: app.yml's `default_permissions`). */
  setAppPermissions(permissions: Record<string, PermissionLevel>): void {
    this.core.appPermissions = { ...permissions };
  }

  createUserToken(login: string): string {
    return issueUserToken(this.core, login);
  }

  // Every token issued so far stops working (401 Bad credentials).
  expireTokens(): void {
    expireAllTokens(this.core);
  }

  on<E extends DoubleEvent>(event: E, listener: (detail: DoubleEventMap[E]) => void): this {
    this.core.events.on(event, listener as (...args: unknown[]) => void);
    return this;
  }

  off<E extends DoubleEvent>(event: E, listener: (detail: DoubleEventMap[E]) => void): this {
    this.core.events.off(event, listener as (...args: unknown[]) => void);
    return this;
  }

  waitFor<T>(
    predicate: (double: this) => T | false | null | undefined,
    options: { timeoutMs?: number; description: string },
  ): Promise<T> {
    return waitUntil(this.core.events, () => predicate(this), {
      timeoutMs: options.timeoutMs ?? 10_000,
      description: options.description,
    });
  }

  // Resolves once every webhook sent so far has been answered (or has failed).
  waitForDeliveries(): Promise<void> {
    return this.sender.idle();
  }

  // Resolves once every simulated worker run has finished its scripted steps.
  waitForWorkers(): Promise<void> {
    return this.worker.idle();
  }

  deliveries(filter: { event?: string; action?: string } = {}): DeliveryView[] {
    return this.core.deliveries
      .filter(
        (d) =>
          (!filter.event || d.event === filter.event) &&
          (!filter.action || d.action === filter.action),
      )
      .map(deliveryView);
  }
}

function deliveryView(d: Delivery): DeliveryView {
  return {
    id: d.id,
    guid: d.guid,
    event: d.event,
    action: d.action,
    statusCode: d.statusCode,
    redelivery: d.redelivery,
    payload: d.payload,
  };
}

export function isWrite(r: RequestLogEntry): boolean {
  if (r.method === 'GET' || r.method === 'HEAD') return false;
  if (r.path.startsWith('/app/')) return false;
  if (r.route === 'POST /graphql') {
    const query = (r.body as { query?: unknown } | null)?.query;
    return typeof query === 'string' && /^mutation\b/.test(query.trimStart());
  }
  return true;
}

function maxInWindow(sortedTimes: number[], windowMs: number): number {
  let max = 0;
  let start = 0;
  for (let end = 0; end < sortedTimes.length; end++) {
    while ((sortedTimes[end] ?? 0) - (sortedTimes[start] ?? 0) >= windowMs) start++;
    max = Math.max(max, end - start + 1);
  }
  return max;
}
