import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runAgentStep } from './agent-step.js';
import { fenced } from './fence.js';
import {
  AssignmentError,
  httpCoordinator,
  WorkerCredentials,
  type Coordinator,
} from './coordinator.js';
import {
  readActionContext,
  workerEnvFrom,
  WorkerEnvError,
  type ActionContext,
  type WorkerEnv,
} from './env.js';
import { Git, GitError } from './git.js';
import { createWorkerGitHub, type WorkerGitHub } from './github.js';
import {
  readAssignment,
  readResult,
  withoutToken,
  writeAssignment,
  writeResult,
} from './handoff.js';
import { processIo, type WorkerIo } from './io.js';
import { outcomeLines, prefixedLines, WorkerFailure, type WorkerOutcome } from './outcome.js';
import { systemClock, type WorkerClock } from './clock.js';
import { runPublishStep } from './publish-step.js';
import {
  reportedUsage,
  type AssignmentRequest,
  type AssignmentResponse,
} from '../protocol/assignment.js';
import { boundedUsage } from '../protocol/markers.js';
import { sayUsage, type AgentContext } from './steps.js';
import type { SignalSource } from './cancellation.js';

export interface RunWorkerOptions {
  /** The action's environment: INPUT_*, GITHUB_*, RUNNER_TEMP, ACTIONS_ID_TOKEN_REQUEST_*. */
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
  /** Where the runner's signals arrive (a cancelled run): the process unless a test emits them. */
  signals?: SignalSource;
}

export interface WorkerResult {
  exitCode: number;
  outcome: WorkerOutcome;
}

/**
 * Where the jobs hand each other their artifacts: the workflow's upload and download steps
 * name the same folders (templates/agent-worker.yml).
 */
export function handoffDirs(env: NodeJS.ProcessEnv): { assignment: string; result: string } {
  const root = join(env.RUNNER_TEMP || '/tmp', 'agent-coordinator');
  return { assignment: join(root, 'assignment'), result: join(root, 'result') };
}

/** One step of the worker action (its `step` input), start to finish. Never throws. */
export async function runWorker(options: RunWorkerOptions): Promise<WorkerResult> {
  const io = options.io ?? processIo;
  const outcome = await runStep(options, io);
  for (const line of outcomeLines(outcome)) io.out(`${line}\n`);
  await writeStepSummary(options.env, outcome);
  const exitCode = outcome.ok ? 0 : outcome.reason === 'bad_input' ? 2 : 1;
  return { exitCode, outcome };
}

async function runStep(options: RunWorkerOptions, io: WorkerIo): Promise<WorkerOutcome> {
  const startedAt = (options.clock ?? systemClock).now();
  try {
    const action = readActionContext(options.env);
    const dirs = handoffDirs(options.env);
    const coordinator = (request: AssignmentRequest = action.request) =>
      options.coordinator ??
      httpCoordinator({
        env: options.env,
        coordinatorUrl: action.coordinatorUrl,
        request,
        io,
        retryDelaysMs: options.retryDelaysMs,
      });
    switch (action.step) {
      case 'assignment': {
        const assignment = await coordinator().requestAssignment();
        const env = workerEnvFrom(action, assignment);
        await writeAssignment(dirs.assignment, withoutToken(assignment));
        announce(io, action, env);
        return {
          ok: true,
          summary: `assignment of ${env.mode} ${env.taskId} handed to the agent job`,
        };
      }
      case 'agent': {
        const env = workerEnvFrom(action, await readAssignment(dirs.assignment));
        announce(io, action, env);
        const ctx: AgentContext = {
          env,
          rawEnv: options.env,
          cwd: options.cwd,
          io,
          git: new Git({ cwd: options.cwd, env: options.env }),
          graceMs: options.graceMs,
          clock: options.clock ?? systemClock,
          startedAt,
          saidUsage: false,
          signals: options.signals ?? process,
        };
        const { result, patch } = await runAgentStep(ctx);
        // No agent ran (a fix whose merge needed none): it spent nothing, and the job says so.
        if (!ctx.saidUsage) sayUsage(ctx, undefined);
        await writeResult(dirs.result, result, patch);
        return {
          ok: true,
          summary: `the agent ${result.stopped ? 'was stopped at its deadline' : 'finished'}; its result goes to the publish job`,
        };
      }
      case 'publish': {
        const { result, patch } = await readResult(dirs.result);
        // What the agent spent, said to the coordinator with the request for the token: it
        // charges the attempt that, whatever the PR's marker comes to say (docs/worker.md,
        // "What the agent spent"). Only a job with the OIDC token can say it.
        const usage = result.usage ? reportedUsage(boundedUsage(result.usage)) : undefined;
        let source = coordinator({ ...action.request, ...(usage && { usage }) });
        let assignment: AssignmentResponse;
        try {
          assignment = await source.requestAssignment();
        } catch (error) {
          // A coordinator from before the field refuses the body: asked without it, it goes by
          // the PR's usage marker, as it did.
          if (!usage || !(error instanceof AssignmentError) || error.status !== 400) throw error;
          io.out(
            'agent-coordinator: the coordinator does not take the usage with the request (an older release): asking without it\n',
          );
          source = coordinator(action.request);
          assignment = await source.requestAssignment();
        }
        const env = workerEnvFrom(action, assignment);
        announce(io, action, env);
        const credentials = new WorkerCredentials(source, assignment);
        const token = () => credentials.token;
        return await runPublishStep(
          {
            env,
            cwd: options.cwd,
            io,
            git: new Git({ cwd: options.cwd, env: options.env, token, serverUrl: env.serverUrl }),
            github: options.github ?? createWorkerGitHub(env, token),
            credentials,
          },
          result,
          patch,
        );
      }
    }
  } catch (error) {
    return classify(error, io);
  }
}

function announce(io: WorkerIo, action: ActionContext, env: WorkerEnv): void {
  io.out(
    `agent-coordinator: ${action.step} step of ${env.mode} ${env.owner}/${env.repo}#${env.issue} ${env.taskId} attempt ${env.attempt}\n`,
  );
}

// The one place where errors become reasons.
function classify(error: unknown, io: WorkerIo): WorkerOutcome {
  if (error instanceof WorkerEnvError)
    return { ok: false, reason: 'bad_input', detail: error.message };
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
  // A bug's message may quote what the agent wrote: its lines are the worker's, inert.
  for (const line of prefixedLines((error as Error)?.stack ?? String(error))) io.err(`${line}\n`);
  return { ok: false, reason: 'worker_error', detail: (error as Error)?.message ?? String(error) };
}

/**
 * The run page renders the step summary as markdown. A failure's detail may quote the agent (its
 * errors, a forged result's fields, git's words about its patch): in a code block, an image in it
 * loads nothing and a link leads nowhere.
 */
async function writeStepSummary(env: NodeJS.ProcessEnv, outcome: WorkerOutcome): Promise<void> {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return;
  const text = outcome.ok
    ? `### agent-coordinator: done\n\n${outcome.summary}\n`
    : `### agent-coordinator: ${outcome.reason}\n\n${fenced('text', outcome.detail)}\n`;
  await appendFile(file, text).catch(() => {});
}
