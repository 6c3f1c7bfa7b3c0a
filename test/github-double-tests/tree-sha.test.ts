import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { treeObjects, treeSha } from '../github-double/git-objects.js';
import type { Tree } from '../github-double/model.js';

// The last of treeObjects is the root tree, hashed from scratch: what treeSha must agree with
// when it only re-hashes the directories a commit changed.
function fullSha(tree: Tree): string {
  return treeObjects(tree).at(-1)!.sha;
}

const bare = mkdtempSync(join(tmpdir(), 'tree-sha-'));
execFileSync('git', ['init', '--bare', '-q', bare]);
afterAll(() => rmSync(bare, { recursive: true, force: true }));

// What git itself says the tree of these files is.
function gitSha(tree: Tree): string {
  const env = { ...process.env, GIT_DIR: bare, GIT_INDEX_FILE: join(bare, 'index-test') };
  execFileSync('git', ['read-tree', '--empty'], { env });
  for (const [path, content] of Object.entries(tree)) {
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { env, input: content })
      .toString()
      .trim();
    execFileSync('git', ['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`], {
      env,
    });
  }
  return execFileSync('git', ['write-tree'], { env }).toString().trim();
}

describe("the double's tree ids, re-hashed from the parent's tree", () => {
  const base: Tree = {
    'README.md': 'hello\n',
    'agent/1/a.md': 'a\n',
    'agent/1/b.md': 'b\n',
    'agent/2/c.md': 'c\n',
    'src/x.ts': 'x\n',
  };
  const edits: [string, Tree][] = [
    ['adds a file in a new directory', { ...base, 'agent/3/d.md': 'd\n' }],
    ['changes a nested file', { ...base, 'agent/1/a.md': 'A\n' }],
    ['removes the only file of a directory', (({ 'agent/2/c.md': _, ...rest }) => rest)(base)],
    ['removes a whole subtree', (({ 'src/x.ts': _, ...rest }) => rest)(base)],
    ['changes nothing', { ...base }],
    ['empties the tree', {}],
    [
      'has a file beside a directory of a similar name',
      { ...base, 'agent.md': 'x\n', 'agent-': 'y' },
    ],
  ];

  it.each(edits)('%s: the same id as hashed from scratch and as git', (_what, next) => {
    expect(treeSha(base)).toBe(gitSha(base));
    const incremental = treeSha(next, base);
    expect(incremental).toBe(fullSha(next));
    expect(incremental).toBe(gitSha(next));
  });

  it('keeps agreeing over a chain of commits', () => {
    let parent: Tree = { ...base };
    treeSha(parent);
    for (let i = 0; i < 20; i++) {
      const next: Record<string, string> = {
        ...parent,
        [`agent/${i % 4}/t${i}.md`]: `task ${i}\n`,
      };
      if (i % 5 === 4) delete next[`agent/${(i - 1) % 4}/t${i - 1}.md`];
      expect(treeSha(next, parent)).toBe(fullSha(next));
      parent = next;
    }
    expect(treeSha(parent)).toBe(gitSha(parent));
  });
});
