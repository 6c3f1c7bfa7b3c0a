import { z } from 'zod';

/** Same rule as plan task ids (SPEC §3); `plan` also matches. Keeps branch names and git argv sane. */
const TASK_ID = /^[a-z0-9][a-z0-9_-]{0,39}$/;

/**
 * A branch name we are willing to hand to git: no leading dash (would read as an option),
 * nothing `git check-ref-format` rejects outright. Stricter than git, on purpose.
 */
const BRANCH =
  /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)(?!.*\.lock$)(?!.*\/$)(?!.*\.$)[A-Za-z0-9._/-]{1,200}$/;

// GitHub sends an input the coordinator left out as an empty string: treat it as unset.
const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess(blankToUndefined, schema.optional());

// zod's own wording for a missing variable ("expected string, received undefined") helps nobody.
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

const text = z.preprocess((v) => (v === undefined ? '' : v), z.string());

const schema = z.object({
  AC_TASK_ID: requiredText().regex(TASK_ID, 'expected a task id such as task_001, or plan'),
  AC_ISSUE: wholeNumber(1, Number.MAX_SAFE_INTEGER),
  AC_ATTEMPT: wholeNumber(1, 1000),
  AC_MODE: z.enum(['plan', 'work', 'fix'], {
    error: (issue) => (issue.input === undefined ? 'required' : 'expected plan, work or fix'),
  }),
  AC_TITLE: text,
  AC_PROMPT: text,
  AC_FEEDBACK: text,
  AC_BASE: optional(z.string().regex(BRANCH, 'expected a branch name')),
  // Fractions are accepted so tests (and impatient people) can use sub-minute limits.
  AC_TIMEOUT_MINUTES: optional(
    z
      .string()
      .trim()
      .regex(/^\d+(\.\d+)?$/, 'expected a number of minutes')
      .transform(Number)
      .pipe(z.number().positive('expected more than 0 minutes').max(10_000)),
  ),
  AC_MODEL: optional(z.string().regex(/^[\w.:@/-]{1,100}$/, 'expected a model name')),
  AC_MAX_TURNS: optional(wholeNumber(1, 10_000)),
  AC_MAX_TASKS: optional(wholeNumber(1, 5000)),
  GITHUB_REPOSITORY: requiredText().regex(/^[\w.-]+\/[\w.-]+$/, 'expected owner/repo'),
  GITHUB_RUN_ID: requiredText().regex(/^\d+$/, 'expected the numeric workflow run id'),
  GITHUB_SERVER_URL: optional(z.url()),
  GITHUB_API_URL: optional(z.url()),
  GH_TOKEN: optional(z.string()),
  GITHUB_TOKEN: optional(z.string()),
  AGENT_COMMAND: optional(z.string()),
});

export type WorkerMode = 'plan' | 'work' | 'fix';

export interface WorkerEnv {
  taskId: string;
  issue: number;
  attempt: number;
  mode: WorkerMode;
  title: string;
  prompt: string;
  feedback: string;
  /** Unset: the repository's default branch. */
  base?: string;
  timeoutMinutes: number;
  model?: string;
  maxTurns?: number;
  maxTasks: number;
  owner: string;
  repo: string;
  runId: string;
  serverUrl: string;
  apiUrl: string;
  token: string;
  agentCommand?: string;
  /** `agent/<issue>/<task_id>`: the only branch this worker ever pushes. */
  branch: string;
}

export const DEFAULT_TIMEOUT_MINUTES = 30;
export const DEFAULT_MAX_TASKS = 50;

export class WorkerEnvError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid worker environment:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/** Parse the job's environment; every problem names its variable (values are not echoed: some are secrets). */
export function readWorkerEnv(env: NodeJS.ProcessEnv): WorkerEnv {
  const parsed = schema.safeParse(env);
  const token = env.GH_TOKEN?.trim() || env.GITHUB_TOKEN?.trim();
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${issue.path.join('.') || 'env'}: ${issue.message}`);
  if (!token) problems.push('GH_TOKEN: required (the App installation token)');
  if (!parsed.success || !token) throw new WorkerEnvError(problems);

  const e = parsed.data;
  const [owner, repo] = e.GITHUB_REPOSITORY.split('/') as [string, string];
  return {
    taskId: e.AC_TASK_ID,
    issue: e.AC_ISSUE,
    attempt: e.AC_ATTEMPT,
    mode: e.AC_MODE,
    title: e.AC_TITLE,
    prompt: e.AC_PROMPT,
    feedback: e.AC_FEEDBACK,
    base: e.AC_BASE,
    timeoutMinutes: e.AC_TIMEOUT_MINUTES ?? DEFAULT_TIMEOUT_MINUTES,
    model: e.AC_MODEL,
    maxTurns: e.AC_MAX_TURNS,
    maxTasks: e.AC_MAX_TASKS ?? DEFAULT_MAX_TASKS,
    owner,
    repo,
    runId: e.GITHUB_RUN_ID,
    serverUrl: (e.GITHUB_SERVER_URL ?? 'https://github.com').replace(/\/+$/, ''),
    apiUrl: (e.GITHUB_API_URL ?? 'https://api.github.com').replace(/\/+$/, ''),
    token,
    agentCommand: e.AGENT_COMMAND,
    branch: `agent/${e.AC_ISSUE}/${e.AC_TASK_ID}`,
  };
}
