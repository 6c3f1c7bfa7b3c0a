import { describe, expect, it } from 'vitest';
import {
  globMatches,
  globMatchesWithin,
  literalPrefix,
  prefixesNest,
} from '../../src/core/glob.js';

describe('globMatches', () => {
  it.each([
    ['src/login/**', 'src/login/session.ts', true],
    ['src/login/**', 'src/login/deep/er/x.ts', true],
    ['src/login/**', 'src/logins/x.ts', false],
    ['src/**/*.test.ts', 'src/a.test.ts', true],
    ['src/**/*.test.ts', 'src/a/b/c.test.ts', true],
    ['src/**/*.test.ts', 'src/a/b/c.ts', false],
    ['**/*.md', 'README.md', true],
    ['**/*.md', 'docs/x/y.md', true],
    ['*.md', 'docs/y.md', false],
    ['src/*.ts', 'src/a/b.ts', false],
    ['src/?.ts', 'src/a.ts', true],
    ['src/?.ts', 'src/ab.ts', false],
    ['src/{a,b}.ts', 'src/b.ts', true],
    ['src/{a,b}.ts', 'src/c.ts', false],
    ['src/dir/', 'src/dir/x/y.ts', true],
    ['app/[id]/page.tsx', 'app/[id]/page.tsx', true],
    ['app/[id]/page.tsx', 'app/i/page.tsx', false],
    ['a.b', 'axb', false],
    ['src/a.ts', 'src/a.ts', true],
    ['src/**/x/**/*.ts', 'src/x/a.ts', true],
    ['src/**/x/**/*.ts', 'src/x/a/b', false],
    ['src/{*.ts,?.md}', 'src/long.ts', true],
    ['src/{*.ts,?.md}', 'src/ab.md', false],
    ['src/{,old-}a.ts', 'src/old-a.ts', true],
    ['src/**', 'src/', true],
    ['*?', 'é', true],
    ['*?', '', false],
    // A character outside ASCII, one UTF-16 unit or two, is one character (not an ASCII lookup).
    ['src/?.ts', 'src/😀.ts', true],
    ['src/??.ts', 'src/😀.ts', false],
    ['src/?é?.ts', 'src/aéb.ts', true],
    ['a}b,c', 'a}b,c', true],
    // Globs matched on the file's name alone (`**/` then one segment) and under a prefix.
    ['**/*.ts', 'x.ts', true],
    ['**/*.ts', 'a/b.ts/c', false],
    ['src/**/*.ts', 'src.ts', false],
    ['src/**/*.ts', 'lib/src/a.ts', false],
    ['src/**/**/*', 'src/a/', true],
    ['src/**/', 'src/a/b', true],
    ['src/**/', 'srca/b', false],
    ['**/**', 'a', true],
    ['**/{a,b}*.ts', 'x/y/b1.ts', true],
    ['**/{a,b}*.ts', 'a/c1.ts', false],
    ['src/dir/', 'src/dirx/y.ts', false],
    ['src/a.ts', 'src/a.tsx', false],
    // A directory anywhere under a prefix.
    ['**/test/**', 'src/test/a.ts', true],
    ['**/test/**', 'test/a.ts', true],
    ['**/test/**', 'src/testing/a.ts', false],
    ['**/test/**', 'src/latest/a.ts', false],
    ['**/test/**', 'src/test', false],
    ['src/**/test/', 'src/a/test/b', true],
    ['src/**/test/**', 'lib/test/a', false],
    ['src/**/test/**', 'src/test/a', true],
    ['**/**/a}b/**', 'x/a}b/y', true],
  ])('%s against %s: %s', (glob, path, expected) => {
    expect(globMatches(glob, path)).toBe(expected);
  });
});

describe('globMatchesWithin', () => {
  it('spends a step per character on steps already worked out, more on new ones', () => {
    const glob = 'lib/*/b.ts';
    const first = { left: 1_000 };
    expect(globMatchesWithin(glob, 'lib/a/b.ts', first)).toBe(true);
    // The prefix `lib/` is one step; each of the 6 characters after it met a set of states for
    // the first time.
    expect(1_000 - first.left).toBeGreaterThan(1 + 6 * 2);
    const again = { left: 1_000 };
    expect(globMatchesWithin(glob, 'lib/a/b.ts', again)).toBe(true);
    expect(1_000 - again.left).toBe(1 + 6);
    // `m` and `d` after `b.` were never met: two new steps, each costing more than one.
    const miss = { left: 1_000 };
    expect(globMatchesWithin(glob, 'lib/a/b.md', miss)).toBe(false);
    expect(1_000 - miss.left).toBeGreaterThan(1 + 4 + 2 * 2);
  });

  it('gives up when the budget runs out before the path does', () => {
    globMatches('lib/*.ts', 'lib/x.ts');
    expect(globMatchesWithin('lib/*.ts', 'lib/x.ts', { left: 4 })).toBeUndefined();
    expect(globMatchesWithin('lib/*.ts', 'lib/x.ts', { left: 5 })).toBe(true);
  });

  // What each shape costs once its steps are worked out: the prefix is one step, whatever its
  // length, and a glob that ends in `**/<segments>` runs its automaton on that many last segments.
  it.each([
    ['src/login/session.ts', 'src/login/session.ts', true, 1],
    ['src/login/session.ts', 'src/login/form.ts', false, 1],
    ['packages/app/src/**', 'packages/app/src/deep/er/component.tsx', true, 1],
    ['packages/app/src/', 'packages/app/src/deep/er/component.tsx', true, 1],
    ['packages/app/src/**', 'packages/api/src/x.ts', false, 1],
    ['**', 'any/where/at/all.ts', true, 1],
    ['**/*.ts', 'packages/app/src/deep/er/component.ts', true, 2 + 'component.ts'.length],
    ['src/**/*.{ts,tsx}', 'src/deep/er/component.tsx', true, 2 + 'component.tsx'.length],
    ['src/**/**/*.md', 'src/a/b.md', true, 2 + 'b.md'.length],
    // `**/` then segments without `**`: the automaton on as many last segments of the path.
    ['**/test/*.ts', 'packages/app/test/unit.ts', true, 2 + 'test/unit.ts'.length],
    ['src/**/test/*.ts', 'src/test/a.ts', true, 2 + 'test/a.ts'.length],
    ['src/**/test/*.ts', 'src/a.ts', false, 2],
    ['**/test/*.ts', 'packages/app/src/unit.ts', false, 2 + 1],
    ['src/**/x/**/*.ts', 'src/x/a.ts', true, 1 + 'x/a.ts'.length],
    // A native search for the directory: a step per 8 characters after the prefix.
    ['**/test/**', 'packages/app/test/unit/component.test.ts', true, 1 + Math.ceil(40 / 8)],
    ['packages/**/test/**', 'packages/app/src/component.ts', false, 1 + Math.ceil(20 / 8)],
  ])('%s against %s: %s in %i steps', (glob, path, expected, steps) => {
    globMatches(glob, path);
    const budget = { left: 1_000 };
    expect(globMatchesWithin(glob, path, budget)).toBe(expected);
    expect(1_000 - budget.left).toBe(steps);
  });
});

describe('literalPrefix and prefixesNest', () => {
  it.each([
    ['src/login/**', 'src/login/'],
    ['src/**/*.ts', 'src/'],
    ['src/a*.ts', 'src/'],
    ['**/*.md', ''],
    ['src/login/new.ts', 'src/login/new.ts'],
    ['src/{a,b}/x.ts', 'src/'],
  ])('%s → %s', (glob, prefix) => {
    expect(literalPrefix(glob)).toBe(prefix);
  });

  it.each([
    ['src/', 'src/login/x.ts', true],
    ['src/login/x.ts', 'src/', true],
    ['src/login/x.ts', 'src/login/x.ts', true],
    ['', 'anything', true],
    ['src/log', 'src/login/x.ts', false],
    ['src/a/', 'src/b/', false],
  ])('%s and %s nest: %s', (a, b, expected) => {
    expect(prefixesNest(a, b)).toBe(expected);
  });
});
