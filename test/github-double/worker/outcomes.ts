import type { RunConclusion } from '../model.js';

export type WorkerOutcome =
  | {
      kind: 'pr';
      costUsd?: number;
      inputTokens?: number;
      outputTokens?: number;
      // The assignment's `base` (the real worker asks the coordinator for it): the branch a
      // `work` attempt starts from and a new PR targets. Default: the `base` input, else the
      // repository's default branch.
      base?: string;
      // Files the commit writes; default: one file per task, so tasks never conflict.
      files?: Record<string, string | null>;
      title?: string;
      // Agent configuration files the PR changes, as the publish job reports them in the body.
      agentConfigChanged?: string[];
      // Stopped at its deadline: the work is pushed and the PR opened or updated, then the run
      // fails with `agent-coordinator: timed_out (...)`, as the real worker ends (docs/worker.md).
      stoppedAtDeadline?: boolean;
    }
  | {
      kind: 'fail';
      conclusion?: Extract<RunConclusion, 'failure' | 'timed_out' | 'startup_failure'>;
      // The worker's last line, `::error::agent-coordinator: <reason> (<detail>)`, which
      // becomes an annotation of the job's check run.
      reason?: string;
      detail?: string;
      // What its agent job says the agent spent (its `::notice::`), before the failure.
      usage?: { costUsd: number; inputTokens: number; outputTokens: number };
    }
  | { kind: 'no_changes' }
  // Starts and never ends. `usage`: what its agent job says the agent spent before the job is
  // held (the real worker says it as soon as the agent ends: docs/worker.md).
  | { kind: 'hang'; usage?: { costUsd: number; inputTokens: number; outputTokens: number } }
  | { kind: 'plan'; tasksBlock: string }
  | { kind: 'manual' }
  // A real job: the runner starts it, `run` plays its steps, and its answer is the conclusion.
  | {
      kind: 'job';
      run: () => Promise<Extract<RunConclusion, 'success' | 'failure' | 'cancelled'>>;
    };

// What a policy sees of the dispatched run.
export interface WorkerRun {
  id: number;
  repo: string;
  workflow: string;
  branch: string;
  headSha: string;
  inputs: Readonly<Record<string, string>>;
  displayTitle: string;
}

export interface WorkerContext {
  // How many worker runs have been dispatched on this branch so far, this one included.
  dispatchesOnBranch: number;
}

export type WorkerPolicy = (
  run: WorkerRun,
  ctx: WorkerContext,
) => WorkerOutcome | Promise<WorkerOutcome>;

export const DEFAULT_PLAN = [
  '```tasks',
  '- id: task_001',
  '  title: Define the API',
  '  deps: []',
  '- id: task_002',
  '  title: Implement the API',
  '  deps: [task_001]',
  '```',
].join('\n');

// Plans with a fixed two-task plan; every work or fix attempt opens (or updates) its PR.
export const autoWorker: WorkerPolicy = (run) =>
  run.inputs['mode'] === 'plan'
    ? { kind: 'plan', tasksBlock: DEFAULT_PLAN }
    : { kind: 'pr', costUsd: 0.42, inputTokens: 12000, outputTokens: 3400 };

export const manualWorker: WorkerPolicy = () => ({ kind: 'manual' });
