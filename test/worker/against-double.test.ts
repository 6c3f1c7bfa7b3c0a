import { afterEach, describe, expect, it } from 'vitest';
import { startGitHubDouble } from '../github-double/index.js';
import type { GitHubDouble } from '../github-double/scenario.js';
import { git } from './helpers/git-fixture.js';
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
      // The publish job's token: the App's installation token, so the App opens the PR.
      token: double.createInstallationToken('acme'),
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
  /**
   * docs/stacking.md: a child stacked on its parent's PR (`base` = the parent's branch) whose
   * parent merges while its agent works, in a repository that deletes merged branches. GitHub
   * refuses a PR against a missing base (422, `field: base`), as the double does.
   */
  const PARENT = 'agent/7/task_001';
  const CHILD = 'agent/7/task_002';
  async function stackedChild() {
    double = await startGitHubDouble({ webhookSecret: 's' });
    const repo = await double.createRepo({
      owner: 'acme',
      name: 'widgets',
      files: { 'README.md': '# w\n' },
    });
    await double.setPermission(repo, 'agent-bot', 'write');
    const h = createHarness(CHILD);
    // The child's branch was created from the parent's PR head (the dispatch does it).
    git(h.fx.human, 'push', '--quiet', 'origin', `main:refs/heads/${PARENT}`);
    const parentHead = h.fx.commitOnOrigin(PARENT, { 'a.txt': 'a\n' }, 'task_001: A');
    git(h.fx.origin, 'update-ref', `refs/heads/${CHILD}`, parentHead);
    await double.pushCommit(repo, CHILD, {
      message: 'b',
      files: { 'b.txt': 'b' },
      by: 'agent-bot',
    });
    const env = {
      GITHUB_API_URL: double.apiUrl,
      token: double.createUserToken('agent-bot'),
      task_id: 'task_002',
      base: PARENT,
      run_base: 'main',
    };
    return { repo, h, env, workspace: h.fx.freshWorkspace(CHILD) };
  }
  const basesOf = (repo: Parameters<GitHubDouble['pulls']>[0]) =>
    (double.pulls(repo) as Array<{ head: { ref: string }; base: { ref: string } }>).map(
      (p) => `${p.head.ref} -> ${p.base.ref}`,
    );

  it("opens a stacked child's PR on the run's base when the parent's branch is gone before the publish job", async () => {
    const { repo, h, env, workspace } = await stackedChild();
    const result = await h.run(env, workspace, {
      // The parent merged while the agent worked, and GitHub deleted its branch.
      beforePublish: () => git(h.fx.origin, 'update-ref', '-d', `refs/heads/${PARENT}`),
    });
    expect(result.exitCode).toBe(0);
    expect(result.log).toContain(`${PARENT} no longer exists`);
    expect(basesOf(repo)).toEqual([`${CHILD} -> main`]);
    // The child's own work sits on the parent's commit, pushed as it was.
    expect(git(h.fx.origin, 'show', `${CHILD}:a.txt`)).toBe('a');
  }, 60_000);

  it("opens it on the run's base when GitHub refuses the parent's branch as the base (deleted after the publish job looked)", async () => {
    // The parent's branch is still in the checkout's origin, but GitHub no longer has it.
    const { repo, h, env, workspace } = await stackedChild();
    const result = await h.run(env, workspace);
    expect(result.exitCode).toBe(0);
    expect(basesOf(repo)).toEqual([`${CHILD} -> main`]);
    const refused = double.requests.filter(
      (r) => r.method === 'POST' && r.path.endsWith('/pulls') && r.status === 422,
    );
    expect(refused).toHaveLength(1);
  }, 60_000);

  it("works against the run's base when the parent's branch is gone before the checkout", async () => {
    const { repo, h, env } = await stackedChild();
    git(h.fx.origin, 'update-ref', '-d', `refs/heads/${PARENT}`);
    const result = await h.run(env, h.fx.freshWorkspace(CHILD));
    expect(result.exitCode).toBe(0);
    expect(result.log).toContain(
      `${PARENT} no longer exists (its pull request merged): working against main`,
    );
    expect(basesOf(repo)).toEqual([`${CHILD} -> main`]);
  }, 60_000);

  it("targets the parent's branch while it exists", async () => {
    const { repo, h, env, workspace } = await stackedChild();
    await double.pushCommit(repo, PARENT, {
      message: 'a',
      files: { 'a.txt': 'a' },
      by: 'agent-bot',
    });
    const result = await h.run(env, workspace);
    expect(result.exitCode).toBe(0);
    expect(basesOf(repo)).toEqual([`${CHILD} -> ${PARENT}`]);
  }, 60_000);

  /**
   * A `work` retry of the child started again from the parent's branch, and the parent was
   * squash-merged before the publish job (its branch deleted, a new commit on main): the start
   * is accepted as a commit of the stack parent's PR (`refs/pull/<n>/head`), and only of that
   * PR, the one the coordinator says the attempt was dispatched on.
   */
  it.each([
    { stackParentPr: '5', published: true },
    { stackParentPr: '6', published: false },
    // No such PR on origin: nothing to start from, the agent's result refused (not a git failure).
    { stackParentPr: '7', published: false },
    { stackParentPr: null, published: false },
  ])(
    'a work retry started from the parent squash-merged since: stack_parent_pr $stackParentPr',
    async ({ stackParentPr, published }) => {
      const { repo, h, env, workspace } = await stackedChild();
      const parentHead = git(h.fx.origin, 'rev-parse', `refs/heads/${PARENT}`);
      git(h.fx.origin, 'update-ref', 'refs/pull/5/head', parentHead);
      git(h.fx.human, 'push', '--quiet', 'origin', 'main:refs/heads/other');
      const other = h.fx.commitOnOrigin('other', { 'o.txt': 'o\n' }, 'another PR');
      git(h.fx.origin, 'update-ref', 'refs/pull/6/head', other);
      const result = await h.run(
        { ...env, attempt: '2', ...(stackParentPr && { stack_parent_pr: stackParentPr }) },
        workspace,
        {
          beforePublish: () => {
            git(h.fx.origin, 'update-ref', '-d', `refs/heads/${PARENT}`);
            h.fx.commitOnOrigin('main', { 'a.txt': 'a\n' }, 'task_001: A (#5)');
          },
        },
      );
      expect(result.log).toContain(`attempt 2: starting again from origin/${PARENT}`);
      if (!published) {
        expect(result.exitCode).not.toBe(0);
        const from = stackParentPr ? `main or a commit of #${stackParentPr}` : 'main';
        expect(result.log).toContain(
          `bad_result (a retry starts from ${from}; the result names another commit)`,
        );
        expect(basesOf(repo)).toEqual([]);
        return;
      }
      expect(result.exitCode).toBe(0);
      expect(basesOf(repo)).toEqual([`${CHILD} -> main`]);
      const [started] = git(h.fx.origin, 'rev-list', '--parents', '-n1', CHILD).split(' ').slice(1);
      expect(started).toBe(parentHead);
    },
    60_000,
  );

  /**
   * docs/stacking.md, "An attempt across the parent's merge": the child's first attempt, a fix
   * on its up-to-date branch, or a `work` retry started again from the parent's branch, and a
   * review round of the parent pushed before the publish job. The publish job merges the parent's
   * new head in after the agent's commit. Where both changed the same lines, a retry (its start
   * older work of the parent) fails (`push_failed`) and pushes nothing; the others are pushed
   * without it, for the coordinator's update to send the conflict to a fix.
   */
  it.each([
    { mode: 'fix', attempt: '2', parentChanges: 'a-notes.txt', outcome: 'merged' },
    { mode: 'fix', attempt: '2', parentChanges: 'feature.txt', outcome: 'pushed as is' },
    { mode: 'work', attempt: '1', parentChanges: 'a-notes.txt', outcome: 'merged' },
    { mode: 'work', attempt: '1', parentChanges: 'feature.txt', outcome: 'pushed as is' },
    { mode: 'work', attempt: '2', parentChanges: 'a-notes.txt', outcome: 'merged' },
    { mode: 'work', attempt: '2', parentChanges: 'feature.txt', outcome: 'refused' },
  ])(
    "$mode attempt $attempt, the parent's head moved while its agent worked, changing $parentChanges: $outcome",
    async ({ mode, attempt, parentChanges, outcome }) => {
      const { repo, h, env, workspace } = await stackedChild();
      // The double keeps its own branches: the PR opens on the parent's when it has it.
      await double.pushCommit(repo, PARENT, { message: 'a', files: { 'a.txt': 'a' }, by: 'x' });
      const started = h.fx.originRev(PARENT);
      const before = h.fx.originRev(CHILD);
      let moved = '';
      const agent = { FAKE_AGENT: 'files', FAKE_AGENT_FILES: '{"feature.txt":"feature\\n"}' };
      const fix = mode === 'fix' ? { feedback: 'Check failed: lint' } : {};
      const result = await h.run({ ...env, ...agent, ...fix, mode, attempt }, workspace, {
        beforePublish: () => {
          moved = h.fx.commitOnOrigin(PARENT, { [parentChanges]: 'review\n' }, 'task_001: review');
        },
      });
      const conflict = `${PARENT} moved to ${moved} while the agent worked, and merging it conflicts with the agent's change: feature.txt`;
      if (outcome === 'refused') {
        expect(result.outcome).toMatchObject({
          ok: false,
          reason: 'push_failed',
          detail: conflict,
        });
        expect(h.fx.originRev(CHILD)).toBe(before);
        expect(basesOf(repo)).toEqual([]);
        return;
      }
      expect(result.exitCode).toBe(0);
      expect(basesOf(repo)).toEqual([`${CHILD} -> ${PARENT}`]);
      const parentsOf = (commit: string) =>
        git(h.fx.origin, 'rev-list', '--parents', '-n1', commit).split(' ').slice(1);
      if (outcome === 'pushed as is') {
        expect(result.log).toContain(`${conflict}; pushed without it`);
        expect(parentsOf(CHILD)).toEqual([started]);
        return;
      }
      const [own, merged] = parentsOf(CHILD);
      expect(merged).toBe(moved);
      expect(parentsOf(own!)).toEqual([started]);
      expect(git(h.fx.origin, 'diff', '--name-only', moved, CHILD)).toBe('feature.txt');
    },
    60_000,
  );
});
