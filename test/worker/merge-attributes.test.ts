import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Git } from '../../src/worker/git.js';
import { withoutTreeAttributes } from '../../src/worker/merge-attributes.js';

// The operator's own info/attributes (a setup step's) is theirs: the worker's merge adds to it
// and gives it back as it was, also when the merge throws.
describe('withoutTreeAttributes', () => {
  let dir: string;
  let git: Git;
  const infoAttributes = () => join(dir, '.git', 'info', 'attributes');
  const mergeOf = async (path: string) =>
    (await git.out(['check-attr', 'merge', '--', path])).trim();

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'merge-attributes-'));
    execFileSync('git', ['init', '-q', dir]);
    // A base that legitimately unions its changelog.
    writeFileSync(join(dir, '.gitattributes'), 'CHANGELOG.md merge=union\n');
    git = new Git({ cwd: dir, env: process.env });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves no tree attribute to the merge and gives an info/attributes back as it was', async () => {
    const before = '*.bin binary';
    writeFileSync(infoAttributes(), before);
    expect(await mergeOf('CHANGELOG.md')).toBe('CHANGELOG.md: merge: union');

    const during = await withoutTreeAttributes(git, () => mergeOf('CHANGELOG.md'));

    expect(during).toBe('CHANGELOG.md: merge: unspecified');
    expect(readFileSync(infoAttributes(), 'utf8')).toBe(before);
    expect(await mergeOf('CHANGELOG.md')).toBe('CHANGELOG.md: merge: union');
  });

  it.each([
    { name: 'kept as it was', before: '*.bin binary\n' },
    { name: 'removed again', before: undefined },
  ])('a merge that throws: info/attributes is $name', async ({ before }) => {
    rmSync(infoAttributes(), { force: true });
    if (before !== undefined) writeFileSync(infoAttributes(), before);

    await expect(
      withoutTreeAttributes(git, () => Promise.reject(new Error('merge died'))),
    ).rejects.toThrow('merge died');

    if (before === undefined) expect(existsSync(infoAttributes())).toBe(false);
    else expect(readFileSync(infoAttributes(), 'utf8')).toBe(before);
  });
});
