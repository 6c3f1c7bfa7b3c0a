import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitError, type GitResult } from './git.js';

/**
 * The working tree as git trees, read through a git directory of the worker's own
 * (docs/worker.md, "Three jobs"). The agent controls the checkout's `.git/` — its config
 * (`core.fsmonitor`, `core.hooksPath`, filters), its refs and its index — so after the agent
 * has run, the worker never runs git in that directory: it makes a fresh one, whose only
 * link to the checkout is that it may read its object store, and points it at the files.
 */

/** Git configuration that no file may change: no system or global config, nothing to run. */
const SAFE_ENV = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_OPTIONAL_LOCKS: '0',
};
const SAFE_CONFIG = [
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.untrackedCache=false',
  '-c',
  'core.autocrlf=false',
  '-c',
  'core.symlinks=true',
];

export interface Snapshotter {
  /** Its own object store, for another snapshotter to read. */
  objects: string;
  /**
   * The working tree as `git add --all` stages it over `seed` (a tree-ish: files it tracks stay
   * tracked even where a .gitignore now matches them), written as a tree object.
   */
  tree(seed: string): Promise<string>;
  git(args: string[], opts?: GitOptions): Promise<RawGitResult>;
  close(): Promise<void>;
}

/**
 * A git directory in a fresh temporary folder that reads the objects of `objectStores` and
 * stages the files of `workTree`. Objects it writes (trees, blobs) stay in its own store.
 */
interface GitOptions {
  input?: Buffer | string;
  allowFail?: boolean;
}

export interface RawGitResult extends GitResult {
  raw: Buffer;
}

export async function openSnapshotter(
  workTree: string,
  objectStores: string[],
): Promise<Snapshotter> {
  const gitDir = await mkdtemp(join(tmpdir(), 'agent-coordinator-git-'));
  const env = {
    PATH: process.env.PATH,
    ...SAFE_ENV,
    GIT_DIR: gitDir,
    GIT_WORK_TREE: workTree,
    GIT_INDEX_FILE: join(gitDir, 'snapshot-index'),
  };
  const git = (args: string[], opts: GitOptions = {}) =>
    runGit([...SAFE_CONFIG, ...args], { cwd: workTree, env, ...opts });
  await runGit([...SAFE_CONFIG, 'init', '--quiet', '--bare', gitDir], {
    cwd: gitDir,
    env: { PATH: process.env.PATH, ...SAFE_ENV },
  });
  await writeFile(join(gitDir, 'objects', 'info', 'alternates'), `${objectStores.join('\n')}\n`);
  return {
    git,
    objects: join(gitDir, 'objects'),
    async tree(seed) {
      await git(['read-tree', seed]);
      await git(['add', '--all', '--', '.']);
      return (await git(['write-tree'])).stdout.trim();
    },
    close: () => rm(gitDir, { recursive: true, force: true }),
  };
}

export function runGit(
  args: string[],
  opts: GitOptions & { cwd: string; env: NodeJS.ProcessEnv },
): Promise<RawGitResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      { cwd: opts.cwd, env: opts.env, maxBuffer: 1024 * 1024 * 1024, encoding: 'buffer' },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        const result = { code, stdout: stdout.toString(), stderr: stderr.toString(), raw: stdout };
        if (code !== 0 && !opts.allowFail) reject(new GitError(args, result));
        else resolve(result);
      },
    );
    child.stdin?.end(opts.input);
  });
}
