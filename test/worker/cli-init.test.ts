import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, type CliIo } from '../../src/cli/main.js';
import { repoConfigSchema } from '../../src/config/schema.js';

const WORKFLOW = '.github/workflows/agent-worker.yml';
const CONFIG = '.github/agent-coordinator.yml';

// SPEC §7, spelled out once more so a drifting template cannot pass.
const SPEC_DEFAULTS = {
  label: 'agent',
  plan: { requireApproval: false, maxTasks: 50 },
  worker: {
    workflow: 'agent-worker.yml',
    timeoutMinutes: 10,
    models: { default: 'claude-sonnet-4-5' },
  },
  concurrency: { maxParallel: 10 },
  retries: { max: 3, backoff: ['0s', '30s', '5m'] },
  merge: { method: 'squash', requireApproval: true, useMergeQueue: 'auto' },
  budget: { maxCostUsdPerRun: 20 },
  closeIssueWhenDone: true,
};

let dir: string;
let out: string;
let err: string;
const io = (): CliIo => ({
  out: (t) => void (out += t),
  err: (t) => void (err += t),
  env: {},
  cwd: dir,
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ac-init-'));
  out = '';
  err = '';
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const read = (path: string) => readFileSync(join(dir, path), 'utf8');
const template = readFileSync(new URL('../../templates/agent-worker.yml', import.meta.url), 'utf8');
const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

describe('agent-coordinator init', () => {
  it('writes the workflow (pinned to this version) and the commented default config', async () => {
    expect(await runCli(['init', 'repo'], io())).toBe(0);

    const workflow = readFileSync(join(dir, 'repo', WORKFLOW), 'utf8');
    expect(workflow).toBe(
      template.replace(
        'AGENT_COORDINATOR_VERSION: latest',
        `AGENT_COORDINATOR_VERSION: ${version}`,
      ),
    );

    const config = readFileSync(join(dir, 'repo', CONFIG), 'utf8');
    expect(config).toMatch(/^# /m);
    expect(parse(config)).toEqual(SPEC_DEFAULTS);
    expect(repoConfigSchema.parse(parse(config))).toEqual(repoConfigSchema.parse({}));

    expect(out).toContain(`wrote ${join('repo', WORKFLOW)}`);
    expect(out).toContain(`wrote ${join('repo', CONFIG)}`);
    for (const name of [
      'AGENT_COORDINATOR_APP_ID',
      'AGENT_COORDINATOR_PRIVATE_KEY',
      'ANTHROPIC_API_KEY',
    ]) {
      expect(out).toContain(name);
    }
  });

  it('refuses to overwrite existing files, and --force overwrites them', async () => {
    expect(await runCli(['init'], io())).toBe(0);
    writeFileSync(join(dir, CONFIG), 'label: mine\n');
    writeFileSync(join(dir, WORKFLOW), 'name: mine\n');

    out = '';
    expect(await runCli(['init'], io())).toBe(1);
    expect(read(CONFIG)).toBe('label: mine\n');
    expect(read(WORKFLOW)).toBe('name: mine\n');
    expect(err).toContain('use --force');
    expect(out).toBe('');

    expect(await runCli(['init', '--force'], io())).toBe(0);
    expect(parse(read(CONFIG))).toEqual(SPEC_DEFAULTS);
    expect(read(WORKFLOW)).toContain('agent-coordinator worker');
  });

  it('writes what is missing and keeps what exists', async () => {
    expect(await runCli(['init'], io())).toBe(0);
    rmSync(join(dir, WORKFLOW));
    writeFileSync(join(dir, CONFIG), 'label: mine\n');
    expect(await runCli(['init'], io())).toBe(1);
    expect(read(CONFIG)).toBe('label: mine\n');
    expect(read(WORKFLOW)).toContain('workflow_dispatch');
  });
});

describe('agent-coordinator', () => {
  it('prints help, and rejects unknown commands and options', async () => {
    expect(await runCli(['help'], io())).toBe(0);
    expect(out).toMatch(/init \[dir\] \[--force\][\s\S]*help/);
    // The worker is the GitHub Action (actions/worker), not a subcommand.
    expect(out).not.toContain('worker ');
    expect(await runCli(['frobnicate'], io())).toBe(2);
    expect(err).toContain('unknown command "frobnicate"');
    expect(await runCli(['init', '--bogus'], io())).toBe(2);
    expect(await runCli([], io())).toBe(2);
  });
});
