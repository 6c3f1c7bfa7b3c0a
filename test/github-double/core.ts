import { EventEmitter } from 'node:events';
import { Ids, isoNow, nodeId } from './ids.js';
import { CONTENT_WRITES_PER_MINUTE, ContentWriteWindow } from './server/content-writes.js';
import { JobLogs } from './server/job-logs.js';
import type { HeldBranchUpdate } from './ops/update-branch.js';
import type {
  Account,
  AppInfo,
  Delivery,
  Installation,
  PermissionLevel,
  ManifestRegistration,
  Repo,
  RequestLogEntry,
  TokenInfo,
  Violation,
  ViolationKind,
  CiJobPlan,
} from './model.js';

export interface CoreOptions {
  webhookSecret: string;
  webhookUrl: string | undefined;
  appId: number;
  appSlug: string;
  subscribedEvents: readonly string[] | undefined;
  selfCheck: boolean;
  // The App's granted permissions (an installation accepts all of them).
  appPermissions: Record<string, PermissionLevel>;
}

// Hooks other areas plug in, so the core does not import them (no cycles).
export interface CoreHooks {
  sendWebhook(input: WebhookInput): Promise<Delivery | null>;
  redeliver(delivery: Delivery): Promise<Delivery>;
  onDispatch(runId: number): void;
  // A re-run's new attempt, once `rerun-failed-jobs` has been answered.
  onRerun(runId: number): void | Promise<void>;
}

export interface WebhookInput {
  event: string;
  action?: string;
  repo: Repo | null;
  sender: Account;
  body: Record<string, unknown>;
}

export type ChangeKind = string;

export class Core {
  readonly events = new EventEmitter();
  readonly ids = new Ids();
  readonly repos = new Map<string, Repo>();
  readonly accounts = new Map<string, Account>();
  readonly installations = new Map<string, Installation>();
  readonly tokens = new Map<string, TokenInfo>();
  readonly violations: Violation[] = [];
  readonly selfCheckErrors: string[] = [];
  readonly requests: RequestLogEntry[] = [];
  readonly deliveries: Delivery[] = [];
  readonly workerErrors: Error[] = [];
  readonly manifestCodes = new Map<string, ManifestRegistration>();
  readonly app: AppInfo;
  readonly ciApp: AppInfo;
  // A CI service's own App (`double.setCheck`): its check runs have no workflow run behind them.
  readonly otherCiApp: AppInfo;
  appPermissions: Record<string, PermissionLevel>;
  url = '';
  closed = false;
  webhooksDown = false;
  dispatchReturnsNoContent = false;
  mergeabilityLag = 0;
  // GitHub's cap on a recursive tree listing (entries); past it the answer is `truncated`.
  treeEntryLimit = 100_000;
  contentWritesPerMinute: number = CONTENT_WRITES_PER_MINUTE;
  readonly contentWrites = new ContentWriteWindow();
  readonly jobLogs = new JobLogs(() => this.url);
  // Updates of a PR's branch merge only at `double.releaseBranchUpdates`: update-branch answers
  // 202 first (GitHub's is asynchronous), a merge into the branch (`POST /merges`) is answered then.
  deferBranchUpdates = false;
  readonly heldBranchUpdates: HeldBranchUpdate[] = [];
  // CI runs whose current attempt waits for `double.releaseCi` (a `hold` in the run's plan).
  readonly heldCiRuns = new Set<number>();
  // Worker runs whose jobs the runner (worker/actions-runner.ts) has in hand, by id: what stops
  // them when the run is cancelled. Such a run completes when the runner has ended its jobs.
  readonly runnerStops = new Map<number, () => void>();
  // Repository (lowercase full name) → the CI workflow GitHub starts on each new PR head, as a
  // repository's `on: pull_request` workflow does (`fromForks`: what a fork's PR runs instead, the
  // workflow of its merge commit, which the fork may change); each run is held until `releaseCi`.
  readonly pullRequestCi = new Map<string, { jobs: CiJobPlan[]; fromForks: CiJobPlan[] }>();
  hooks: CoreHooks | null = null;
  private nextUserId = 1_000_001;

  constructor(readonly options: CoreOptions) {
    this.events.setMaxListeners(0);
    this.appPermissions = { ...options.appPermissions };
    const appOwner = this.account('agent-coordinator-owner');
    this.app = {
      id: options.appId,
      slug: options.appSlug,
      name: options.appSlug,
      nodeId: nodeId('A', options.appId),
      owner: appOwner,
      bot: this.account(`${options.appSlug}[bot]`),
    };
    this.ciApp = {
      id: 15368,
      slug: 'github-actions',
      name: 'GitHub Actions',
      nodeId: nodeId('A', 15368),
      owner: this.account('github', 'Organization'),
      bot: this.account('github-actions[bot]'),
    };
    this.otherCiApp = {
      id: 15369,
      slug: 'other-ci',
      name: 'Other CI',
      nodeId: nodeId('A', 15369),
      owner: this.account('other-ci-company', 'Organization'),
      bot: this.account('other-ci[bot]'),
    };
  }

  get apiUrl(): string {
    return `${this.url}/api/v3`;
  }

  /**
   * Whether an event would be delivered at all: callers with a costly payload (push, status)
   * skip building it for an App that is not subscribed.
   */
  delivers(event: string): boolean {
    if (this.closed) return false;
    // "All GitHub Apps receive this event by default. You cannot manually subscribe to this
    // event." (GitHub's "Webhook events and payloads", installation and installation_repositories)
    if (event === 'installation' || event === 'installation_repositories') return true;
    const subscribed = this.options.subscribedEvents;
    return !subscribed || subscribed.includes(event);
  }

  get webhooks(): CoreHooks {
    if (!this.hooks) throw new Error('github double: hooks not wired');
    return this.hooks;
  }

  // Logins are case-insensitive on GitHub; the first spelling seen is kept.
  account(login: string, type?: Account['type']): Account {
    const key = login.toLowerCase();
    const known = this.accounts.get(key);
    if (known) return known;
    const isBot = login.endsWith('[bot]');
    const id = login === 'github-actions[bot]' ? 41898282 : this.nextUserId++;
    const created: Account = {
      login,
      id,
      nodeId: nodeId(isBot ? 'BOT' : type === 'Organization' ? 'O' : 'U', id),
      type: type ?? (isBot ? 'Bot' : 'User'),
    };
    this.accounts.set(key, created);
    return created;
  }

  findRepo(fullName: string): Repo | undefined {
    return this.repos.get(fullName.toLowerCase());
  }

  repo(fullName: string): Repo {
    const repo = this.findRepo(fullName);
    if (!repo) throw new Error(`github double: no repository ${fullName}`);
    return repo;
  }

  /** The installation that holds the repository: none once it was removed from it, or deleted. */
  installationFor(repo: Repo): Installation | undefined {
    const inst = this.installations.get(repo.owner.login.toLowerCase());
    return inst && !inst.removed.has(repo.id) ? inst : undefined;
  }

  /**
   * How far the double's clock for what it records (comments, pushes, PRs, runs) runs ahead of
   * the real one: a test moves it on to make GitHub date one event after another.
   */
  clockOffsetMs = 0;

  now(): string {
    return isoNow(this.clockOffsetMs);
  }

  changed(kind: ChangeKind, detail?: unknown): void {
    this.events.emit('state-change', { kind, detail });
  }

  violation(kind: ViolationKind, method: string, path: string, message: string): void {
    const v: Violation = { kind, method, path, message, at: isoNow() };
    this.violations.push(v);
    this.events.emit('violation', v);
  }

  selfCheck(where: string, errors: readonly string[]): void {
    if (errors.length === 0) return;
    for (const e of errors) this.selfCheckErrors.push(`${where}: ${e}`);
    this.events.emit('self-check', { where, errors });
  }

  workerError(error: unknown): void {
    const e = error instanceof Error ? error : new Error(String(error));
    this.workerErrors.push(e);
    this.events.emit('worker-error', e);
  }
}
