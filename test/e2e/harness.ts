import { GITHUB_WRITE_LIMITS } from '../../src/github/write-budget.js';
import { inject, onTestFailed } from 'vitest';
import { startGitHubDouble, type DeliveryChaos } from '../github-double/index.js';
import type { GitHubDouble } from '../github-double/scenario.js';
import {
  startTestCoordinator,
  TEST_APP_ID,
  TEST_WEBHOOK_SECRET,
  type TestCoordinator,
} from '../helpers/app.js';
import { assignmentOf } from '../helpers/assignment.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import type { CoordinatorOptions } from '../../src/coordinator.js';

export const OWNER = 'octo-org';
export const REPO_NAME = 'widgets';
export const REPO = `${OWNER}/${REPO_NAME}`;
export const MAINTAINER = 'maintainer';

/** An issue body with two tasks, `docs` after `build`. */
export const BUILD_THEN_DOCS = [
  '```tasks',
  '- id: build',
  '  title: Build it',
  '- id: docs',
  '  title: Document it',
  '  deps: [build]',
  '```',
].join('\n');

/** An issue body with one task, `a`. */
export const ONE_TASK_PLAN = ['```tasks', '- id: a', '  title: A', '```'].join('\n');

export { SPEC_EXAMPLE_PLAN } from '../fixtures/spec-example-plan.js';

/**
 * The seeds the scenarios run under with deliveries late, reordered and sometimes doubled
 * (`DELIVERY_SEEDS=7,8 npx vitest run test/e2e` tries others). A failing test's name says its seed.
 */
export const DELIVERY_SEEDS: readonly number[] = (process.env.DELIVERY_SEEDS ?? '1,2,3')
  .split(',')
  .map(Number)
  .filter(Number.isInteger);

export function chaoticDelivery(seed: number): DeliveryChaos {
  return { seed, maxDelayMs: 30, duplicateRate: 0.1 };
}

/** The e2e scenarios' retry backoff: short, since `settle()` waits for every retry. */
const RETRY_DELAY_MS = 50;

/**
 * A failed scenario says its delivery seed and what the app logged at warn and above (a failed
 * handling, a retry), which is where a delivery-order bug shows first.
 */
function reportFailure(app: TestCoordinator, delivery: DeliveryChaos | undefined): void {
  const troubles: string[] = [];
  for (const line of app.logs.lines) {
    let entry: LogEntry;
    try {
      entry = JSON.parse(line) as LogEntry;
    } catch {
      continue;
    }
    if ((entry.level ?? 0) < 40) continue;
    // The message and what it names, without the payloads Probot attaches to a failed handling.
    const event = typeof entry.event === 'string' ? entry.event : '';
    const error = entry.err?.errors?.[0]?.message ?? entry.err?.message ?? '';
    troubles.push(
      [entry.msg, event, entry.delivery, entry.attempt && `attempt ${entry.attempt}`, error]
        .filter(Boolean)
        .join(' | ')
        .slice(0, 500),
    );
  }
  const seed = delivery ? `delivery seed ${delivery.seed}` : 'deliveries in order';
  console.error(
    `scenario failed (${seed}); the app's warnings and errors:\n${troubles.join('\n') || '(none)'}`,
  );
}

interface LogEntry {
  level?: number;
  msg?: string;
  event?: unknown;
  delivery?: string;
  attempt?: number;
  err?: { message?: string; errors?: Array<{ message?: string }> };
}

export interface Scenario {
  double: GitHubDouble;
  app: TestCoordinator;
  clock: { now: Date; advance(ms: number): void };
  /** Wait until GitHub and the app have nothing left to say to each other (no sleeps). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export async function startScenario(
  options: {
    config?: string;
    engine?: 'postgres' | 'pglite';
    files?: Record<string, string>;
    env?: NodeJS.ProcessEnv;
    /** Events the double delivers (default all): leaving one out simulates missed webhooks. */
    subscribedEvents?: string[];
    /** Octokit behaviour (default `test`: retries and throttling off). */
    octokit?: 'test' | 'production';
    processor?: CoordinatorOptions['processor'];
    sweepGraceMs?: number;
    /** Use this database (the caller owns it) instead of a fresh clone of the template. */
    databaseUrl?: string;
    /** The app's GitHub write budget (default: GitHub's limits, 80 writes a minute). */
    writeBudget?: CoordinatorOptions['writeBudget'];
    /**
     * A shorter window for GitHub's 80-writes limit, in the app's budget and in the double alike,
     * for scenarios that write in bursts (many commands and replies in one test file).
     */
    writeWindowMs?: number;
    /** A private repository: GitHub checks every call against the App's permissions. */
    private?: boolean;
    /** How the double delivers (default: in order per repository, once). */
    delivery?: DeliveryChaos;
    /** Where the workers' OIDC tokens are checked (a test issuer; default GitHub Enterprise's at the double). */
    oidc?: CoordinatorOptions['oidc'];
    /** Set the double up before the app starts (faults the app's start must meet). */
    beforeApp?: (double: GitHubDouble) => void;
  } = {},
): Promise<Scenario> {
  const double = await startGitHubDouble({
    webhookSecret: TEST_WEBHOOK_SECRET,
    appId: TEST_APP_ID,
    subscribedEvents: options.subscribedEvents,
    delivery: options.delivery,
  });
  let database: TestDatabase | undefined;
  if ((options.engine ?? 'postgres') === 'postgres' && !options.databaseUrl)
    database = await createTestDatabase(inject('templateDatabase'));
  const clock = {
    now: new Date(),
    advance(ms: number) {
      clock.now = new Date(clock.now.getTime() + ms);
    },
  };
  options.beforeApp?.(double);
  const app = await startTestCoordinator({
    oidc: options.oidc,
    writeBudget:
      options.writeBudget ??
      (options.writeWindowMs
        ? { limits: { ...GITHUB_WRITE_LIMITS, windowMs: options.writeWindowMs } }
        : undefined),
    databaseUrl: options.databaseUrl ?? database?.url,
    githubBaseUrl: double.apiUrl,
    now: () => clock.now,
    env: options.env,
    octokit: options.octokit,
    // A delivery whose handling failed is retried after a backoff; here a short one, so that
    // `settle()`, which waits for every retry, stays quick.
    processor: { retryDelayMs: () => RETRY_DELAY_MS, ...options.processor },
    sweepGraceMs: options.sweepGraceMs,
  });
  if (options.writeWindowMs) double.contentWritesWindowMs = options.writeWindowMs;
  double.setWebhookUrl(`${app.url}/api/github/webhooks`);
  await double.createRepo({
    owner: OWNER,
    name: REPO_NAME,
    // Private unless a test says otherwise: GitHub then checks every call against the App's
    // permissions, as on most repositories this runs on.
    private: options.private ?? true,
    files: {
      'README.md': '# widgets\n',
      ...(options.config ? { '.github/agent-coordinator.yml': options.config } : {}),
      ...options.files,
    },
  });
  await double.setPermission(REPO, MAINTAINER, 'maintain');

  try {
    onTestFailed(() => reportFailure(app, options.delivery));
  } catch {
    // Started in a beforeAll, outside any one test: nothing to attach the report to.
  }

  // Quiet means: every delivery answered, every simulated worker done, and the app with nothing
  // in hand and no retry scheduled (a handling that failed is retried after a backoff, and what
  // the retry does is part of what the test waits for), all with no new delivery in between.
  const settle = async () => {
    for (let round = 0; round < 200; round++) {
      const before = double.deliveries().length;
      await double.waitForDeliveries();
      await double.waitForWorkers();
      await app.processor.whenDrained();
      await double.waitForDeliveries();
      await double.waitForWorkers();
      if (double.deliveries().length === before) return;
    }
    throw new Error('the app and the double never went quiet');
  };
  return {
    double,
    app,
    clock,
    settle,
    async close() {
      await app.close();
      await double.close();
      await database?.drop();
    },
  };
}

export function statusComment(double: GitHubDouble, issue: number): string {
  const comments = double.comments(REPO, issue) as Array<{ body: string }>;
  const status = comments.filter((c) => c.body.includes('<!-- agent-coordinator:status -->'));
  if (status.length !== 1) throw new Error(`expected one status comment, found ${status.length}`);
  return status[0]!.body;
}

export function repositoryIdOf(double: GitHubDouble): number {
  return (double.repository(REPO) as { id: number }).id;
}

/** The assignment the worker of a dispatched run gets (title, prompt, feedback, ...). */
export function assignmentFor(s: Scenario, run: { inputs: Readonly<Record<string, string>> }) {
  return assignmentOf(s.app.store, repositoryIdOf(s.double), run.inputs);
}

/** A task of the issue's newest run, as the coordinator stores it. */
export async function taskOf(s: Scenario, issue: number, key: string) {
  const run = await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue);
  return s.app.store.runs.task(run!.id, key);
}

/**
 * A maintainer opens an issue with a plan (ONE_TASK_PLAN unless given) and labels it: the run
 * starts, and what follows at once (planning, the first dispatches) has settled.
 */
export async function startRun(
  s: Pick<Scenario, 'double' | 'settle'>,
  issue: { title?: string; body?: string } = {},
): Promise<number> {
  const number = await s.double.openIssue(REPO, {
    title: issue.title ?? 'Login',
    body: issue.body ?? ONE_TASK_PLAN,
    user: MAINTAINER,
  });
  await s.double.addLabel(REPO, number, 'agent', MAINTAINER);
  await s.settle();
  return number;
}

/** The App's bot account, which pushes the worker's commits and opens its PRs. */
export const APP_BOT = 'agent-coordinator[bot]';

/**
 * ONE_TASK_PLAN labelled with no worker of the double's: task a's run is started, and its
 * commit pushed and its PR opened as the worker does, while the run is still going.
 */
export async function workerOpensPr(
  s: Pick<Scenario, 'double' | 'settle'>,
): Promise<{ issue: number; pr: number; runId: number }> {
  s.double.setWorker(null);
  const issue = await startRun(s, { title: 'Feature' });
  const runId = s.double.runs(REPO).find((r) => r.head_branch === 'agent/1/a')!.id as number;
  await s.double.startWorkflowRun(runId);
  await s.double.pushCommit(REPO, 'agent/1/a', {
    message: 'a: A',
    files: { 'a.txt': 'A\n' },
    by: APP_BOT,
  });
  const pr = await s.double.openPr(REPO, { head: 'agent/1/a', title: 'A', by: APP_BOT });
  await s.settle();
  return { issue, pr, runId };
}

/**
 * The coordinator's updates of a PR's branch (`POST /merges` into its head branch), in order: what
 * GitHub answered, and what it was asked to merge in.
 */
export function branchUpdates(
  s: Pick<Scenario, 'double'>,
  pr: number,
): Array<{ status: number; head: string }> {
  const pull = (s.double.pulls(REPO) as Array<{ number: number; head: { ref: string } }>).find(
    (p) => p.number === pr,
  );
  return s.double.requests
    .filter((r) => r.method === 'POST' && r.path.endsWith('/merges') && r.actor !== MAINTAINER)
    .map((r) => ({ status: r.status, body: r.body as { base?: string; head?: string } }))
    .filter(({ body }) => pull !== undefined && body.base === pull.head.ref)
    .map(({ status, body }) => ({ status, head: body.head ?? '' }));
}

/** The statuses GitHub answered the coordinator's updates of a PR's branch with, in order. */
export function branchUpdateAnswers(s: Pick<Scenario, 'double'>, pr: number): number[] {
  return branchUpdates(s, pr).map((u) => u.status);
}

/** The PR's comments telling a person that GitHub refused the App its update (update-hold.ts). */
export function updateRefusedComments(s: Pick<Scenario, 'double'>, pr: number): { body: string }[] {
  return (s.double.comments(REPO, pr) as Array<{ body: string }>).filter((c) =>
    c.body.startsWith('<!-- agent-coordinator:update-refused '),
  );
}

/** Two tasks, b depending on a: with `dispatch.stack`, b stacks on a (docs/stacking.md). */
export const CHAIN_OF_TWO = [
  '```tasks',
  '- id: a',
  '  title: A',
  '- id: b',
  '  title: B',
  '  deps: [a]',
  '```',
].join('\n');

/**
 * A run with `dispatch.stack` on, from an issue with `body`: each task's worker writes its own
 * file (`src/<task>.txt`, its attempt in it) and opens its PR on the assignment's base. Returns
 * once the first dispatches and PRs have settled.
 */
export async function startStackedRun(
  body: string,
  options: { deleteBranchOnMerge?: boolean } = {},
): Promise<{ s: Scenario; issue: number }> {
  const s = await startScenario({ config: 'dispatch:\n  stack: true\n' });
  if (options.deleteBranchOnMerge) s.double.setDeleteBranchOnMerge(REPO, true);
  s.double.setWorker(async (run) => {
    const { base } = await assignmentFor(s, run);
    const task = run.inputs['task_id']!;
    return {
      kind: 'pr',
      ...(base !== null && { base }),
      files: { [`src/${task}.txt`]: `${task} attempt ${run.inputs['attempt']}\n` },
    };
  });
  const issue = await s.double.openIssue(REPO, { title: 'Stack', body, user: MAINTAINER });
  await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
  await s.settle();
  return { s, issue };
}

/** After each test: the double saw nothing GitHub would refuse, and the scenario closes either way. */
export async function closeScenario(s: Scenario | undefined): Promise<void> {
  if (!s) return;
  try {
    s.double.assertNoViolations();
  } finally {
    await s.close();
  }
}
