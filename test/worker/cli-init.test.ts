import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, type CliIo } from '../../src/cli/main.js';
import { repoConfigSchema } from '../../src/config/schema.js';

const WORKFLOW = '.github/workflows/agent-worker.yml';
const CONFIG = '.github/agent-coordinator.yml';

// docs/configuration.md, spelled out once more so a drifting template cannot pass.
const SPEC_DEFAULTS = {
  label: 'agent',
  plan: { requireApproval: false, maxTasks: 50 },
  worker: {
    workflow: 'agent-worker.yml',
    timeoutMinutes: 10,
    models: { default: 'claude-sonnet-4-5' },
    network: { allow: [] },
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
  nock.disableNetConnect();
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  const pending = nock.pendingMocks();
  nock.cleanAll();
  nock.enableNetConnect();
  expect(pending, 'GitHub mocks never called').toEqual([]);
});

const GIT = 'https://api.github.com/repos/agent-coordinator/agent-coordinator/git';
const COMMIT = 'c0ffee'.padEnd(40, '0');
const TAG_OBJECT = '7a9'.padEnd(40, '1');
const ACTION = 'agent-coordinator/agent-coordinator/actions/worker';
/** GitHub has no such tag (yet): init falls back to the moving tag. */
const noTag = () => nock(GIT).get(`/ref/tags/v${version}`).reply(404, { message: 'Not Found' });

const read = (path: string) => readFileSync(join(dir, path), 'utf8');
const template = readFileSync(new URL('../../templates/agent-worker.yml', import.meta.url), 'utf8');
const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

describe('agent-coordinator init', () => {
  it('writes the workflow (the action pinned to this release) and the commented default config', async () => {
    nock(GIT)
      .get(`/ref/tags/v${version}`)
      .reply(200, { ref: `refs/tags/v${version}`, object: { type: 'commit', sha: COMMIT } });
    expect(await runCli(['init', 'repo'], io())).toBe(0);

    const workflow = readFileSync(join(dir, 'repo', WORKFLOW), 'utf8');
    // Each of the three jobs' worker steps is pinned.
    expect(workflow).toBe(
      template.replaceAll(`uses: ${ACTION}@v0`, `uses: ${ACTION}@${COMMIT} # v${version}`),
    );
    expect(workflow.split(`uses: ${ACTION}@${COMMIT} # v${version}\n`)).toHaveLength(4);
    expect(out).toContain(`pinned the worker action to v${version} (${COMMIT})`);

    const config = readFileSync(join(dir, 'repo', CONFIG), 'utf8');
    expect(config).toMatch(/^# /m);
    expect(parse(config)).toEqual(SPEC_DEFAULTS);
    expect(repoConfigSchema.parse(parse(config))).toEqual(repoConfigSchema.parse({}));

    expect(out).toContain(`wrote ${join('repo', WORKFLOW)}`);
    expect(out).toContain(`wrote ${join('repo', CONFIG)}`);
    expect(out).toContain('ANTHROPIC_API_KEY');
    expect(out).toContain('PUBLIC_URL');
    expect(out).not.toMatch(/PRIVATE_KEY|APP_ID/);
  });

  it('dereferences an annotated release tag to its commit', async () => {
    nock(GIT)
      .get(`/ref/tags/v${version}`)
      .reply(200, { object: { type: 'tag', sha: TAG_OBJECT } })
      .get(`/tags/${TAG_OBJECT}`)
      .reply(200, { sha: TAG_OBJECT, object: { type: 'commit', sha: COMMIT } });
    expect(await runCli(['init'], io())).toBe(0);
    expect(read(WORKFLOW)).toContain(`uses: ${ACTION}@${COMMIT} # v${version}\n`);
  });

  it('writes the moving tag, and says so, when GitHub cannot tell the commit', async () => {
    noTag();
    expect(await runCli(['init'], io())).toBe(0);
    expect(read(WORKFLOW)).toBe(template);
    expect(err).toContain(`could not look up the commit of v${version} (GitHub answered 404`);
    expect(err).toContain('moving tag v0');
  });

  it('refuses to overwrite existing files, and --force overwrites them', async () => {
    noTag();
    noTag();
    noTag();
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
    noTag();
    noTag();
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
