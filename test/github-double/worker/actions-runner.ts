import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { tokenPermissions } from '../actions-env.js';
import type { JobAnnotation, PermissionLevel } from '../model.js';
import {
  condition,
  interpolate,
  readWorkflowJobs,
  type ExpressionContext,
  type WorkflowJob,
  type WorkflowStep,
} from './workflow-template.js';
import { WorkflowCommands } from './workflow-commands.js';
import { SETUP_NODE_MATCHERS } from './problem-matchers.js';

const exec = promisify(execFile);

/** What the runner needs from the double: each job's environment, its token, the git URL. */
export interface ActionsHost {
  actionsEnv(
    runId: number,
    options: {
      workspace: string;
      runnerTemp: string;
      inputs: Record<string, string>;
      actionYml: string;
      job: string;
      idToken: boolean;
    },
  ): Promise<Record<string, string>>;
  jobToken(runId: number, permissions?: Record<string, PermissionLevel>, job?: string): string;
  gitUrl(repo: string): string;
  startJobs(runId: number, names: readonly string[]): Promise<void>;
  finishJob(runId: number, name: string, conclusion: JobConclusion): Promise<void>;
  /**
   * The run's jobs are in this runner's hands until the returned function is called: a request to
   * cancel the run calls `stop`, and the run completes once the runner has ended its jobs.
   */
  holdRun(runId: number, stop: () => void): () => void;
  annotateJob(runId: number, annotations: JobAnnotation[], jobName?: string): void;
  /** The job's log, a section per step that ran (`GET .../actions/jobs/{job_id}/logs`). */
  recordJobLog(
    runId: number,
    steps: Array<{ name: string; lines: string[] }>,
    jobName?: string,
  ): void;
}

export interface RunnerOptions {
  /** The workflow file users copy (templates/agent-worker.yml). */
  workflowFile: string;
  /** The action's directory in this repository (holds action.yml and its bundle). */
  actionDir: string;
  /** How the workflow names the action: `<path>` in `uses: <owner>/<repo>/<path>@<ref>`. */
  actionPath: string;
  vars?: Record<string, string>;
  secrets?: Record<string, string>;
  /** Added to the action's environment (a fake agent's knobs). */
  env?: Record<string, string>;
  /** Called before each job that runs: what happens on GitHub between two jobs of the run. */
  beforeJob?: (job: string) => Promise<void>;
}

type JobConclusion = 'success' | 'failure' | 'skipped' | 'cancelled';

/**
 * How GitHub's runner stops the step in progress when its run is cancelled (GitHub's "Workflow
 * cancellation reference"; actions/runner `src/Runner.Sdk/ProcessInvoker.cs`,
 * `CancelAndKillProcessTree`): SIGINT to the step's process, `node` for a JavaScript action; SIGTERM
 * if it has not exited 7.5 seconds later; then, 2.5 seconds on, it kills that process (.NET's
 * `Process.Kill()`: not its children). What the step prints meanwhile is read as ever.
 */
export const RUNNER_SIGTERM_AFTER_MS = 7_500;
export const RUNNER_KILL_AFTER_SIGTERM_MS = 2_500;

export interface JobResult {
  job: string;
  conclusion: JobConclusion;
  /** Steps in order, with what the runner did with each. */
  steps: Array<{ step: string; outcome: 'ran' | 'skipped' }>;
  log: string;
}

export interface WorkflowResult {
  conclusion: 'success' | 'failure' | 'cancelled';
  jobs: JobResult[];
  /** Every job's log, one after another. */
  log: string;
}

export interface JobRun {
  id: number;
  headBranch: string;
  repoFullName: string;
  inputs: Record<string, string>;
}

/**
 * Runs the real workflow file users copy the way GitHub Actions runs it: each job on a
 * machine of its own (a fresh workspace and RUNNER_TEMP), after the jobs it `needs` succeeded
 * (skipped otherwise), with its own `permissions:` — a GITHUB_TOKEN of those scopes, and the
 * OIDC request variables only with `id-token: write`. Steps: each `if:` evaluated,
 * actions/checkout as a git clone over HTTP with the job's token and no persisted
 * credentials, actions/upload-artifact and download-artifact through the run's artifact
 * store (a name is uploaded once per run, as v4 and later allow), and the worker action's
 * committed bundle started with `node` in the workspace, then actions/checkout's post step
 * (git in the checkout, as it cleans up); actions/setup-node registers its problem matchers for
 * the rest of the job. Its workflow commands (`::error::`,
 * `::add-mask::`, `::stop-commands::`, and the legacy `##[…]` form anywhere in a line) are
 * honoured as the runner does, with its limits on annotations. A shell step that would
 * run fails the job: the double has no registry to install from. A request to cancel the run
 * stops the step in progress as GitHub's runner does (SIGINT, SIGTERM, kill), runs no step and no
 * job after it but the post steps, and concludes the job `cancelled` with GitHub's annotation.
 */
export async function runWorkflow(
  host: ActionsHost,
  run: JobRun,
  options: RunnerOptions,
): Promise<WorkflowResult> {
  const jobs = readWorkflowJobs(options.workflowFile);
  const artifacts = new Map<string, string>();
  const store = await mkdtemp(join(tmpdir(), 'actions-artifacts-'));
  const results: JobResult[] = [];
  const cancel = new AbortController();
  const release = host.holdRun(run.id, () => cancel.abort());
  try {
    await host.startJobs(
      run.id,
      jobs.map((j) => j.id),
    );
    for (const job of jobs) {
      // A job not started when the run is cancelled never starts: the run's end cancels it.
      if (cancel.signal.aborted) break;
      const ready = job.needs.every(
        (need) => results.find((r) => r.job === need)?.conclusion === 'success',
      );
      if (ready) await options.beforeJob?.(job.id);
      const result = ready
        ? await runJob(host, run, options, job, { artifacts, store }, cancel.signal)
        : { job: job.id, conclusion: 'skipped' as const, steps: [], log: '' };
      results.push(result);
      await host.finishJob(run.id, job.id, result.conclusion);
    }
  } finally {
    release();
    await rm(store, { recursive: true, force: true });
  }
  const failed = results.some((r) => r.conclusion === 'failure');
  return {
    conclusion: cancel.signal.aborted ? 'cancelled' : failed ? 'failure' : 'success',
    jobs: results,
    log: results.map((r) => r.log).join(''),
  };
}

interface ArtifactStore {
  artifacts: Map<string, string>;
  store: string;
}

async function runJob(
  host: ActionsHost,
  run: JobRun,
  options: RunnerOptions,
  job: WorkflowJob,
  store: ArtifactStore,
  cancelled: AbortSignal,
): Promise<JobResult> {
  // A fresh machine: nothing of an earlier job's files is here.
  const workspace = await mkdtemp(join(tmpdir(), 'actions-runner-'));
  const runnerTemp = await mkdtemp(join(tmpdir(), 'actions-runner-temp-'));
  const ctx: ExpressionContext = {
    inputs: run.inputs,
    vars: options.vars ?? {},
    secrets: options.secrets ?? {},
    github: {
      ref: `refs/heads/${run.headBranch}`,
      ref_name: run.headBranch,
      repository: run.repoFullName,
      run_id: String(run.id),
      event_name: 'workflow_dispatch',
    },
    runner: { temp: runnerTemp, os: 'Linux' },
  };
  const result: JobResult = { job: job.id, conclusion: 'success', steps: [], log: '' };
  const sections: Array<{ name: string; lines: string[] }> = [];
  const commands = new WorkflowCommands();
  try {
    for (const step of job.steps) {
      const label = step.name ?? step.uses ?? step.run ?? 'step';
      if (cancelled.aborted) break;
      if (!condition(step.if, ctx)) {
        result.steps.push({ step: label, outcome: 'skipped' });
        continue;
      }
      result.steps.push({ step: label, outcome: 'ran' });
      commands.startStep();
      const from = result.log.length;
      let ok = false;
      try {
        const env = { workspace, runnerTemp, commands, cancelled };
        ok = await runStep(host, run, options, job, step, ctx, env, result, store);
      } finally {
        // What the step printed is its section of the job's log, as GitHub keeps it.
        const printed = result.log.slice(from).replace(/\n$/, '');
        sections.push({ name: label, lines: printed === '' ? [] : printed.split('\n') });
      }
      if (!ok) {
        result.conclusion = 'failure';
        break;
      }
    }
    if (cancelled.aborted) {
      result.conclusion = 'cancelled';
      // What GitHub's runner reports on a job it cancelled, besides what the steps printed.
      commands.annotations.push({
        message: 'The operation was canceled.',
        annotation_level: 'failure',
      });
    }
  } finally {
    // Post steps run after the main ones, whatever became of them: actions/checkout's runs git.
    if (result.steps.some((s) => s.outcome === 'ran' && isCheckout(job, s.step)))
      await checkoutPost(workspace);
    host.annotateJob(run.id, commands.annotations, job.id);
    host.recordJobLog(run.id, sections, job.id);
    await rm(workspace, { recursive: true, force: true });
    await rm(runnerTemp, { recursive: true, force: true });
  }
  return result;
}

interface StepEnv {
  workspace: string;
  runnerTemp: string;
  commands: WorkflowCommands;
  /** The run was cancelled: the step in progress is stopped. */
  cancelled: AbortSignal;
}

async function runStep(
  host: ActionsHost,
  run: JobRun,
  options: RunnerOptions,
  job: WorkflowJob,
  step: WorkflowStep,
  ctx: ExpressionContext,
  where: StepEnv,
  result: JobResult,
  store: ArtifactStore,
): Promise<boolean> {
  const uses = step.uses ?? '';
  const input = (name: string) => interpolate(step.with[name] ?? '', ctx);
  if (uses.startsWith('actions/checkout@')) {
    await checkout(host, run, job, input('ref'), where.workspace);
    return true;
  }
  // The runner already has Node; which version the agent CLI gets is the template test's concern.
  // What setup-node leaves the rest of the job is its problem matchers.
  if (uses.startsWith('actions/setup-node@')) {
    where.commands.addMatchers(SETUP_NODE_MATCHERS);
    return true;
  }
  if (uses.startsWith('actions/upload-artifact@'))
    return uploadArtifact(store, input('name'), input('path'), result);
  if (uses.startsWith('actions/download-artifact@'))
    return downloadArtifact(store, input('name'), input('path'), result);
  if (uses.includes(`/${options.actionPath}@`)) {
    const inputs = Object.fromEntries(
      Object.entries(step.with).map(([k, v]) => [k, interpolate(v, ctx)]),
    );
    const stepEnv = Object.fromEntries(
      Object.entries(step.env).map(([k, v]) => [k, interpolate(v, ctx)]),
    );
    // The OIDC request variables are there only when the job grants id-token: write.
    const env = await host.actionsEnv(run.id, {
      workspace: where.workspace,
      runnerTemp: where.runnerTemp,
      inputs,
      actionYml: join(options.actionDir, 'action.yml'),
      job: job.id,
      idToken: job.permissions['id-token'] === 'write',
    });
    const code = await runAction(
      options.actionDir,
      where.workspace,
      {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? where.workspace,
        ...env,
        ...stepEnv,
        ...options.env,
      },
      result,
      where.commands,
      where.cancelled,
    );
    return code === 0;
  }
  result.log += `runner double: refusing step "${step.name ?? step.run ?? uses}"\n`;
  return false;
}

async function checkout(
  host: ActionsHost,
  run: JobRun,
  job: WorkflowJob,
  ref: string,
  workspace: string,
): Promise<void> {
  // The job's GITHUB_TOKEN, with the permissions the job declares.
  const token = host.jobToken(run.id, tokenPermissions(job.permissions), job.id);
  const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
  const url = host.gitUrl(run.repoFullName);
  // As actions/checkout with persist-credentials: false: the token is used, never stored.
  await exec(
    'git',
    [
      '-c',
      `http.extraHeader=AUTHORIZATION: basic ${basic}`,
      'clone',
      '--quiet',
      '--no-tags',
      '--branch',
      ref || run.headBranch,
      url,
      workspace,
    ],
    { env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } },
  );
}

function isCheckout(job: WorkflowJob, label: string): boolean {
  return job.steps.some(
    (step) =>
      step.uses?.startsWith('actions/checkout@') &&
      (step.name ?? step.uses ?? step.run ?? 'step') === label,
  );
}

/**
 * actions/checkout's post step (its `cleanup`, v7): when the workspace holds a repository
 * (`.git/config`), it takes any credential out of its config and every submodule's, running
 * `git config` and `git submodule foreach --recursive` there as the runner's user. Reading the
 * index, the latter runs a `core.fsmonitor` the repository's config names. A lookup that finds
 * nothing exits 1, which checkout takes as "not set".
 */
async function checkoutPost(workspace: string): Promise<void> {
  if (!existsSync(join(workspace, '.git', 'config'))) return;
  const key = 'http.https://github.com/.extraheader';
  const pattern = 'http\\.https\\:\\/\\/github\\.com\\/\\.extraheader';
  const git = (args: string[]) =>
    exec('git', args, {
      cwd: workspace,
      env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
    }).catch(() => undefined);
  await git(['config', '--local', '--name-only', '--get-regexp', 'core\\.sshCommand']);
  await git(['config', '--local', '--name-only', '--get-regexp', pattern]);
  await git([
    'submodule',
    'foreach',
    '--recursive',
    `sh -c "git config --local --name-only --get-regexp '${pattern}' && git config --local --unset-all '${key}' || :"`,
  ]);
}

async function uploadArtifact(
  store: ArtifactStore,
  name: string,
  path: string,
  result: JobResult,
): Promise<boolean> {
  if (store.artifacts.has(name)) {
    result.log += `Error: an artifact named ${name} already exists in this run\n`;
    return false;
  }
  const files = await readdir(path).catch(() => []);
  if (files.length === 0) {
    result.log += `Error: No files were found with the provided path: ${path}. No artifacts will be uploaded.\n`;
    return false;
  }
  const copy = join(store.store, String(store.artifacts.size));
  await cp(path, copy, { recursive: true, verbatimSymlinks: true });
  store.artifacts.set(name, copy);
  result.log += `Artifact ${name} has been successfully uploaded\n`;
  return true;
}

async function downloadArtifact(
  store: ArtifactStore,
  name: string,
  path: string,
  result: JobResult,
): Promise<boolean> {
  const copy = store.artifacts.get(name);
  if (!copy) {
    result.log += `Error: Unable to download artifact(s): Artifact not found for name: ${name}\n`;
    return false;
  }
  await mkdir(path, { recursive: true });
  await cp(copy, path, { recursive: true, verbatimSymlinks: true });
  return true;
}

async function runAction(
  actionDir: string,
  workspace: string,
  env: Record<string, string>,
  result: JobResult,
  commands: WorkflowCommands,
  cancelled: AbortSignal,
): Promise<number> {
  const manifest = parse(await readFile(join(actionDir, 'action.yml'), 'utf8')) as {
    runs: { using: string; main: string };
  };
  if (!/^node\d+$/.test(manifest.runs.using))
    throw new Error(`runner double: ${actionDir} is not a JavaScript action`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(actionDir, manifest.runs.main)], {
      cwd: workspace,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The runner reads a step's stdout and stderr on two threads and handles what each has read
    // in turns (actions/runner ProcessInvoker: `_outputData`, `_errorData`), so a line written to
    // stderr may be handled after stdout lines written after it. The double takes the latest
    // order: what stderr wrote waits for the next chunk of stdout, and comes after it.
    let lagging = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      result.log += commands.feed(text, 'stdout');
      result.log += commands.feed(lagging, 'stderr');
      lagging = '';
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => (lagging += text));
    let sigterm: NodeJS.Timeout | undefined;
    let kill: NodeJS.Timeout | undefined;
    const stop = () => {
      child.kill('SIGINT');
      sigterm = setTimeout(() => {
        child.kill('SIGTERM');
        kill = setTimeout(() => child.kill('SIGKILL'), RUNNER_KILL_AFTER_SIGTERM_MS);
      }, RUNNER_SIGTERM_AFTER_MS);
    };
    cancelled.addEventListener('abort', stop, { once: true });
    child.once('exit', () => {
      cancelled.removeEventListener('abort', stop);
      clearTimeout(sigterm);
      clearTimeout(kill);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      result.log += commands.flush('stdout');
      result.log += commands.feed(lagging, 'stderr') + commands.flush('stderr');
      resolve(code ?? 1);
    });
  });
}
