import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRegularFile, removeSpecialFiles } from '../../src/worker/agent-files.js';
import { openSnapshotter } from '../../src/worker/snapshot.js';
import { git } from './helpers/git-fixture.js';
import { API, pullFixture, REPO, strictGitHub } from './helpers/github-mock.js';
import { createHarness, type Harness } from './helpers/harness.js';

/**
 * A FIFO the agent plants where the worker reads after it (docs/worker.md, "Threat model"):
 * opening one for reading waits for a writer, so without care the agent job would hang until
 * its time limit. Each test here hangs (and times out) if the worker opens one.
 */

const BRANCH = 'agent/7/task_001';
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

strictGitHub();

let h: Harness;
beforeEach(() => {
  h = createHarness(BRANCH);
});
afterEach(() => h.fx.cleanup());

describe('FIFOs the agent leaves', () => {
  it('in .git/ (alternates, MERGE_HEAD), as .gitignore, .gitattributes and a nested HEAD: the work is kept, the FIFOs are not', async () => {
    nock(API)
      .post(`${REPO}/pulls`)
      .reply(201, pullFixture(12, BRANCH, ''));

    const result = await h.run({ FAKE_AGENT: 'fifos' });

    expect(result.outcome).toMatchObject({ ok: true });
    // Those in .git/ left the checkout with it, unread, before the worker read anything.
    expect(result.log).toContain(
      'removed what git cannot record (FIFOs, sockets): .gitattributes, nested/.git/HEAD, pipe, sub/.gitignore',
    );
    expect(git(h.fx.origin, 'ls-tree', '-r', '--name-only', BRANCH).split('\n')).toEqual([
      'README.md',
      'feature.txt',
      'shared.txt',
      'sub/kept.txt',
    ]);
  }, 60_000);

  it('at MERGE_HEAD while resolving a merge: the attempt fails, saying the merge is gone', async () => {
    h.fx.commitOnOrigin(BRANCH, { 'shared.txt': 'line 1\nbranch line\nline 3\n' }, 'branch');
    h.fx.commitOnOrigin('main', { 'shared.txt': 'line 1\nmain line\nline 3\n' }, 'main');
    const workspace = h.fx.freshWorkspace(BRANCH);

    const result = await h.run({ mode: 'fix', attempt: '2', FAKE_AGENT: 'fifos' }, workspace);

    expect(result.outcome).toMatchObject({
      ok: false,
      reason: 'agent_failed',
      detail: 'the agent abandoned the merge',
    });
  }, 60_000);
});

describe('reading a file the agent may have replaced', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-files-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('gives a regular file, and nothing for a FIFO, a link or a directory', async () => {
    writeFileSync(join(dir, 'file'), 'abc\n');
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    execFileSync('ln', ['-s', 'file', join(dir, 'link')]);
    mkdirSync(join(dir, 'dir'));
    expect(await readRegularFile(join(dir, 'file'))).toBe('abc\n');
    for (const name of ['fifo', 'link', 'dir', 'missing'])
      expect(await readRegularFile(join(dir, name)), name).toBeUndefined();
  });

  it('a git command that blocks on one is killed at its timeout, with a clear error', async () => {
    execFileSync('mkfifo', [join(dir, '.gitignore')]);
    const snap = await openSnapshotter(dir, [], { timeoutMs: 1_000 });
    try {
      await expect(snap.tree(EMPTY_TREE)).rejects.toThrow(/add --all -- \. timed out after 1 s$/);
    } finally {
      await snap.close();
    }
  });

  it('removes FIFOs under links to nothing but the tree itself', async () => {
    mkdirSync(join(dir, 'outside'));
    execFileSync('mkfifo', [join(dir, 'outside', 'fifo')]);
    const tree = join(dir, 'tree');
    mkdirSync(tree);
    execFileSync('ln', ['-s', join(dir, 'outside'), join(tree, 'out')]);
    execFileSync('mkfifo', [join(tree, 'fifo')]);
    expect(await removeSpecialFiles(tree)).toEqual(['fifo']);
    expect(await readRegularFile(join(dir, 'outside', 'fifo'))).toBeUndefined();
    expect(execFileSync('ls', [join(dir, 'outside')], { encoding: 'utf8' })).toBe('fifo\n');
  });
});
