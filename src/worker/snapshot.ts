import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Git, type GitResult, type GitRunOptions } from './git.js';

/**
 * The working tree as git trees, read through a git directory of the worker's own
 * (docs/worker.md, "Three jobs"). The agent controls the checkout's `.git/` — its config
 * (`core.fsmonitor`, `core.hooksPath`, filters), its refs and its index — so after the agent
 * has run, the worker never runs git in that directory: it makes a fresh one, whose only
 * link to the checkout is that it may read its object store, and points it at the files.
 */

/** Git configuration that no file may change: no system or global config. */
const SAFE_ENV = {
  PATH: process.env.PATH,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_OPTIONAL_LOCKS: '0',
};
// On top of what Git itself turns off (hooks, fsmonitor): how files are staged is ours.
const SAFE_CONFIG = [
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
  git(args: string[], opts?: Pick<GitRunOptions, 'allowFail' | 'input'>): Promise<GitResult>;
  /**
   * Copies into its own store every object reachable from `ids` (a commit's tree, not its
   * history), then stops reading the stores it was opened with: called before the agent
   * starts, so that nothing read afterwards comes from the checkout's `.git/objects`, which the
   * agent owns (its `info/alternates` could name any store, or be a FIFO).
   */
  adopt(ids: string[]): Promise<void>;
  close(): Promise<void>;
}

export interface SnapshotOptions {
  /** Each git command is killed after this long (src/worker/git.ts, `timeoutMs`). */
  timeoutMs?: number;
}

/**
 * A git directory in a fresh temporary folder that reads the objects of `objectStores` and
 * stages the files of `workTree`. Objects it writes (trees, blobs) stay in its own store.
 */
export async function openSnapshotter(
  workTree: string,
  objectStores: string[],
  options: SnapshotOptions = {},
): Promise<Snapshotter> {
  const gitDir = await mkdtemp(join(tmpdir(), 'agent-coordinator-git-'));
  await new Git({ cwd: gitDir, env: SAFE_ENV }).run(['init', '--quiet', '--bare', gitDir]);
  const alternates = join(gitDir, 'objects', 'info', 'alternates');
  await writeFile(alternates, `${objectStores.join('\n')}\n`);
  const inTree = new Git({
    timeoutMs: options.timeoutMs,
    cwd: workTree,
    env: {
      ...SAFE_ENV,
      GIT_DIR: gitDir,
      GIT_WORK_TREE: workTree,
      GIT_INDEX_FILE: join(gitDir, 'snapshot-index'),
    },
  });
  const git: Snapshotter['git'] = (args, opts) => inTree.run([...SAFE_CONFIG, ...args], opts);
  return {
    git,
    objects: join(gitDir, 'objects'),
    async tree(seed) {
      await git(['read-tree', seed]);
      await git(['add', '--all', '--', '.']);
      return (await git(['write-tree'])).stdout.trim();
    },
    async adopt(ids) {
      const objects = await git(['rev-list', '--objects', '--no-walk', ...ids]);
      await git(['pack-objects', '--quiet', join(gitDir, 'objects', 'pack', 'pack')], {
        input: objects.raw,
      });
      await rm(alternates);
    },
    close: () => rm(gitDir, { recursive: true, force: true }),
  };
}
