// The server's own decision path, in process: a workflow_run completion delivered to the real
// app (Probot, the handlers, the engine, the store on Postgres) against a GitHub that answers
// every call at once, timed from the delivery to the end of its handling, which includes the
// auto-approved merge and the next workflow_dispatch.
import type { EmitterWebhookEvent } from '@octokit/webhooks';
import { sql } from 'drizzle-orm';
import { pino } from 'pino';
import { Probot, ProbotOctokit } from 'probot';
import { createApp } from '../src/app.js';
import { TriggerLabelCache } from '../src/config/trigger-labels.js';
import type { Engine } from '../src/engine/context.js';
import { createEngineMemory } from '../src/engine/memory.js';
import { taskBranch } from '../src/protocol/branch.js';
import { runName } from '../src/protocol/run-name.js';
import type { GitHubPort, PullState, RepoCoords } from '../src/github/port.js';
import { GITHUB_WRITE_LIMITS, WriteBudget } from '../src/github/write-budget.js';
import { classifyWrite } from '../src/github/write-budget-octokit.js';
import { createMetrics } from '../src/metrics.js';
import { rowsOf } from '../src/store/database.js';
import type { Store } from '../src/store/index.js';
import { countStatements } from '../src/store/statement-count.js';
import { WriteReservationStore } from '../src/store/write-reservations.js';
import { BENCH_APP_ID, benchPrivateKey } from './lib/keys.js';
import { nowMs } from './lib/stats.js';

export const INSTALLATION_ID = 77;
const SHA = 'a'.repeat(40);

type Port = Record<string, (...args: never[]) => unknown>;

/**
 * Ids GitHub gives (runs, check runs, comments), unique across every InstantGitHub of the
 * process: the scheduling benchmark's cases share one database, whose attempts_workflow_run_idx
 * holds each run id once, so a second app counting from 1 again had its dispatches refused.
 */
let nextGitHubId = 1;

/**
 * The request each write of the port sends (src/github/octokit-port.ts): what the write budget
 * is told of it (classifyWrite), so a write here costs the budget's statements as it does there.
 */
const WRITES: Partial<Record<keyof GitHubPort, { method: string; url: string }>> = {
  ensureBranch: { method: 'POST', url: '/repos/o/r/git/refs' },
  dispatchWorkflow: { method: 'POST', url: '/repos/o/r/actions/workflows/w/dispatches' },
  cancelWorkflowRun: { method: 'POST', url: '/repos/o/r/actions/runs/1/cancel' },
  createIssueComment: { method: 'POST', url: '/repos/o/r/issues/1/comments' },
  updateIssueComment: { method: 'PATCH', url: '/repos/o/r/issues/comments/1' },
  addLabels: { method: 'POST', url: '/repos/o/r/issues/1/labels' },
  closeIssue: { method: 'PATCH', url: '/repos/o/r/issues/1' },
  reactToComment: { method: 'POST', url: '/repos/o/r/issues/comments/1/reactions' },
  createCheckRun: { method: 'POST', url: '/repos/o/r/check-runs' },
  updateCheckRun: { method: 'PATCH', url: '/repos/o/r/check-runs/1' },
  mergePull: { method: 'PUT', url: '/repos/o/r/pulls/1/merge' },
  mergeIntoBranch: { method: 'POST', url: '/repos/o/r/merges' },
  requestReviewers: { method: 'POST', url: '/repos/o/r/pulls/1/requested_reviewers' },
  rerunFailedJobs: { method: 'POST', url: '/repos/o/r/actions/runs/1/rerun-failed-jobs' },
};

/**
 * A GitHub that answers at once: every dispatch gets a run id, every task branch has an open,
 * clean PR with no checks, whoever approves may write, every merge succeeds. It counts the
 * dispatches it was sent. Given a write budget, each write waits for it first and is stamped
 * sent once answered, as the App's Octokit does (src/github/write-budget-octokit.ts).
 */
export class InstantGitHub {
  dispatches = 0;
  /** The port's write calls, in order. */
  readonly writes: string[] = [];
  /** Every call of the port, reads and writes, in order. */
  readonly calls: string[] = [];
  private readonly pullNumbers = new Map<string, number>();
  private readonly pulls = new Map<number, PullState>();

  constructor(
    private readonly repositoryIdOf: (repo: RepoCoords) => number,
    private readonly budget?: WriteBudget,
  ) {}

  readonly port: GitHubPort = new Proxy({} as GitHubPort, {
    // Not a thenable: `await portFor()` must resolve to the port itself.
    get: (_t, name: string | symbol) => {
      if (name === 'then' || typeof name === 'symbol') return undefined;
      const answer = (this.answers as Port)[name];
      const write = WRITES[name as keyof GitHubPort];
      const request = write && classifyWrite(write);
      const budget = this.budget;
      if (!request || !budget)
        return async (...args: never[]) => {
          this.calls.push(name);
          return answer?.(...args);
        };
      return async (...args: never[]) => {
        this.calls.push(name);
        const ticket = await budget.acquire(INSTALLATION_ID, request);
        this.writes.push(name);
        try {
          return answer?.(...args);
        } finally {
          await ticket.sent();
        }
      };
    },
  });

  private readonly answers: Partial<{
    [K in keyof GitHubPort]: (
      ...args: Parameters<GitHubPort[K]>
    ) => Awaited<ReturnType<GitHubPort[K]>>;
  }> = {
    branchHead: () => SHA,
    // An empty tree: each glob of a task's `files:` stands for its literal prefix.
    repositoryTree: () => ({ paths: [], truncated: false }),
    // The port's contract: null for a run GitHub does not have (the sweep reads it).
    workflowRun: () => null,
    // The worker's jobs said nothing: what an attempt spent is its PR marker's, and there is none.
    runAnnotations: () => [],
    defaultBranch: () => 'main',
    ensureBranch: () => 'created',
    dispatchWorkflow: () => {
      this.dispatches++;
      return { runId: nextGitHubId++, runUrl: 'https://github.invalid/run' };
    },
    openPullsForBranch: (repo, branch) => {
      const pull = this.pullOf(repo, branch);
      return pull ? [pull] : [];
    },
    pull: (_repo, number) => this.pulls.get(number) ?? null,
    checksFor: () => ({ checks: [], actionsRuns: [] }),
    createCheckRun: () => ({ id: nextGitHubId++ }),
    updateCheckRun: () => undefined,
    hasMergeQueue: () => false,
    mergePull: (_repo, number) => {
      const pull = this.pulls.get(number);
      if (pull) this.pulls.set(number, { ...pull, state: 'closed', merged: true });
      return { merged: true, sha: SHA };
    },
    // Whoever approves (a command, a review) may write: their approval merges.
    roleOf: () => 'write',
    findAppComment: () => null,
    createIssueComment: () => ({ id: nextGitHubId++ }),
    updateIssueComment: () => true,
    addLabels: () => undefined,
    closeIssue: () => undefined,
  };

  private pullOf(repo: RepoCoords, branch: string): PullState {
    let number = this.pullNumbers.get(branch);
    if (number === undefined) {
      number = this.pullNumbers.size + 1;
      this.pullNumbers.set(branch, number);
      this.pulls.set(number, {
        number,
        nodeId: `PR_${number}`,
        htmlUrl: `https://github.invalid/pull/${number}`,
        state: 'open',
        merged: false,
        headRef: branch,
        headSha: SHA,
        headRepoId: this.repositoryIdOf(repo),
        baseRef: 'main',
        body: '',
        userLogin: 'agent[bot]',
        draft: false,
        mergeable: true,
        mergeableState: 'clean',
      });
    }
    return this.pulls.get(number)!;
  }
}

/**
 * The app as the server loads it (createApp on a Probot), with an engine on the instant port,
 * whose writes share the installation's write budget in the store, as the server's do, unless
 * `writeBudget` is false: at GitHub's 80 writes a minute, a burst of a thousand dispatches would
 * wait a quarter of an hour. The budget here keeps GitHub's window without its pace (a burst
 * may take the whole window): a GitHub answering at once makes every write of a pass go in the
 * same instant, and the pace would have them ask again, costing statements that count waits,
 * not the path.
 */
export async function serverApp(
  store: Store,
  maxParallel: number,
  { writeBudget = true }: { writeBudget?: boolean } = {},
) {
  const repos = new Map<string, number>();
  const budget = writeBudget
    ? new WriteBudget({
        reservations: new WriteReservationStore(store.handle.db),
        limits: { ...GITHUB_WRITE_LIMITS, burst: GITHUB_WRITE_LIMITS.perWindow, criticalBurst: 0 },
      })
    : undefined;
  const github = new InstantGitHub((repo) => repos.get(`${repo.owner}/${repo.repo}`) ?? 0, budget);
  const engine: Engine = {
    store,
    log: pino({ level: 'silent' }),
    portFor: async () => github.port,
    // The bench sends no installation event, the only thing that asks these.
    appGitHub: {
      installation: () => Promise.reject(new Error('the bench asks for no installation')),
      repositoryInstallation: () => Promise.reject(new Error('the bench asks for no installation')),
    },
    coordinatorUrl: async () => 'https://coordinator.bench.invalid',
    // The author of the PRs the bench's GitHub opens.
    appLogin: async () => 'agent[bot]',
    maxParallel,
    now: () => new Date(),
    memory: createEngineMemory(() => new Date()),
    // The status comment is written after the inbox drains, apart from the decision.
    requestStatus: () => {},
  };
  const probot = new Probot({
    appId: BENCH_APP_ID,
    privateKey: benchPrivateKey(),
    log: pino({ level: 'silent' }),
    Octokit: ProbotOctokit,
  });
  await probot.load(
    createApp({
      store,
      metrics: createMetrics(),
      engine,
      appId: BENCH_APP_ID,
      port: () => github.port,
      triggerLabels: new TriggerLabelCache(),
    }),
  );
  return { probot, engine, github, repos };
}

export interface Completion {
  ms: number;
  statements: number;
  /** Each statement's SQL, when asked for. */
  texts: string[];
  dispatched: number;
  /** The port's writes it sent (each through the write budget, when the app has one). */
  writes: string[];
}

/**
 * Completes the oldest dispatched worker run of the repository, `samples` times, each as one
 * `workflow_run.completed` delivery handled by the app, timed and its statements counted.
 */
export async function completeOldest(
  app: Awaited<ReturnType<typeof serverApp>>,
  store: Store,
  repository: { id: number; owner: string; name: string },
  samples: number,
  options: { texts?: boolean } = {},
): Promise<Completion[]> {
  app.repos.set(`${repository.owner}/${repository.name}`, repository.id);
  const out: Completion[] = [];
  for (let i = 0; i < samples; i++) {
    const [next] = rowsOf<{
      workflow_run_id: string;
      attempt: number;
      task_key: string;
      issue_number: number;
    }>(
      await store.handle.db.execute(sql`
        select a.workflow_run_id, a.attempt, t.task_key, r.issue_number
          from attempts a join tasks t on t.id = a.task_id join runs r on r.id = t.run_id
         where r.repository_id = ${repository.id} and t.state = 'dispatched'
           and a.phase = 'dispatched'
         order by a.id limit 1`),
    );
    if (!next) break;
    const branch = taskBranch(next.issue_number, next.task_key);
    const payload = {
      action: 'completed',
      workflow_run: {
        id: Number(next.workflow_run_id),
        name: 'agent-worker',
        event: 'workflow_dispatch',
        status: 'completed',
        conclusion: 'success',
        html_url: `https://github.invalid/runs/${next.workflow_run_id}`,
        head_branch: branch,
        display_title: runName(next.issue_number, next.task_key, next.attempt),
        created_at: new Date().toISOString(),
      },
      repository: {
        id: repository.id,
        name: repository.name,
        full_name: `${repository.owner}/${repository.name}`,
        owner: { login: repository.owner },
        default_branch: 'main',
      },
      installation: { id: INSTALLATION_ID },
      sender: { login: 'github-actions[bot]', type: 'Bot' },
    };
    const before = app.github.dispatches;
    const writesBefore = app.github.writes.length;
    const start = nowMs();
    const { statements, texts } = await countStatements(
      () =>
        app.probot.receive({
          id: `bench-${i}-${next.workflow_run_id}`,
          name: 'workflow_run',
          payload,
        } as unknown as EmitterWebhookEvent),
      options,
    );
    out.push({
      ms: nowMs() - start,
      statements,
      texts,
      dispatched: app.github.dispatches - before,
      writes: app.github.writes.slice(writesBefore),
    });
  }
  return out;
}
