import { z } from 'zod';
import {
  DISPATCH_INPUT_NAMES,
  WORKER_MODES,
  type AssignmentRequest,
  type WorkerMode,
} from '../protocol/assignment.js';
import { taskBranch } from '../protocol/branch.js';
import type { AssignmentFields } from './handoff.js';
import { MAX_ATTEMPT, MAX_ISSUE_NUMBER, TASK_KEY } from '../protocol/identifiers.js';
import { allowListSchema } from '../protocol/network.js';
import {
  checksFeedbackSchema,
  reviewFeedbackSchema,
  type CheckFeedback,
  type ReviewFeedback,
} from '../protocol/review-feedback.js';

export type { WorkerMode } from '../protocol/assignment.js';

/**
 * A branch name we are willing to hand to git: no leading dash (would read as an option),
 * nothing `git check-ref-format` rejects outright. Stricter than git, on purpose.
 */
const BRANCH =
  /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)(?!.*\.lock$)(?!.*\/$)(?!.*\.$)[A-Za-z0-9._/-]{1,200}$/;

/**
 * The variable GitHub sets for an action input, as @actions/core's getInput reads it: the
 * name upper-cased with spaces as `_`; hyphens stay (`agent-command` → `INPUT_AGENT-COMMAND`).
 */
export function inputVariable(name: string): string {
  return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
}

// GitHub sends an input or field left out as an empty string (or null): treat it as unset.
const blankToUndefined = (v: unknown) =>
  v === null || (typeof v === 'string' && v.trim() === '') ? undefined : v;

const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess(blankToUndefined, schema.optional());

// zod's own wording for a missing value ("expected string, received undefined") helps nobody.
const requiredText = () =>
  z.string({ error: (issue) => (issue.input === undefined ? 'required' : 'expected text') });

const wholeNumber = (min: number, max: number) =>
  requiredText()
    .trim()
    .regex(/^\d+$/, `expected a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(
      z.number().int().min(min, `expected at least ${min}`).max(max, `expected at most ${max}`),
    );

/** Which of the worker's three jobs this step is (docs/worker.md, "Three jobs"). */
export const WORKER_STEPS = ['assignment', 'agent', 'publish'] as const;
export type WorkerStep = (typeof WORKER_STEPS)[number];

const step = z.enum(WORKER_STEPS, {
  error: (issue) =>
    issue.input === undefined ? 'required' : 'expected assignment, agent or publish',
});

const mode = z.enum(WORKER_MODES, {
  error: (issue) => (issue.input === undefined ? 'required' : 'expected plan, work or fix'),
});

// Keys spelled out (they are inputVariable(name) of each input) so the parsed type has them.
const actionSchema = z.object({
  INPUT_TASK_ID: requiredText()
    .trim()
    .regex(TASK_KEY, 'expected a task id such as task_001, or plan'),
  INPUT_ISSUE: wholeNumber(1, MAX_ISSUE_NUMBER),
  INPUT_ATTEMPT: wholeNumber(1, MAX_ATTEMPT),
  INPUT_MODE: z.preprocess((v) => (typeof v === 'string' ? v.trim() : v), mode),
  INPUT_STEP: z.preprocess((v) => (typeof v === 'string' ? v.trim() : v), step),
  INPUT_COORDINATOR_URL: requiredText()
    .trim()
    .pipe(z.url({ protocol: /^https?$/, error: 'expected the http(s) URL of the coordinator' })),
  'INPUT_AGENT-COMMAND': optional(z.string()),
  GITHUB_REPOSITORY: requiredText().regex(/^[\w.-]+\/[\w.-]+$/, 'expected owner/repo'),
  GITHUB_RUN_ID: requiredText().regex(/^\d+$/, 'expected the numeric workflow run id'),
  GITHUB_SERVER_URL: optional(z.url()),
  GITHUB_API_URL: optional(z.url()),
  AGENT_COMMAND: optional(z.string()),
});

/** What the job itself knows before it has asked the coordinator anything. */
export interface ActionContext {
  step: WorkerStep;
  taskId: string;
  issue: number;
  attempt: number;
  mode: WorkerMode;
  coordinatorUrl: string;
  agentCommand?: string;
  owner: string;
  repo: string;
  runId: string;
  serverUrl: string;
  apiUrl: string;
  /** The body of the assignment request: the inputs exactly as dispatched. */
  request: AssignmentRequest;
}

export interface WorkerEnv extends Omit<ActionContext, 'step' | 'coordinatorUrl' | 'request'> {
  title: string;
  prompt: string;
  feedback: string;
  /** Unset: the repository's default branch. */
  base?: string;
  /**
   * The run's base when `base` is a stack parent's branch (docs/stacking.md): what the PR
   * targets when that branch is gone by the time the publish job runs.
   */
  runBase?: string;
  /**
   * The stack parent's PR the attempt was dispatched on (docs/stacking.md): a start from its
   * commits is one this attempt may build on, even once a squash or rebase merge left them off
   * the base.
   */
  stackParentPr?: number;
  /** The author of the App's own PRs, when the coordinator says: the only one the task's PR has. */
  appLogin?: string;
  timeoutMinutes: number;
  model?: string;
  maxTurns?: number;
  maxTasks: number;
  /** When the coordinator cancels the run (ms since the epoch), if it said. */
  deadlineAt?: number;
  /**
   * The hosts the agent may reach through the worker's proxy, `["*"]` for the open network
   * (docs/worker.md, "The agent's network"); unset when the coordinator is from before the key,
   * whose agents keep the open network they had.
   */
  networkAllow?: string[];
  /** The review a fix answers (docs/worker.md, "Review feedback"). */
  review?: ReviewFeedback;
  /** The failing checks a fix repairs; empty when none. */
  checks: CheckFeedback[];
  /** `agent/<issue>/<task_id>`: the only branch this worker ever pushes. */
  branch: string;
}

export const DEFAULT_TIMEOUT_MINUTES = 30;
/** `plan.maxTasks` by default, for a coordinator that does not send `max_tasks`. */
export const DEFAULT_MAX_TASKS = 50;

export class WorkerEnvError extends Error {
  constructor(
    readonly problems: string[],
    what = 'invalid worker inputs',
  ) {
    super(`${what}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

function problemsOf(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`);
}

/**
 * The action's inputs and the job's GitHub variables; every problem names its variable
 * (values are not echoed: they come from whoever dispatched the run).
 */
export function readActionContext(env: NodeJS.ProcessEnv): ActionContext {
  const parsed = actionSchema.safeParse(env);
  if (!parsed.success) throw new WorkerEnvError(problemsOf(parsed.error));
  const e = parsed.data;
  const [owner, repo] = e.GITHUB_REPOSITORY.split('/') as [string, string];
  const taskId = e.INPUT_TASK_ID;
  const issue = e.INPUT_ISSUE;
  const attempt = e.INPUT_ATTEMPT;
  return {
    step: e.INPUT_STEP,
    taskId,
    issue,
    attempt,
    mode: e.INPUT_MODE,
    coordinatorUrl: e.INPUT_COORDINATOR_URL.replace(/\/+$/, ''),
    agentCommand: e['INPUT_AGENT-COMMAND'] ?? e.AGENT_COMMAND,
    owner,
    repo,
    runId: e.GITHUB_RUN_ID,
    serverUrl: (e.GITHUB_SERVER_URL ?? 'https://github.com').replace(/\/+$/, ''),
    apiUrl: (e.GITHUB_API_URL ?? 'https://api.github.com').replace(/\/+$/, ''),
    request: { task_id: taskId, issue: String(issue), attempt: String(attempt) },
  };
}

// The coordinator sends every number as a string, and null for what it leaves unset.
const assignmentSchema = z.object({
  title: z.string().nullable(),
  prompt: z.string().nullable(),
  feedback: z.string().nullable(),
  base: optional(z.string().regex(BRANCH, 'expected a branch name')),
  run_base: optional(z.string().regex(BRANCH, 'expected a branch name')),
  stack_parent_pr: optional(wholeNumber(1, MAX_ISSUE_NUMBER)),
  // A GitHub App's bot login: its slug (letters, digits, hyphens) and `[bot]`.
  app_login: optional(
    z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,99}\[bot\]$/, "expected an App's bot login"),
  ),
  // Fractions are accepted so tests (and impatient people) can use sub-minute limits.
  timeout_minutes: optional(
    z
      .string()
      .trim()
      .regex(/^\d+(\.\d+)?$/, 'expected a number of minutes')
      .transform(Number)
      .pipe(z.number().positive('expected more than 0 minutes').max(10_000)),
  ),
  model: optional(z.string().regex(/^[\w.:@/-]{1,100}$/, 'expected a model name')),
  max_turns: optional(wholeNumber(1, 10_000)),
  max_tasks: optional(wholeNumber(1, 5000)),
  deadline_at: optional(
    z.iso.datetime({ offset: true, error: 'expected an ISO 8601 time' }).transform(Date.parse),
  ),
  network: z.object({ allow: allowListSchema }).optional(),
  review: reviewFeedbackSchema.nullable().optional(),
  checks: checksFeedbackSchema.nullable().optional(),
});

/** The task as the coordinator assigned it, checked as strictly as any other untrusted input. */
export function workerEnvFrom(action: ActionContext, assignment: AssignmentFields): WorkerEnv {
  const problems: string[] = [];
  // The coordinator answers for the run it dispatched: a different task means a bug there.
  for (const name of ['task_id', 'issue', 'attempt'] as const) {
    if (assignment[name] !== action.request[name])
      problems.push(`${name}: the coordinator assigned another ${name} than the run's input`);
  }
  if (assignment.mode !== action.mode)
    problems.push(
      `mode: the coordinator assigned ${assignment.mode}, the run's input says ${action.mode}`,
    );
  const parsed = assignmentSchema.safeParse(assignment);
  if (!parsed.success) problems.push(...problemsOf(parsed.error));
  if (!parsed.success || problems.length > 0)
    throw new WorkerEnvError(problems, 'invalid assignment from the coordinator');

  const a = parsed.data;
  const { step: _step, coordinatorUrl: _url, request: _request, ...job } = action;
  return {
    ...job,
    title: a.title ?? '',
    prompt: a.prompt ?? '',
    feedback: a.feedback ?? '',
    base: a.base,
    runBase: a.run_base,
    stackParentPr: a.stack_parent_pr,
    appLogin: a.app_login,
    timeoutMinutes: a.timeout_minutes ?? DEFAULT_TIMEOUT_MINUTES,
    model: a.model,
    maxTurns: a.max_turns,
    maxTasks: a.max_tasks ?? DEFAULT_MAX_TASKS,
    deadlineAt: a.deadline_at,
    networkAllow: a.network?.allow,
    review: a.review ?? undefined,
    checks: a.checks ?? [],
    branch: taskBranch(action.issue, action.taskId),
  };
}

/** Every input the action declares: the step, the dispatch inputs, the optional agent command. */
export const ACTION_INPUT_NAMES = ['step', ...DISPATCH_INPUT_NAMES, 'agent-command'] as const;
