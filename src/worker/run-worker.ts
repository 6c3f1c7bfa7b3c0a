import { appendFile } from 'node:fs/promises';
import {
  AssignmentError,
  httpCoordinator,
  WorkerCredentials,
  type Coordinator,
} from './coordinator.js';
import { readActionContext, workerEnvFrom, WorkerEnvError, type WorkerEnv } from './env.js';
import { Git, GitError } from './git.js';
import { createWorkerGitHub, type WorkerGitHub } from './github.js';
import { processIo, type WorkerIo } from './io.js';
import { outcomeLines, WorkerFailure, type WorkerOutcome } from './outcome.js';
import { systemClock, type WorkerClock } from './clock.js';
import { runFixMode } from './fix-mode.js';
import { runPlanMode } from './plan-mode.js';
import { runWorkMode } from './work-mode.js';
import type { ModeContext } from './steps.js';

export interface RunWorkerOptions {
  /** The action's environment: INPUT_*, GITHUB_*, ACTIONS_ID_TOKEN_REQUEST_*. */
  env: NodeJS.ProcessEnv;
  /** The checkout (GITHUB_WORKSPACE in a job). */
  cwd: string;
  io?: WorkerIo;
  /** Replace the Octokit adapter (tests use nock against the real one instead). */
  github?: WorkerGitHub;
  /** Replace the coordinator over HTTP (mode tests hand out assignments in memory). */
  coordinator?: Coordinator;
  /** Waits between tries of an OIDC or assignment request that failed on the way. */
  retryDelaysMs?: number[];
  graceMs?: number;
  /** The worker's time (tests fire the agent's deadline themselves). */
  clock?: WorkerClock;
}

export interface WorkerResult {
  exitCode: number;
  outcome: WorkerOutcome;
}

/** The worker action: one task attempt, start to finish. Never throws. */
export async function runWorker(options: RunWorkerOptions): Promise<WorkerResult> {
  const io = options.io ?? processIo;
  const outcome = await attempt(options, io);
  for (const line of outcomeLines(outcome)) io.out(`${line}\n`);
  await writeStepSummary(options.env, outcome);
  const exitCode = outcome.ok ? 0 : outcome.reason === 'bad_input' ? 2 : 1;
  return { exitCode, outcome };
}

async function attempt(options: RunWorkerOptions, io: WorkerIo): Promise<WorkerOutcome> {
  const clock = options.clock ?? systemClock;
  const startedAt = clock.now();
  let env: WorkerEnv;
  let credentials: WorkerCredentials;
  try {
    const action = readActionContext(options.env);
    const coordinator =
      options.coordinator ??
      httpCoordinator({
        env: options.env,
        coordinatorUrl: action.coordinatorUrl,
        request: action.request,
        io,
        retryDelaysMs: options.retryDelaysMs,
      });
    const assignment = await coordinator.requestAssignment();
    env = workerEnvFrom(action, assignment);
    credentials = new WorkerCredentials(coordinator, assignment);
  } catch (error) {
    if (error instanceof WorkerEnvError)
      return { ok: false, reason: 'bad_input', detail: error.message };
    if (error instanceof AssignmentError)
      return { ok: false, reason: 'assignment_failed', detail: error.message };
    throw error;
  }
  const token = () => credentials.token;
  const ctx: ModeContext = {
    env,
    rawEnv: options.env,
    cwd: options.cwd,
    io,
    git: new Git({ cwd: options.cwd, env: options.env, token, serverUrl: env.serverUrl }),
    github: options.github ?? createWorkerGitHub(env, token),
    credentials,
    graceMs: options.graceMs,
    clock,
    startedAt,
  };
  io.out(
    `agent-coordinator: ${env.mode} ${env.owner}/${env.repo}#${env.issue} ${env.taskId} attempt ${env.attempt}\n`,
  );
  try {
    switch (env.mode) {
      case 'work':
        return await runWorkMode(ctx);
      case 'fix':
        return await runFixMode(ctx);
      case 'plan':
        return await runPlanMode(ctx);
    }
  } catch (error) {
    return classify(error, io);
  }
}

// The one place where errors become reasons.
function classify(error: unknown, io: WorkerIo): WorkerOutcome {
  if (error instanceof WorkerFailure)
    return { ok: false, reason: error.reason, detail: error.message };
  if (error instanceof GitError) return { ok: false, reason: 'git_failed', detail: error.message };
  if (error instanceof AssignmentError)
    return { ok: false, reason: 'assignment_failed', detail: error.message };
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number') {
    return {
      ok: false,
      reason: 'api_failed',
      detail: `GitHub answered ${status}: ${(error as Error).message}`,
    };
  }
  io.err(`${(error as Error)?.stack ?? String(error)}\n`);
  return { ok: false, reason: 'worker_error', detail: (error as Error)?.message ?? String(error) };
}

async function writeStepSummary(env: NodeJS.ProcessEnv, outcome: WorkerOutcome): Promise<void> {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return;
  const text = outcome.ok
    ? `### agent-coordinator: done\n\n${outcome.summary}\n`
    : `### agent-coordinator: ${outcome.reason}\n\n${outcome.detail.replace(/</g, '&lt;')}\n`;
  await appendFile(file, text).catch(() => {});
}
