import { afterEach, describe, expect, it } from 'vitest';
import { startGitHubDouble } from '../github-double/index.js';
import type { GitHubDouble } from '../github-double/scenario.js';
import { createHarness } from './helpers/harness.js';

/**
 * The worker's PR logic against the GitHub double (the same strict, OpenAPI-checked fake the
 * coordinator's scenarios use), with git against a real local bare origin and a fake agent.
 */
describe('worker against the GitHub double', () => {
  let double: GitHubDouble;
  afterEach(async () => {
    try {
      double.assertNoViolations();
    } finally {
      await double.close();
    }
  });

  it('opens the PR with both markers, then updates the same PR on a retry', async () => {
    double = await startGitHubDouble({ webhookSecret: 's' });
    const repo = await double.createRepo({
      owner: 'acme',
      name: 'widgets',
      files: { 'README.md': '# w\n' },
    });
    await double.setPermission(repo, 'agent-bot', 'write');
    const h = createHarness('agent/7/task_001');
    // The double keeps its own branches: mirror the task branch the worker pushes to.
    await double.pushCommit(repo, 'agent/7/task_001', {
      message: 'start',
      files: { 'x.txt': 'x' },
      by: 'agent-bot',
    });
    const env = {
      GITHUB_API_URL: double.apiUrl,
      token: double.createUserToken('agent-bot'),
    };

    const first = await h.run(env);
    expect(first.exitCode).toBe(0);
    const pulls = double.pulls(repo) as Array<{
      number: number;
      body: string;
      head: { ref: string };
      base: { ref: string };
    }>;
    expect(pulls).toHaveLength(1);
    expect(pulls[0]!.head.ref).toBe('agent/7/task_001');
    expect(pulls[0]!.base.ref).toBe('main');
    expect(pulls[0]!.body).toContain(
      '<!-- agent-coordinator:task issue=7 task=task_001 attempt=1 -->',
    );
    expect(pulls[0]!.body).toMatch(
      /<!-- agent-coordinator:usage cost_usd=[\d.]+ input_tokens=\d+ output_tokens=\d+ -->/,
    );

    // Each run checks the branch out afresh, as actions/checkout does.
    const second = await h.run({ ...env, attempt: '2' }, h.fx.freshWorkspace('agent/7/task_001'));
    expect(second.exitCode).toBe(0);
    const after = double.pulls(repo) as Array<{ number: number; body: string }>;
    expect(after).toHaveLength(1);
    expect(after[0]!.number).toBe(pulls[0]!.number);
    expect(after[0]!.body).toContain('attempt=2');
  }, 60_000);
});
