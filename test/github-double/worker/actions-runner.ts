import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import {
  condition,
  interpolate,
  readWorkerJob,
  type ExpressionContext,
  type WorkerJob,
  type WorkflowStep,
} from './workflow-template.js';

const exec = promisify(execFile);

/** What the runner needs from the double: the job's environment, its token, the git URL. */
export interface ActionsHost {
  actionsEnv(
    runId: number,
    options: {
      workspace: string;
      inputs: Record<string, string>;
      actionYml: string;
      job: string;
      idToken: boolean;
    },
  ): Promise<Record<string, string>>;
  jobToken(runId: number, permissions?: Record<string, 'read' | 'write'>): string;
  gitUrl(repo: string): string;
  /** The job's log, a section per step that ran (`GET .../actions/jobs/{job_id}/logs`). */
  recordJobLog(runId: number, steps: Array<{ name: string; lines: string[] }>): void;
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
}

export interface JobResult {
  conclusion: 'success' | 'failure';
  /** Steps in order, with what the runner did with each. */
  steps: Array<{ step: string; outcome: 'ran' | 'skipped' }>;
  log: string;
}

export interface JobRun {
  id: number;
  headBranch: string;
  repoFullName: string;
  inputs: Record<string, string>;
}

/**
 * Runs the worker job of the real workflow file the way a GitHub-hosted runner would: each step's
 * `if:` evaluated, actions/checkout as a git clone over HTTP with the job's token and no
 * persisted credentials, and the worker action's committed bundle started with `node` in the
 * workspace with the `INPUT_*`, `GITHUB_*` and OIDC-request environment of a JavaScript action.
 * A shell step that would run fails the job: the double has no registry to install from, and
 * nothing but the agent CLI may be installed at run time.
 */
export async function runWorkerJob(
  host: ActionsHost,
  run: JobRun,
  options: RunnerOptions,
): Promise<JobResult> {
  const job = readWorkerJob(options.workflowFile, options.actionPath);
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
  };
  const workspace = await mkdtemp(join(tmpdir(), 'actions-runner-'));
  const result: JobResult = { conclusion: 'success', steps: [], log: '' };
  const sections: Array<{ name: string; lines: string[] }> = [];
  try {
    for (const step of job.steps) {
      const label = step.name ?? step.uses ?? step.run ?? 'step';
      if (!condition(step.if, ctx)) {
        result.steps.push({ step: label, outcome: 'skipped' });
        continue;
      }
      result.steps.push({ step: label, outcome: 'ran' });
      const from = result.log.length;
      let ok = false;
      try {
        ok = await runStep(host, run, options, job, step, ctx, workspace, result);
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
  } finally {
    host.recordJobLog(run.id, sections);
    await rm(workspace, { recursive: true, force: true });
  }
  return result;
}

async function runStep(
  host: ActionsHost,
  run: JobRun,
  options: RunnerOptions,
  job: WorkerJob,
  step: WorkflowStep,
  ctx: ExpressionContext,
  workspace: string,
  result: JobResult,
): Promise<boolean> {
  const uses = step.uses ?? '';
  if (uses.startsWith('actions/checkout@')) {
    await checkout(host, run, interpolate(step.with['ref'] ?? '', ctx), workspace);
    return true;
  }
  // The runner already has Node; which version the agent CLI gets is the template test's concern.
  if (uses.startsWith('actions/setup-node@')) return true;
  if (uses.includes(`/${options.actionPath}@`)) {
    const inputs = Object.fromEntries(
      Object.entries(step.with).map(([k, v]) => [k, interpolate(v, ctx)]),
    );
    const stepEnv = Object.fromEntries(
      Object.entries(step.env).map(([k, v]) => [k, interpolate(v, ctx)]),
    );
    // The OIDC request variables are there only when the job grants id-token: write.
    const env = await host.actionsEnv(run.id, {
      workspace,
      inputs,
      actionYml: join(options.actionDir, 'action.yml'),
      job: job.id,
      idToken: job.permissions['id-token'] === 'write',
    });
    const code = await runAction(
      options.actionDir,
      workspace,
      {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? workspace,
        ...env,
        ...stepEnv,
        ...options.env,
      },
      result,
    );
    return code === 0;
  }
  result.log += `runner double: refusing step "${step.name ?? step.run ?? uses}"\n`;
  return false;
}

async function checkout(
  host: ActionsHost,
  run: JobRun,
  ref: string,
  workspace: string,
): Promise<void> {
  // The job's GITHUB_TOKEN, with the permissions the workflow gives it.
  const token = host.jobToken(run.id);
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
      '--branch',
      ref || run.headBranch,
      url,
      workspace,
    ],
    { env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } },
  );
}

async function runAction(
  actionDir: string,
  workspace: string,
  env: Record<string, string>,
  result: JobResult,
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
    child.stdout.setEncoding('utf8').on('data', (t: string) => (result.log += t));
    child.stderr.setEncoding('utf8').on('data', (t: string) => (result.log += t));
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
}
