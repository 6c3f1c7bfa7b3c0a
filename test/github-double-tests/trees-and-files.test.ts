import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectClean, startWorld, stopWorld, type World } from './helpers.js';

const owner = 'acme';
const repo = 'widgets';

describe('git trees and a pull request’s files', () => {
  let w: World;
  beforeEach(async () => {
    w = await startWorld();
  });
  afterEach(async () => {
    await stopWorld(w);
    expectClean(w.double);
  });

  it('lists a commit’s tree recursively, each directory before its files, and truncates past the limit', async () => {
    const { double, octokit } = w;
    await double.pushCommit(w.repo, 'main', {
      message: 'add files',
      files: { 'src/login/session.ts': 'a\n', 'src/index.ts': 'b\n' },
      by: 'someone',
    });
    const head = double.branch(w.repo, 'main')!.sha;
    const { data } = await octokit.rest.git.getTree({
      owner,
      repo,
      tree_sha: head,
      recursive: '1',
    });
    expect(data.truncated).toBe(false);
    expect(data.tree.map((e) => `${e.type} ${e.path}`)).toEqual([
      'tree .github',
      'blob .github/agent-coordinator.yml',
      'tree .github/workflows',
      'blob .github/workflows/agent-worker.yml',
      'blob README.md',
      'tree src',
      'blob src/index.ts',
      'tree src/login',
      'blob src/login/session.ts',
    ]);
    // Without `recursive`: the root's entries only. By the tree's own sha or a branch name too.
    const top = await octokit.rest.git.getTree({ owner, repo, tree_sha: data.sha });
    expect(top.data.tree.map((e) => e.path)).toEqual(['.github', 'README.md', 'src']);
    const byRef = await octokit.rest.git.getTree({ owner, repo, tree_sha: 'main', recursive: '1' });
    expect(byRef.data.sha).toBe(data.sha);

    double.treeEntryLimit = 3;
    const cut = await octokit.rest.git.getTree({ owner, repo, tree_sha: head, recursive: '1' });
    expect(cut.data.truncated).toBe(true);
    expect(cut.data.tree).toHaveLength(3);

    await expect(
      octokit.rest.git.getTree({ owner, repo, tree_sha: 'f'.repeat(40) }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('lists the files a pull request changes against its merge base, page by page', async () => {
    const { double, octokit } = w;
    await double.pushCommit(w.repo, 'main', {
      message: 'base',
      files: { 'src/a.ts': 'one\n', 'src/gone.ts': 'x\n' },
      by: 'someone',
    });
    const files: Record<string, string | null> = { 'src/a.ts': 'one\ntwo\n', 'src/gone.ts': null };
    for (let i = 0; i < 40; i++) files[`new/${String(i).padStart(2, '0')}.ts`] = `${i}\n`;
    const n = await double.openPr(w.repo, {
      head: 'agent/1/task_001',
      title: 'T',
      by: 'bot',
      files: {},
    });
    await double.pushCommit(w.repo, 'agent/1/task_001', { message: 'work', files, by: 'bot' });
    // Work landing on the base since does not count: the diff is against the merge base.
    await double.advanceBranch(w.repo, 'main');

    const first = await octokit.rest.pulls.listFiles({ owner, repo, pull_number: n });
    expect(first.data).toHaveLength(30);
    const all = await octokit.paginate(octokit.rest.pulls.listFiles, {
      owner,
      repo,
      pull_number: n,
      per_page: 100,
    });
    expect(all).toHaveLength(42);
    expect(all.find((f) => f.filename === 'src/a.ts')).toMatchObject({
      status: 'modified',
      additions: 1,
      deletions: 0,
    });
    expect(all.find((f) => f.filename === 'src/gone.ts')).toMatchObject({
      status: 'removed',
      sha: null,
    });
    expect(all.filter((f) => f.status === 'added')).toHaveLength(40);
    expect(all.some((f) => f.filename.startsWith('other/'))).toBe(false);
  });
});
