import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { agentScratchBase } from '../../helpers/agent-scratch.js';

/** git isolated from the machine's config, so a developer's gpgsign or hooks cannot interfere. */
export const isolatedEnv: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: tmpdir(),
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

const gitEnv: NodeJS.ProcessEnv = {
  ...isolatedEnv,
  GIT_AUTHOR_NAME: 'Human',
  GIT_AUTHOR_EMAIL: 'human@example.com',
  GIT_COMMITTER_NAME: 'Human',
  GIT_COMMITTER_EMAIL: 'human@example.com',
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8', stdio: 'pipe' }).trim();
}

export interface GitFixture {
  root: string;
  origin: string;
  /** The job's checkout. */
  workspace: string;
  /** A scratch clone standing in for people and the coordinator pushing to origin. */
  human: string;
  cleanup(): void;
  /** A fresh checkout of `branch`, as actions/checkout would make for the next attempt. */
  freshWorkspace(branch: string): string;
  /** Commit `files` on `branch` of origin (through the human clone). */
  commitOnOrigin(branch: string, files: Record<string, string>, message: string): string;
  originRev(ref: string): string;
}

/**
 * A bare origin with `main` (README.md, shared.txt) and the task branch created from it,
 * like the coordinator does at dispatch, plus a workspace clone on the task branch.
 */
export function createGitFixture(branch = 'agent/7/task_001'): GitFixture {
  // Its folders hold what the agent writes for the test (the harness's records).
  const root = mkdtempSync(join(agentScratchBase(), 'ac-worker-'));
  const origin = join(root, 'origin.git');
  const human = join(root, 'human');
  git(root, 'init', '--quiet', '--bare', '-b', 'main', origin);
  git(root, 'clone', '--quiet', origin, human);
  git(human, 'checkout', '--quiet', '-b', 'main');
  writeFileSync(join(human, 'README.md'), '# widgets\n');
  writeFileSync(join(human, 'shared.txt'), 'line 1\noriginal line\nline 3\n');
  git(human, 'add', '-A');
  git(human, 'commit', '--quiet', '-m', 'initial');
  git(human, 'push', '--quiet', 'origin', 'main', `main:refs/heads/${branch}`);

  let clones = 0;
  const freshWorkspace = (b: string) => {
    const dir = join(root, `workspace-${++clones}`);
    git(root, 'clone', '--quiet', '--branch', b, origin, dir);
    return dir;
  };

  const commitOnOrigin = (b: string, files: Record<string, string>, message: string) => {
    git(human, 'fetch', '--quiet', 'origin');
    git(human, 'checkout', '--quiet', '-B', b, `origin/${b}`);
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(dirname(join(human, name)), { recursive: true });
      writeFileSync(join(human, name), content);
    }
    git(human, 'add', '-A');
    git(human, 'commit', '--quiet', '-m', message);
    git(human, 'push', '--quiet', 'origin', `HEAD:refs/heads/${b}`);
    return git(human, 'rev-parse', 'HEAD');
  };

  return {
    root,
    origin,
    human,
    workspace: freshWorkspace(branch),
    freshWorkspace,
    commitOnOrigin,
    originRev: (ref) => git(origin, 'rev-parse', ref),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
