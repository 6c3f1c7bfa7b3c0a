import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Usage } from '../protocol/markers.js';
import type { AgentUser } from './agent-user.js';
import type { ClosedNetwork } from './agent-network.js';
import type { WorkerEnv } from './env.js';
import { startApiKeyProxy } from './api-key-proxy.js';
import { splitShellWords } from './shell-words.js';
import type { WorkerIo } from './io.js';
import { systemClock, type WorkerClock } from './clock.js';
import { inertToRunner } from './outcome.js';
import { CANCEL_KILL_AFTER_MS, type Cancellation } from './cancellation.js';

/**
 * Claude Code, headless. The runner is a throwaway VM and the agent gets no GitHub
 * credentials (see agentEnv), so it may edit files and run commands without asking.
 */
export function defaultAgentArgv(env: Pick<WorkerEnv, 'model' | 'maxTurns'>): string[] {
  const argv = [
    'claude',
    '-p',
    '--output-format',
    'json',
    '--permission-mode',
    'bypassPermissions',
  ];
  if (env.model) argv.push('--model', env.model);
  if (env.maxTurns) argv.push('--max-turns', String(env.maxTurns));
  return argv;
}

export function agentArgv(env: Pick<WorkerEnv, 'model' | 'maxTurns' | 'agentCommand'>): string[] {
  if (!env.agentCommand) return defaultAgentArgv(env);
  const argv = splitShellWords(env.agentCommand);
  if (argv.length === 0) throw new Error('AGENT_COMMAND: holds no command');
  return argv;
}

export interface AgentLaunch {
  argv: string[];
  /** Added to the agent's environment. */
  env: NodeJS.ProcessEnv;
  /** Said in the log when the launch differs from the plain command. */
  note?: string;
}

/**
 * Claude Code refuses `--permission-mode bypassPermissions` when its uid is 0 unless
 * IS_SANDBOX=1 says the machine is a deliberate sandbox (its CLI exits with
 * "--dangerously-skip-permissions cannot be used with root/sudo privileges"). A job in a
 * container runs as root; the runner is thrown away after the job and the agent holds no
 * GitHub credentials, which is what that variable vouches for. GitHub-hosted runners run
 * jobs as an unprivileged user, so there nothing changes.
 */
export function agentLaunch(
  env: Pick<WorkerEnv, 'model' | 'maxTurns' | 'agentCommand'>,
  uid: number | undefined = process.getuid?.(),
): AgentLaunch {
  const argv = agentArgv(env);
  if (env.agentCommand || uid !== 0) return { argv, env: {} };
  return {
    argv,
    env: { IS_SANDBOX: '1' },
    note: 'running as root: IS_SANDBOX=1 lets Claude Code bypass permission prompts on this throwaway runner',
  };
}

// The agent reads untrusted text (issue bodies, review comments): whatever it is talked
// into doing, it must not hold a token that writes to the repository or the job.
const WITHHELD = [
  'GH_TOKEN',
  'GITHUB_TOKEN',
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_RUNTIME_URL',
  'ACTIONS_RESULTS_URL',
  'ACTIONS_CACHE_URL',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_URL',
  'GITHUB_ENV',
  'GITHUB_OUTPUT',
  'GITHUB_PATH',
  'GITHUB_STATE',
  'GITHUB_STEP_SUMMARY',
];

export function agentEnv(env: NodeJS.ProcessEnv, promptFile: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  // The job's own INPUT_* are the action's: the agent gets its task from the prompt.
  for (const [k, v] of Object.entries(env)) {
    if (WITHHELD.includes(k) || k.startsWith('GIT_CONFIG_') || k.startsWith('INPUT_')) continue;
    out[k] = v;
  }
  out.AC_PROMPT_FILE = promptFile;
  return out;
}

/**
 * How the agent ended. `measured`: the usage the worker's API-key proxy read from the API's
 * responses (src/worker/api-usage.ts), when there was a proxy and a response showed usage.
 */
export type AgentExit =
  | {
      kind: 'exited';
      code: number | null;
      signal: NodeJS.Signals | null;
      stdout: string;
      measured?: Usage;
    }
  /** Stopped at its deadline (the stop time the worker chose, docs/worker.md "The time limit"). */
  | { kind: 'timeout'; stdout: string; measured?: Usage }
  /** Stopped because the run was cancelled (docs/worker.md, "A cancelled run"). */
  | { kind: 'cancelled'; stdout: string; measured?: Usage }
  | { kind: 'spawn_failed'; message: string };

export interface RunAgentOptions {
  argv: string[];
  prompt: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** How long until the agent is stopped. */
  timeoutMs: number;
  io: WorkerIo;
  /** What times the stop (tests fire it on an event instead of waiting). */
  clock?: WorkerClock;
  /** Between SIGTERM and SIGKILL on timeout. */
  graceMs?: number;
  /** The user the agent runs as (src/worker/agent-user.ts); unset: the worker's own. */
  user?: AgentUser;
  /** Its network while closed (src/worker/agent-network.ts); unset: open. */
  network?: ClosedNetwork;
  /** The run cancelled while the agent runs: it is stopped, and what it spent said in time. */
  cancel: Cancellation;
  /**
   * Called at the runner's last signal before its kill, with what the key proxy measured so far,
   * once workflow commands are on again: what was spent must be said now.
   */
  sayAtLast(measured: Usage | undefined): void;
}

const MAX_STDOUT = 32 * 1024 * 1024;

/**
 * Run the agent in its own process group with the prompt on stdin (and in AC_PROMPT_FILE),
 * never through a shell. On timeout the whole group is killed: agents start test runners,
 * dev servers and the like that would otherwise outlive them and keep editing the tree.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentExit> {
  // Outside the workspace, and readable by the agent's user: the prompt is no secret.
  const dir = await mkdtemp(join(tmpdir(), 'agent-coordinator-prompt-'));
  await chmod(dir, 0o755);
  const promptFile = join(dir, 'prompt.md');
  await writeFile(promptFile, options.prompt, { mode: 0o644 });
  // The API credentials stay in this process: the agent gets a proxy's address and placeholders.
  const proxy = await startApiKeyProxy(options.env, {
    closedNetwork: options.network !== undefined,
  });
  let exit: AgentExit;
  try {
    const env = agentEnv({ ...options.env, ...proxy?.env, ...options.network?.env }, promptFile);
    const { user } = options;
    const home = user && { HOME: user.home, USER: user.name, LOGNAME: user.name };
    const argv = user ? await user.wrap(options.argv, { ...env, ...home }) : options.argv;
    if (proxy) {
      options.io.out(
        `the agent reaches its API through the worker, without ${proxy.held.join(', ')}\n`,
      );
      for (const note of proxy.notes) options.io.out(`${note}\n`);
    }
    // Stop workflow-command processing while the agent talks: its output is not ours to trust.
    // Said just before the agent starts, with nothing to wait for in between.
    const stopToken = randomBytes(16).toString('hex');
    options.io.out(`::stop-commands::${stopToken}\n`);
    let commandsOn = false;
    const resumeCommands = () => {
      if (commandsOn) return;
      commandsOn = true;
      // The agent may not have ended its last line; the resume command must start one.
      options.io.out(`\n::${stopToken}::\n`);
    };
    options.cancel.onLastSignal(() => {
      resumeCommands();
      options.sayAtLast(proxy?.measuredSoFar());
    });
    try {
      exit = await spawnAgent(
        { ...options, argv },
        env,
        user && ((signal) => void user.signal(signal)),
      );
    } finally {
      resumeCommands();
    }
  } finally {
    await proxy?.close({ cut: options.cancel.cutoff });
    await rm(dir, { recursive: true, force: true });
  }
  if (exit.kind === 'spawn_failed') return exit;
  return { ...exit, measured: await proxy?.measured() };
}

/** What starts each line of the agent's output in the job's log. */
const AGENT_LINE = '│ ';
/** A line of the agent's longer than this is shown as several. */
const MAX_AGENT_LINE = 64 * 1024;

/**
 * The agent's output as lines of the job's log, each behind AGENT_LINE and inert to the runner
 * (inertToRunner): none starts with `::` or holds `##[`, so none is a workflow command, though
 * the agent learnt the stop token — the runner echoes the `::stop-commands::` line into the
 * log, which a public repository shows as the job runs, to whoever steered the agent — and
 * printed `::<token>::` to resume commands and `::add-mask::…` to hide the usage annotation.
 * Lines end as the runner's reader ends them (CR, LF or CRLF).
 */
function agentLines(io: WorkerIo): { write(text: string): void; end(): void } {
  let partial = '';
  const show = (line: string) => io.out(`${AGENT_LINE}${inertToRunner(line)}\n`);
  return {
    write(text) {
      const lines = (partial + text).split(/\r\n|\n|\r(?=[\s\S])/);
      partial = lines.pop() ?? '';
      for (const line of lines) show(line);
      while (partial.length > MAX_AGENT_LINE) {
        show(partial.slice(0, MAX_AGENT_LINE));
        partial = partial.slice(MAX_AGENT_LINE);
      }
    },
    end() {
      const rest = partial.replace(/\r$/, '');
      partial = '';
      if (rest !== '') show(rest);
    },
  };
}

function spawnAgent(
  options: RunAgentOptions,
  env: NodeJS.ProcessEnv,
  signalUser?: (signal: NodeJS.Signals) => void,
): Promise<AgentExit> {
  const [command, ...args] = options.argv;
  if (!command) return Promise.resolve({ kind: 'spawn_failed', message: 'empty agent command' });

  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let timedOut = false;
    let settled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;

    const killGroup = (signal: NodeJS.Signals) => {
      // Another user's processes: only that user (or root) may signal them all.
      signalUser?.(signal);
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const clock = options.clock ?? systemClock;
    let killTimer: NodeJS.Timeout | undefined;
    const cancelStop = clock.after(Math.max(0, options.timeoutMs), () => {
      if (settled) return;
      timedOut = true;
      killGroup('SIGTERM');
      killTimer = setTimeout(() => killGroup('SIGKILL'), options.graceMs ?? 10_000);
    });
    // The run is cancelled: the runner kills the worker 10 seconds after its first signal, and
    // only the worker's process (docs/worker.md, "A cancelled run"). The agent's processes are
    // stopped at once, whatever they do with SIGTERM, so that what it spent can be said in time.
    let cancelled = false;
    let cancelKill = () => {};
    void options.cancel.requested.then(() => {
      if (settled) return;
      cancelled = true;
      killGroup('SIGTERM');
      cancelKill = clock.after(CANCEL_KILL_AFTER_MS, () => killGroup('SIGKILL'));
    });

    const finish = (result: AgentExit) => {
      if (settled) return;
      settled = true;
      shownOut.end();
      shownErr.end();
      cancelStop();
      cancelKill();
      clearTimeout(killTimer);
      resolve(result);
    };

    // Decoded by the stream, so a character split across chunks stays whole.
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    const shownOut = agentLines(options.io);
    // Into the worker's stdout too, never its stderr: the runner reads the two pipes apart and
    // may handle a stderr line after stdout lines written after it (actions/runner
    // ProcessInvoker), so the agent's last stderr line could come after the resume, where
    // commands are on again. One pipe keeps the order.
    const shownErr = agentLines(options.io);
    child.stdout.on('data', (text: string) => {
      if (stdout.length < MAX_STDOUT) stdout += text;
      shownOut.write(text);
    });
    child.stderr.on('data', (text: string) => shownErr.write(text));
    // An agent that ignores stdin closes the pipe early: not an error of ours.
    child.stdin.on('error', () => {});
    child.stdin.end(options.prompt);

    child.on('error', (error) => finish({ kind: 'spawn_failed', message: error.message }));
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // Reap whatever the agent left running before we look at the working tree.
      killGroup('SIGKILL');
      // A grandchild that left the group may hold our pipes open; do not wait on it forever, nor
      // past the moment a cancelled run's spend must be said.
      setTimeout(() => finishClosed(), 5_000).unref();
      void options.cancel.cutoff.then(finishClosed);
    });
    const finishClosed = () => {
      if (cancelled) finish({ kind: 'cancelled', stdout });
      else if (timedOut) finish({ kind: 'timeout', stdout });
      else
        finish({ kind: 'exited', code: exit?.code ?? null, signal: exit?.signal ?? null, stdout });
    };
    child.on('close', finishClosed);
  });
}
