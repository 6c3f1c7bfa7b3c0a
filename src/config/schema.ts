import { z } from 'zod';
import { parseDuration } from '../core/duration.js';
import { MAX_TIMEOUT_MINUTES } from '../core/plan/types.js';
import { allowListSchema } from '../protocol/network.js';

export const CONFIG_PATH = '.github/agent-coordinator.yml';

const duration = z.string().refine((v) => parseDuration(v) !== undefined, {
  message: 'expected a duration such as 0s, 30s, 5m or 1h',
});

const label = z
  .string()
  .min(1)
  .max(50)
  .refine((v) => !/[,\n]/.test(v), { message: 'a label name cannot contain commas or newlines' });

const modelName = z.string().min(1).max(100);

export const repoConfigSchema = z
  .strictObject({
    label: label.default('agent'),
    plan: z
      .strictObject({
        requireApproval: z.boolean().default(false),
        maxTasks: z.number().int().min(1).max(5000).default(50),
      })
      .prefault({}),
    worker: z
      .strictObject({
        workflow: z
          .string()
          .regex(/^[\w.-]+\.ya?ml$/, 'expected a workflow file name such as agent-worker.yml')
          .default('agent-worker.yml'),
        timeoutMinutes: z
          .number()
          .int()
          .min(1)
          .max(
            MAX_TIMEOUT_MINUTES,
            `at most ${MAX_TIMEOUT_MINUTES} minutes: GitHub ends any job at 6 hours, setup included`,
          )
          .default(10),
        maxTurns: z.number().int().min(1).max(1000).default(50),
        models: z
          .record(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'expected a task type'), modelName)
          .default({ default: 'claude-sonnet-4-5' })
          .transform((m): Record<string, string> & { default: string } => ({
            default: 'claude-sonnet-4-5',
            ...m,
          })),
        network: z
          .strictObject({
            // The hosts the agent reaches through the worker's proxy; `[]`, only its model API
            // through the worker; `["*"]`, the open network (docs/worker.md, "The agent's network").
            allow: allowListSchema.default([]),
          })
          .prefault({}),
      })
      .prefault({}),
    concurrency: z
      .strictObject({
        maxParallel: z.number().int().min(1).max(1000).default(10),
      })
      .prefault({}),
    retries: z
      .strictObject({
        max: z.number().int().min(0).max(20).default(3),
        backoff: z.array(duration).min(1).max(20).default(['0s', '30s', '5m']),
      })
      .prefault({}),
    merge: z
      .strictObject({
        method: z.enum(['merge', 'squash', 'rebase']).default('squash'),
        requireApproval: z.boolean().default(true),
        useMergeQueue: z.enum(['auto', 'always', 'never']).default('auto'),
      })
      .prefault({}),
    budget: z
      .strictObject({
        maxCostUsdPerRun: z.number().positive().max(1_000_000).default(20),
      })
      .prefault({}),
    checks: z
      .strictObject({
        // Re-runs of a failing GitHub Actions check before the task goes back to its worker
        // (docs/configuration.md): a flaky check gets another chance without spending an attempt.
        rerunFailed: z.number().int().min(0).max(2).default(1),
      })
      .prefault({}),
    dispatch: z
      .strictObject({
        // Start a task early on top of its one unmerged dependency's open PR whose checks pass
        // (docs/stacking.md); off, a task waits until every dependency has merged.
        stack: z.boolean().default(false),
      })
      .prefault({}),
    closeIssueWhenDone: z.boolean().default(true),
  })
  .prefault({});

export type RepoConfig = z.output<typeof repoConfigSchema>;

export const DEFAULT_CONFIG: RepoConfig = repoConfigSchema.parse(undefined);

/**
 * The model a task of this type runs with (`worker.models`, SPEC §7). The type is the plan's
 * free word: only the config's own keys name a model, never what every object inherits
 * (`constructor`, `toString`), since the config is a plain object read from JSON.
 */
/**
 * The hosts the agent may reach (`worker.network.allow`). A run stored before the key existed has
 * none in its configuration: it gets the default, as a run started now would.
 */
export function networkAllowOf(worker: RepoConfig['worker']): string[] {
  const network = worker.network as RepoConfig['worker']['network'] | undefined;
  return network?.allow ?? DEFAULT_CONFIG.worker.network.allow;
}

export function modelForTaskType(worker: RepoConfig['worker'], type: string): string {
  return Object.hasOwn(worker.models, type) ? worker.models[type]! : worker.models.default;
}
