import { afterEach } from 'vitest';
import { startGitHubDouble } from '../github-double/index.js';
import type { GitHubDouble } from '../github-double/scenario.js';

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
