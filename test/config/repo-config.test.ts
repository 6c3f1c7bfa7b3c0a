import { describe, expect, it } from 'vitest';
import { configSourceProblem, parseConfigYaml, validateConfig } from '../../src/config/load.js';
import {
  DEFAULT_CONFIG,
  modelForTaskType,
  networkAllowOf,
  repoConfigSchema,
} from '../../src/config/schema.js';
import { parseDuration } from '../../src/core/duration.js';

describe('repository config (.github/agent-coordinator.yml)', () => {
  it('is all defaults (docs/configuration.md) when the file is missing or empty', () => {
    const expected = {
      label: 'agent',
      plan: { requireApproval: false, maxTasks: 50 },
      worker: {
        workflow: 'agent-worker.yml',
        timeoutMinutes: 10,
        models: { default: 'claude-sonnet-4-5' },
        // The agent's network is closed unless the file opens it.
        network: { allow: [] },
      },
      concurrency: { maxParallel: 10 },
      retries: { max: 3, backoff: ['0s', '30s', '5m'] },
      merge: { method: 'squash', requireApproval: true, useMergeQueue: 'auto' },
      budget: { maxCostUsdPerRun: 20 },
      checks: { rerunFailed: 1 },
      closeIssueWhenDone: true,
    };
    expect(DEFAULT_CONFIG).toMatchObject(expected);
    expect(parseConfigYaml(undefined)).toEqual({ ok: true, config: DEFAULT_CONFIG });
    expect(parseConfigYaml('')).toEqual({ ok: true, config: DEFAULT_CONFIG });
    expect(validateConfig(null)).toEqual({ ok: true, config: DEFAULT_CONFIG });
  });

  it('fills defaults around the keys that are given', () => {
    const result = parseConfigYaml(
      'label: agents\nmerge:\n  method: rebase\nworker:\n  models: { test: claude-haiku-4-5 }\n',
    );
    expect(result.ok && result.config).toMatchObject({
      label: 'agents',
      merge: { method: 'rebase', requireApproval: true, useMergeQueue: 'auto' },
      worker: {
        models: { default: 'claude-sonnet-4-5', test: 'claude-haiku-4-5' },
        timeoutMinutes: 10,
      },
      retries: { max: 3 },
    });
  });

  it.each([0, 1, 2])('takes checks.rerunFailed: %i', (n) => {
    const result = parseConfigYaml(`checks:\n  rerunFailed: ${n}\n`);
    expect(result.ok && result.config.checks).toEqual({ rerunFailed: n });
  });

  it.each([
    ['[]', []],
    ['["*"]', ['*']],
    [
      '[registry.npmjs.org, "*.GitHub.com", Example.org.]',
      ['registry.npmjs.org', '*.github.com', 'example.org'],
    ],
    ['[198.51.100.7, "2001:DB8:0:0::1"]', ['198.51.100.7', '2001:db8::1']],
  ])('takes worker.network.allow: %s, each host in one spelling', (list, allow) => {
    const result = parseConfigYaml(`worker:\n  network:\n    allow: ${list}\n`);
    expect(result.ok && result.config.worker.network).toEqual({ allow });
  });

  it('gives a run stored before worker.network the default, a closed network', () => {
    const { network: _network, ...stored } = DEFAULT_CONFIG.worker;
    expect(networkAllowOf(stored as typeof DEFAULT_CONFIG.worker)).toEqual([]);
    expect(networkAllowOf({ ...DEFAULT_CONFIG.worker, network: { allow: ['*'] } })).toEqual(['*']);
  });

  it.each([
    ['labels: agent', ['labels: unknown key']],
    ['merge:\n  strategy: squash', ['merge.strategy: unknown key']],
    [
      'merge:\n  method: fast-forward',
      ['merge.method: Invalid option: expected one of "merge"|"squash"|"rebase"'],
    ],
    [
      'worker:\n  timeoutMinutes: "ten"',
      ['worker.timeoutMinutes: Invalid input: expected number, received string'],
    ],
    [
      'worker:\n  timeoutMinutes: 0',
      ['worker.timeoutMinutes: Too small: expected number to be >=1'],
    ],
    [
      'worker:\n  timeoutMinutes: 341',
      [
        'worker.timeoutMinutes: at most 340 minutes: GitHub ends any job at 6 hours, setup included',
      ],
    ],
    [
      'retries:\n  backoff: [0s, soon]',
      ['retries.backoff[1]: expected a duration such as 0s, 30s, 5m or 1h'],
    ],
    [
      'concurrency:\n  maxParallel: 2.5',
      ['concurrency.maxParallel: Invalid input: expected int, received number'],
    ],
    [
      'budget:\n  maxCostUsdPerRun: -1',
      ['budget.maxCostUsdPerRun: Too small: expected number to be >0'],
    ],
    [
      'closeIssueWhenDone: "yes"',
      ['closeIssueWhenDone: Invalid input: expected boolean, received string'],
    ],
    ['plan:\n  requireApproval: true\n  maxTask: 5', ['plan.maxTask: unknown key']],
    ['checks:\n  rerunFailed: 3', ['checks.rerunFailed: Too big: expected number to be <=2']],
    ['checks:\n  rerunFailed: -1', ['checks.rerunFailed: Too small: expected number to be >=0']],
    [
      'checks:\n  rerunFailed: 1.5',
      ['checks.rerunFailed: Invalid input: expected int, received number'],
    ],
    ['checks:\n  rerun: 1', ['checks.rerun: unknown key']],
    ['worker:\n  network:\n    deny: [a.com]', ['worker.network.deny: unknown key']],
    [
      'worker:\n  network:\n    allow: a.com',
      ['worker.network.allow: Invalid input: expected array'],
    ],
    [
      'worker:\n  network:\n    allow: ["*", a.com]',
      ['worker.network.allow: * opens the whole network: list it alone'],
    ],
    // A URL, a port, a second wildcard, an empty label, names the resolver reads as IPv4 addresses
    // (glibc's inet_aton), a wildcard on an address, a space, a leading hyphen.
    ...[
      'https://a.com',
      'a.com:443',
      '*.*.a.com',
      'a..com',
      '127.1',
      '2130706433',
      '0x7f.1',
      '*.10.0.0.1',
      'ex ample.com',
      '-a.com',
    ].map(
      (host) =>
        [
          `worker:\n  network:\n    allow: [a.com, "${host}"]`,
          ['worker.network.allow[1]: expected a host name (api.example.com), *. and a name'],
        ] as [string, string[]],
    ),
    ['- a\n- b', ['(root): expected a mapping of settings']],
    ['label: [', ['YAML syntax error at line 1, column 9: Flow sequence in block collection']],
  ])('rejects %j naming the key', (yaml, errors) => {
    const result = parseConfigYaml(yaml);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.slice(0, errors[0]!.length))).toEqual(errors);
  });

  it('reports every problem at once', () => {
    const result = parseConfigYaml('merge:\n  method: x\n  foo: 1\nworker:\n  nope: 2\n');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors).toHaveLength(3);
  });

  it.each([
    ['0s', 0],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['250ms', 250],
    ['5', undefined],
    ['5 m', undefined],
  ])('parses duration %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });
});

describe('modelForTaskType: worker.models by the plan’s task type', () => {
  const { worker } = repoConfigSchema.parse({
    worker: { models: { default: 'model-d', test: 'model-t' } },
  });
  // The config as the run stores and reads it again: a plain object from JSON.
  const stored = JSON.parse(JSON.stringify(worker)) as typeof worker;
  it.each([
    ['test', 'model-t'],
    ['code_edit', 'model-d'],
    // A type naming what every object inherits is a type with no model of its own.
    ['constructor', 'model-d'],
    ['toString', 'model-d'],
    ['__proto__', 'model-d'],
    ['hasOwnProperty', 'model-d'],
  ])('%s runs with %s', (type, model) => {
    expect(modelForTaskType(stored, type)).toBe(model);
  });
});

describe('where the configuration may come from (_extends)', () => {
  const file = (owner: string, repo: string, path = '.github/agent-coordinator.yml') => ({
    owner,
    repo,
    path,
  });
  it.each([
    ['the repository itself', [file('acme', 'widgets')], undefined],
    [
      'the owner’s .github repository',
      [file('acme', 'widgets'), file('ACME', '.github')],
      undefined,
    ],
    [
      'another repository of the owner',
      [file('acme', 'widgets'), file('acme', 'shared')],
      undefined,
    ],
    [
      'another owner’s repository',
      [file('acme', 'widgets'), file('mallory', 'cfg')],
      "`_extends` names mallory/cfg:.github/agent-coordinator.yml, a repository of another owner; the configuration comes from acme's repositories only",
    ],
    [
      'another file, which an agent could change',
      [file('acme', 'widgets'), file('acme', 'widgets', 'docs/agents.yml')],
      '`_extends` names acme/widgets:docs/agents.yml; only .github/agent-coordinator.yml files, which no agent may change, are read',
    ],
  ])('%s', (_what, sources, problem) => {
    expect(configSourceProblem(sources, { owner: 'acme' })).toBe(problem);
  });
});
