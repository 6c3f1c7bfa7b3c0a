import type { Context, ProbotOctokit } from 'probot';
import type { RepoConfig } from '../config/schema.js';
import type { TriggerLabelCache } from '../config/trigger-labels.js';
import type { Engine } from '../engine/context.js';
import type { GitHubPort } from '../github/port.js';
import type { Metrics } from '../metrics.js';
import type { Store } from '../store/index.js';

/**
 * What the webhook handlers are given. It lives with them, not in `app.ts`, which builds it:
 * the handlers then depend on this declaration only, and `app.ts` on the handlers, with no
 * import circle between the two (the dependency rules in `.dependency-cruiser.mjs`).
 */
export interface AppServices {
  store: Store;
  /** This App's id: tells its own comments from other bots' (see `findAppComment`). */
  appId?: number;
  metrics: Metrics;
  port: (octokit: InstanceType<typeof ProbotOctokit>) => GitHubPort;
  engine: Engine;
  /** Starts a run for a labelled issue (default: the engine's startRun). */
  onRunRequested: (request: {
    context: Context<'issues.labeled'>;
    config: RepoConfig;
    port: GitHubPort;
  }) => Promise<void>;
  triggerLabels: TriggerLabelCache;
}
