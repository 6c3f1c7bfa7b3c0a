import type { Logger } from 'pino';
import type { RepoConfig } from '../config/schema.js';
import type { AppGitHub } from '../github/app-github.js';
import type { GitHubPort, RepoCoords } from '../github/port.js';
import type { WriteBudget } from '../github/write-budget.js';
import type { Decision, Metrics } from '../metrics.js';
import type { Store } from '../store/index.js';
import type { RepositoryRow } from '../store/repositories.js';
import type { RunRow } from '../store/runs.js';
import type { EngineMemory } from './memory.js';

export interface Engine {
  readonly store: Store;
  readonly log: Logger;
  /** An installation-authenticated port (the sweep has no webhook context to borrow one from). */
  portFor(installationId: number): Promise<GitHubPort>;
  /** What the App asks GitHub as itself: which installations and repositories it has now. */
  readonly appGitHub: AppGitHub;
  /**
   * The coordinator's public base URL, sent with every dispatch as `coordinator_url`; undefined
   * while it cannot be worked out, and then nothing is dispatched (the worker could not get
   * its assignment).
   */
  coordinatorUrl(): Promise<string | undefined>;
  /**
   * The App's bot login (`<slug>[bot]`, from `GET /app`, asked once): the author of every PR the
   * publish job opens. Throws while GitHub does not answer, so the delivery is handled again.
   */
  appLogin(): Promise<string>;
  /** COORDINATOR_MAX_PARALLEL; Infinity when unset. */
  readonly maxParallel: number;
  now(): Date;
  /** Caches and in-process turns (engine/memory.ts); state that must survive lives in Postgres. */
  readonly memory: EngineMemory;
  /** Ask for the run's status comment to be rewritten; writes are coalesced. */
  requestStatus(runId: number): void;
  /** Where decision passes are timed (absent in tests that build an engine by hand). */
  readonly metrics?: Pick<Metrics, 'decisionSeconds'>;
  /** The installation write budget, when there is one: the status comment says how long writes wait. */
  readonly writeBudget?: Pick<WriteBudget, 'nextWriteInSeconds'>;
}

/** Time one decision pass, failed ones included, for the decision latency histogram. */
export async function timeDecision<T>(
  engine: Engine,
  decision: Decision,
  pass: () => Promise<T>,
): Promise<T> {
  const done = engine.metrics?.decisionSeconds.startTimer({ decision });
  try {
    return await pass();
  } finally {
    done?.();
  }
}

/** Everything one step of work on a run needs, loaded once. */
export interface RunScope {
  run: RunRow;
  config: RepoConfig;
  repo: RepoCoords;
  repositoryId: number;
  installationId: number;
  /** The repository's row as read with the run (its dispatch limit, for one). */
  repository: RepositoryRow;
  port: GitHubPort;
}

/**
 * The branch a run merges into (docs/lifecycle.md, "Which base counts"). A run recorded before
 * its base was (start-run.ts) merges into the repository's default branch: every decision asks
 * here, so such a run is judged one way.
 */
export async function runBaseOf(
  run: Pick<RunRow, 'baseBranch'>,
  port: GitHubPort,
  repo: RepoCoords,
): Promise<string> {
  return run.baseBranch ?? (await port.defaultBranch(repo));
}

export async function loadRunScope(
  engine: Engine,
  run: RunRow,
  port?: GitHubPort,
  /** Already read with the run (runWithRepository): no second read. */
  known?: RepositoryRow,
): Promise<RunScope> {
  const repository = known ?? (await engine.store.runs.repositoryOf(run));
  return {
    run,
    config: run.config as RepoConfig,
    repo: { owner: repository.owner, repo: repository.name },
    repositoryId: repository.id,
    installationId: repository.installationId,
    repository,
    port: port ?? (await engine.portFor(repository.installationId)),
  };
}
