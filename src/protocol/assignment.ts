import { z } from 'zod';
import { ATTEMPT_NUMBER, ISSUE_NUMBER, TASK_KEY } from './identifiers.js';
import { USAGE_CEILING, type Usage } from './markers.js';
import { allowListSchema } from './network.js';
import { checksFeedbackSchema, reviewFeedbackSchema } from './review-feedback.js';

/**
 * What the worker and the coordinator say to each other at the worker's start
 * (docs/worker.md, "Dispatch inputs" and "Assignment"). Both sides import this module, so a
 * field added on one side cannot be missed on the other.
 */

/** Where the coordinator answers workers. */
export const ASSIGNMENT_PATH = '/api/worker/assignment';

/** The workflow_dispatch inputs: identifiers only; everything else comes with the assignment. */
export const DISPATCH_INPUT_NAMES = [
  'task_id',
  'issue',
  'attempt',
  'mode',
  'coordinator_url',
] as const;
export type DispatchInputName = (typeof DISPATCH_INPUT_NAMES)[number];
export type DispatchInputs = Record<DispatchInputName, string>;

export const WORKER_MODES = ['plan', 'work', 'fix'] as const;
export type WorkerMode = (typeof WORKER_MODES)[number];

/** What one dispatch names: the task's attempt, how to work on it, and whom to ask. */
export interface DispatchIdentity {
  taskKey: string;
  issueNumber: number;
  attempt: number;
  mode: WorkerMode;
  /** The coordinator's public base URL: the worker's OIDC audience and where it asks. */
  coordinatorUrl: string;
}

/** The workflow_dispatch inputs. GitHub wants every value a string. */
export function buildDispatchInputs(identity: DispatchIdentity): DispatchInputs {
  return {
    task_id: identity.taskKey,
    issue: String(identity.issueNumber),
    attempt: String(identity.attempt),
    mode: identity.mode,
    coordinator_url: identity.coordinatorUrl,
  };
}

/**
 * What the publish job says the attempt's agent spent, as the agent job handed it on
 * (docs/worker.md, "What the agent spent"): the coordinator charges it from there, with no
 * read of GitHub's. Within USAGE_CEILING, as every usage figure is.
 */
export const reportedUsageSchema = z.strictObject({
  cost_usd: z.number().min(0).max(USAGE_CEILING.costUsd),
  input_tokens: z.number().int().min(0).max(USAGE_CEILING.tokens),
  output_tokens: z.number().int().min(0).max(USAGE_CEILING.tokens),
});

/** The body the worker posts, the same strings it was dispatched with; the publish job's, usage. */
export const assignmentRequestSchema = z.strictObject({
  task_id: z.string().regex(TASK_KEY),
  issue: z.string().regex(ISSUE_NUMBER),
  attempt: z.string().regex(ATTEMPT_NUMBER),
  usage: reportedUsageSchema.optional(),
});
export type AssignmentRequest = z.infer<typeof assignmentRequestSchema>;

const text = z.string().nullable();

/**
 * The coordinator's 200 answer. Every field is a string or null, as the docs promise, but for
 * the structured feedback (`review`, `checks`): JSON objects, bounded by FEEDBACK_LIMITS.
 */
export const assignmentResponseSchema = z.object({
  token: z.string().min(1),
  expires_at: z.string().min(1),
  task_id: z.string(),
  issue: z.string(),
  attempt: z.string(),
  mode: z.enum(WORKER_MODES),
  title: text,
  prompt: text,
  feedback: text,
  base: text,
  /**
   * The run's base branch, when `base` names a stack parent's branch instead (docs/stacking.md):
   * the branch the PR targets when the parent's branch is gone by the time it opens (the parent
   * merged and GitHub deleted its branch). Optional: a coordinator that leaves it out stacks
   * nothing, or gets a failed publish when the parent's branch is gone.
   */
  run_base: text.optional(),
  /**
   * The stack parent's PR (its number) the attempt was dispatched on, kept after the parent
   * merged (docs/stacking.md): the worker may have started from that PR's commits, which a
   * squash or rebase merge leaves off the base. Optional: without it, a start from the parent's
   * commits is accepted only while they are on `base`.
   */
  stack_parent_pr: text.optional(),
  /**
   * The login of the App's own PRs (`<slug>[bot]`): the only author whose open PR from the task
   * branch the worker takes for the task's (docs/worker.md, "Pull request markers"). Optional:
   * without it, any bot's PR from the branch.
   */
  app_login: text.optional(),
  model: text,
  max_turns: text,
  timeout_minutes: text,
  /**
   * The repository's `plan.maxTasks`, for a planner to check its plan against. Optional: a
   * coordinator that leaves it out gets plans checked against the default, 50.
   */
  max_tasks: text.optional(),
  /**
   * When the coordinator cancels this run (ISO 8601): its dispatch plus the timeout. The
   * worker stops the agent a grace margin before it (src/protocol/deadline.ts). A coordinator
   * that leaves it out gets the worker's own start plus `timeout_minutes`.
   */
  deadline_at: text.optional(),
  /**
   * What the agent may reach (`worker.network.allow`, docs/worker.md "The agent's network"): the
   * hosts its proxy lets it reach, `["*"]` for the open network. Optional: a coordinator from
   * before the key sends none, and its agents keep the open network they had.
   */
  network: z.object({ allow: allowListSchema }).optional(),
  /** The review a `fix` attempt answers: its body and unresolved threads. */
  review: reviewFeedbackSchema.nullable().optional(),
  /** The failing checks a `fix` attempt repairs, with their output, annotations and log tail. */
  checks: checksFeedbackSchema.nullable().optional(),
});
export type AssignmentResponse = z.infer<typeof assignmentResponseSchema>;

/** The permissions of the installation token handed to a worker, and nothing else. */
export const WORKER_TOKEN_PERMISSIONS = {
  contents: 'write',
  pull_requests: 'write',
  issues: 'write',
} as const;

/** A refusal: 401 (the token itself is bad) or 403 (a valid token for something else). */
export interface AssignmentRefusal {
  error: string;
}

/** Usage as the assignment request carries it. */
export function reportedUsage(u: Usage): z.infer<typeof reportedUsageSchema> {
  return { cost_usd: u.costUsd, input_tokens: u.inputTokens, output_tokens: u.outputTokens };
}

/** The usage a request reports, in the coordinator's terms. */
export function usageOfRequest(request: AssignmentRequest): Usage | undefined {
  const u = request.usage;
  return u && { costUsd: u.cost_usd, inputTokens: u.input_tokens, outputTokens: u.output_tokens };
}
