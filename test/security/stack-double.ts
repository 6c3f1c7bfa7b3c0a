import { afterEach } from 'vitest';
import { startGitHubDouble } from '../github-double/index.js';
import type { GitHubDouble } from '../github-double/scenario.js';
import { git } from '../worker/helpers/git-fixture.js';
import type { Harness } from '../worker/helpers/harness.js';

/** A stacked child and its parent, as the worker's publish job sees their branches. */
export const PARENT = 'agent/7/task_001';
export const CHILD = 'agent/7/task_002';

/** The child's worker run against the double, stacked on PARENT (the run's base `main`). */
export function childRun(double: GitHubDouble) {
  return {
    GITHUB_API_URL: double.apiUrl,
    token: double.createUserToken('agent-bot'),
    task_id: 'task_002',
    base: PARENT,
    run_base: 'main',
  };
}

/**
 * For the stacked-worker attacks: each test opens a double holding acme/widgets, which the
 * agent's bot may write to; after the test the double must have refused nothing GitHub accepts
 * (assertNoViolations), and it is closed.
 */
export function stackDouble(): () => Promise<{ double: GitHubDouble; repo: string }> {
  let open: GitHubDouble | undefined;
  afterEach(async () => {
    const double = open;
    open = undefined;
    if (!double) return;
    try {
      double.assertNoViolations();
    } finally {
      await double.close();
    }
  });
  return async () => {
    const double = (open = await startGitHubDouble({ webhookSecret: 's' }));
    const repo = await double.createRepo({
      owner: 'acme',
      name: 'widgets',
      files: { 'README.md': '# w\n' },
    });
    await double.setPermission(repo, 'agent-bot', 'write');
    return { double, repo };
  };
}

/** The double keeps its own branches: the child's PR opens on the parent's branch it has. */
export async function branchesOnDouble(double: GitHubDouble, repo: string): Promise<void> {
  for (const branch of [CHILD, PARENT])
    await double.pushCommit(repo, branch, { message: 'x', files: { 'x.txt': 'x' }, by: 'x' });
}

/**
 * On the harness's origin: the parent's branch from main with `files` in one commit, and the
 * child's branch created at that commit, as the dispatch creates it. Returns the commit.
 */
export function parentAndChild(h: Harness, files: Record<string, string>): string {
  git(h.fx.human, 'push', '--quiet', 'origin', `main:refs/heads/${PARENT}`);
  const started = h.fx.commitOnOrigin(PARENT, files, 'task_001: A');
  git(h.fx.origin, 'update-ref', `refs/heads/${CHILD}`, started);
  return started;
}

/**
 * A review round of the parent, pushed by a person, that takes `file` out: right after a commit
 * on the parent's branch (`commitOnOrigin`), whose checkout it continues. Returns the new head.
 */
export function takeOut(h: Harness, file: string, message: string): string {
  git(h.fx.human, 'rm', '--quiet', file);
  git(h.fx.human, 'commit', '--quiet', '-m', message);
  git(h.fx.human, 'push', '--quiet', 'origin', `HEAD:refs/heads/${PARENT}`);
  return h.fx.originRev(PARENT);
}

/**
 * A commit holding `evil.txt` on top of `from`, a head the parent had before a force-push
 * rewrote its history: never an ancestor of the parent's head.
 */
export function rewrittenFrom(h: Harness, from: string): string {
  git(h.fx.origin, 'update-ref', 'refs/heads/rewritten', from);
  return h.fx.commitOnOrigin('rewritten', { 'evil.txt': 'kept\n' }, 'task_001: x');
}
