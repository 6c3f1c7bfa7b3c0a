import { inertPlainText } from '../core/inert-markdown.js';
import { agentLaunch, runAgent, type AgentExit, type AgentLaunch } from './agent.js';
import { parseAgentOutput, type AgentReport } from './agent-output.js';
import { attemptUsage } from './api-usage.js';
import { usageFigures, type Usage } from '../protocol/markers.js';
import type { WorkerEnv } from './env.js';
import { GitError, type Git } from './git.js';
import type { WorkerGitHub } from './github.js';
import type { WorkerIo } from './io.js';
import { escapeCommandData, fail, oneLine, type WorkerOutcome } from './outcome.js';
import { usageAnnotation } from '../protocol/usage-annotation.js';
import type { WorkerClock } from './clock.js';
import type { AgentUser } from './agent-user.js';
import type { ClosedNetwork } from './agent-network.js';
import { agentStopTime, stopGraceMs } from '../protocol/deadline.js';
import { listenForCancellation, type SignalSource } from './cancellation.js';

/** What each step of the worker works with. */
export interface StepContext {
  env: WorkerEnv;
  cwd: string;
  io: WorkerIo;
  /** git in the job's checkout; in the agent job, used only before the agent starts. */
  git: Git;
}

/** The agent job: no GitHub credential at all. */
export interface AgentContext extends StepContext {
  /** The job's environment, passed on (minus credentials) to the agent. */
  rawEnv: NodeJS.ProcessEnv;
  /** Between SIGTERM and SIGKILL when the agent times out. */
  graceMs?: number;
  clock: WorkerClock;
  /** When the worker started: the job's limit counts from here when the coordinator gives none. */
  startedAt: number;
  /** The user the agent runs as, when the runner allows one (src/worker/agent-user.ts). */
  user?: AgentUser;
  /** The agent's network while it is closed (src/worker/agent-network.ts). */
  network?: ClosedNetwork;
  /** Whether the job has said what the agent spent (sayUsage). */
  saidUsage: boolean;
  /** Where the runner's signals arrive when the run is cancelled: the process, in a job. */
  signals: SignalSource;
}

/** The publish job: the assignment's GitHub token, asked for again when it is about to run out. */
export interface PublishContext extends StepContext {
  github: WorkerGitHub;
  credentials: { readonly token: string; ensureFresh(): Promise<boolean> };
}

export function log(ctx: Pick<StepContext, 'io'>, line: string): void {
  ctx.io.out(`agent-coordinator: ${oneLine(line)}\n`);
}

/**
 * The worker pushes to exactly one branch, named from the inputs. A run dispatched by hand
 * on another branch (say, main) must not let the agent's commits land there.
 */
export async function ensureOnTaskBranch(ctx: StepContext): Promise<void> {
  const current = await ctx.git.currentBranch();
  if (current !== ctx.env.branch) {
    fail(
      'bad_input',
      `expected branch ${ctx.env.branch} to be checked out, found ${current ?? 'a detached HEAD'}; dispatch the workflow on the task branch`,
    );
  }
}

export async function resolveBase(ctx: PublishContext): Promise<string> {
  return ctx.env.base ?? (await ctx.github.defaultBranch());
}

/** What the agent did, and whether the worker stopped it at its deadline. */
export interface AgentRun {
  report: AgentReport;
  /** Stopped a grace margin before the job's limit: what it left is kept as partial work. */
  stopped: boolean;
}

/**
 * When the agent must stop: a grace margin (src/protocol/deadline.ts) before the moment the
 * coordinator cancels the run, so the worker can still commit and push what the agent did.
 */
export function agentStopAt(ctx: Pick<AgentContext, 'env' | 'startedAt'>): number {
  const { env } = ctx;
  const deadline = env.deadlineAt ?? ctx.startedAt + env.timeoutMinutes * 60_000;
  return agentStopTime(deadline, env.timeoutMinutes);
}

export async function invokeAgent(ctx: AgentContext, prompt: string): Promise<AgentRun> {
  let launch: AgentLaunch;
  try {
    // Root matters only when the agent itself runs as root (no user of its own).
    launch = agentLaunch(ctx.env, ctx.user ? ctx.user.uid : process.getuid?.());
  } catch (error) {
    fail('bad_input', (error as Error).message);
  }
  const { argv } = launch;
  if (launch.note) log(ctx, launch.note);
  const stopAt = agentStopAt(ctx);
  // Past it, the attempt has ended: a person's re-run of its jobs runs this job again with the old
  // assignment (GitHub re-runs a failed job and those that need it), and what an agent spent
  // then is no attempt's to be charged.
  if (stopAt <= ctx.clock.now())
    fail(
      'timeout',
      `the moment to stop the agent (${new Date(stopAt).toISOString()}) has passed: the agent is not started`,
    );
  const graceMinutes = stopGraceMs(ctx.env.timeoutMinutes * 60_000) / 60_000;
  log(
    ctx,
    `running the agent: ${argv[0]} (timeout ${ctx.env.timeoutMinutes} min; stopped at ${new Date(stopAt).toISOString()}, ${Math.round(graceMinutes * 10) / 10} min before the job's limit)`,
  );
  // From here until it is said, the runner's signals (a cancelled run) stop the agent and have
  // what it spent said before the runner kills the job (docs/worker.md, "A cancelled run").
  const cancel = listenForCancellation(ctx.signals, ctx.clock);
  void cancel.requested.then(() =>
    log(ctx, 'the run is being cancelled: stopping the agent, then saying what it spent'),
  );
  let exit: Exclude<AgentExit, { kind: 'spawn_failed' }>;
  let report: AgentReport;
  try {
    const ran = await runAgent({
      argv,
      prompt,
      cwd: ctx.cwd,
      env: { ...ctx.rawEnv, ...launch.env },
      timeoutMs: stopAt - ctx.clock.now(),
      io: ctx.io,
      graceMs: ctx.graceMs,
      clock: ctx.clock,
      user: ctx.user,
      network: ctx.network,
      cancel,
      sayAtLast(measured) {
        log(ctx, 'the runner is about to kill the job: saying what the key proxy measured so far');
        sayUsage(ctx, measured);
      },
    });
    if (ran.kind === 'spawn_failed')
      fail('agent_failed', `could not start ${argv[0]}: ${ran.message}`);
    exit = ran;
    report = withMeasuredUsage(ctx, parseAgentOutput(exit.stdout), exit.measured);
    // Spent now, whatever comes of it: said before anything the agent left is read.
    sayUsage(ctx, report.usage);
  } finally {
    cancel.close();
  }
  // Cancelled after the agent ended (the proxy still reading) counts too: nothing more is done.
  if (exit.kind === 'cancelled' || cancel.cancelled)
    fail('run_cancelled', 'the run was cancelled while the agent ran: the agent was stopped');
  if (exit.kind === 'timeout') {
    log(ctx, 'stopped the agent at its deadline: keeping what it left in the working tree');
    return { report, stopped: true };
  }
  // Claude Code's error results (error_max_turns, error_during_execution…) carry their
  // reason in `errors`, not `result`.
  const reason = report.structured ? report.failure || report.result : '';
  if (exit.code !== 0) {
    const how =
      exit.code === null ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    fail('agent_failed', `the agent ${how}${reason ? `: ${reason.slice(0, 1000)}` : ''}`);
  }
  if (report.isError)
    fail(
      'agent_failed',
      `the agent reported an error: ${(reason || 'no reason given').slice(0, 1000)}`,
    );
  return { report, stopped: false };
}

/**
 * The attempt's usage: what the agent reported, raised to what the worker's API-key proxy
 * measured (docs/worker.md, "What the agent spent"). The log says which figures are measured.
 */
function withMeasuredUsage(
  ctx: Pick<StepContext, 'io'>,
  report: AgentReport,
  measured: Usage | undefined,
): AgentReport {
  const { usage, measured: taken } = attemptUsage(report.usage, measured);
  if (usage) {
    const figures = usageFigures(usage);
    const names = taken.map((k) => USAGE_NAMES[k]);
    const how = !measured
      ? 'as the agent reported it'
      : names.length === 3
        ? "measured by the worker's API proxy"
        : names.length > 0
          ? `${names.join(', ')} measured by the worker's API proxy, the rest as the agent reported it`
          : "as the agent reported it, above what the worker's API proxy measured";
    log(ctx, `agent usage: ${figures} (${how})`);
  }
  return { ...report, usage };
}

/**
 * Says what the agent spent, as a `::notice::` GitHub makes an annotation of the agent job's
 * check run (src/protocol/usage-annotation.ts): the coordinator charges every attempt, and each
 * planner, what that annotation says (docs/worker.md, "What the agent spent"). Said as soon as
 * the agent has ended, before the worker reads what it left (FIFOs, a tree too large for a
 * string, a result the publish job refuses): a job that fails, or dies, after this line has
 * still said it. `undefined`: nothing, for a job whose agent did not run.
 */
export function sayUsage(ctx: Pick<AgentContext, 'io' | 'saidUsage'>, usage: Usage | undefined) {
  const spent = usage ?? { costUsd: 0, inputTokens: 0, outputTokens: 0 };
  ctx.io.out(`::notice::${escapeCommandData(usageAnnotation(spent))}\n`);
  ctx.saidUsage = true;
}

const USAGE_NAMES: Record<keyof Usage, string> = {
  costUsd: 'cost_usd',
  inputTokens: 'input_tokens',
  outputTokens: 'output_tokens',
};

/** The agent was stopped and left nothing worth keeping. */
export function failStoppedEmpty(ctx: Pick<StepContext, 'env'>, why: string): never {
  fail(
    'timeout',
    `the agent was stopped at its deadline (${ctx.env.timeoutMinutes}-minute timeout) and ${why}`,
  );
}

/**
 * How the commit of a stopped agent's work starts. Said first, so a long title cannot cut it
 * off; the next fix attempt reads it to know it is finishing that work.
 */
export const PARTIAL_PREFIX = '[partial] ';

/**
 * The task's title as the commit subject and the PR title carry it: one line, and inert for
 * GitHub's references. The title is the issue's or the planner's, and a merge puts both on the
 * base (a squash commit takes the PR's title), where a closing keyword must close nothing.
 */
export function titleLine(title: string): string {
  return inertPlainText(title).replace(/\s+/g, ' ').trim();
}

export function commitSubject(env: Pick<WorkerEnv, 'taskId' | 'title'>, partial = false): string {
  const title = titleLine(env.title);
  const subject = `${env.taskId}: ${title || 'agent changes'}`.slice(0, 200);
  return partial ? `${PARTIAL_PREFIX}${subject}` : subject;
}

export function taskTrailer(env: Pick<WorkerEnv, 'issue' | 'taskId' | 'attempt'>): string {
  return `Agent-Coordinator-Task: ${env.issue}/${env.taskId}/${env.attempt}`;
}

export const WORKFLOWS_DIR = '.github/workflows/';

/**
 * Push `commit` to the task branch, and nothing else: no tags (`--no-follow-tags`), no other
 * ref. `lease` (an expected remote sha) allows a rewrite.
 */
export async function push(
  ctx: PublishContext,
  commit: string,
  opts: { lease?: string } = {},
): Promise<void> {
  if (await ctx.credentials.ensureFresh())
    log(ctx, 'the token was about to expire: asked the coordinator again');
  const ref = `refs/heads/${ctx.env.branch}`;
  const args = ['push', '--no-verify', '--no-follow-tags', '--quiet', 'origin', `${commit}:${ref}`];
  if (opts.lease !== undefined) args.splice(1, 0, `--force-with-lease=${ref}:${opts.lease}`);
  try {
    await ctx.git.run(args, { auth: true });
  } catch (error) {
    if (error instanceof GitError) fail('push_failed', error.message);
    throw error;
  }
}

/**
 * How an attempt that pushed ends: done, or — when the agent was stopped at its deadline —
 * `timed_out` with its work kept, so the coordinator records the attempt as timed out and
 * the next one builds on the pushed commits (docs/worker.md, "The time limit").
 */
export function pushedOutcome(
  ctx: Pick<StepContext, 'env'>,
  head: string,
  pr: { number: number; url: string; created: boolean },
  stopped: boolean,
  note = '',
): WorkerOutcome {
  const pushed = `pushed ${head.slice(0, 12)} to ${ctx.env.branch}; PR #${pr.number} ${pr.created ? 'opened' : 'updated'}`;
  if (stopped) {
    return {
      ok: false,
      reason: 'timed_out',
      detail: `the agent was stopped at its deadline (${ctx.env.timeoutMinutes}-minute timeout); its work is kept: ${pushed}, marked partial`,
      pullRequest: pr,
      commit: head,
    };
  }
  return { ok: true, summary: `${pushed}${note}`, commit: head, pullRequest: pr };
}
