import { describe, expect, it } from 'vitest';
import { globProblem } from '../../../src/core/glob.js';
import {
  COMPARE_STEPS,
  decideOverlapWaits,
  filesOutsideDeclaration,
  formatWaitReason,
  MATCH_STEPS,
  overlapPath,
  RepoTree,
  taskPaths,
  type TaskPaths,
} from '../../../src/core/scheduler/index.js';

/**
 * Matching a plan's globs against the tree and comparing the claims is bounded in steps
 * (docs/lifecycle.md, "Overlapping files"): past the bound a glob stands for its literal prefix
 * and two claims are taken to overlap, so tasks wait rather than collide.
 */
const TREE = new RepoTree({
  paths: [
    'src/login/session.ts',
    'src/login/form.ts',
    'src/api/index.ts',
    ...Array.from({ length: 1_000 }, (_, i) => `vendor/lib${i}/index.js`),
  ],
  truncated: false,
});

const claim = (files: string[], left = Number.POSITIVE_INFINITY): TaskPaths =>
  taskPaths({ base: 'main', files }, TREE, { left })!;

describe('taskPaths within a budget', () => {
  const globs = ['src/login/**', 'src/api/*.ts', 'src/new/**'];
  /** The steps `globs` take, their automata worked out already. */
  const cost = (some: string[]) => {
    claim(some);
    const budget = { left: 1e9 };
    taskPaths({ base: 'main', files: some }, TREE, budget);
    return 1e9 - budget.left;
  };

  it.each<{ name: string; left: () => number; claim: Partial<TaskPaths> }>([
    {
      name: 'enough steps: the files, as without a bound',
      left: () => cost(globs),
      claim: {
        files: ['src/api/index.ts', 'src/login/form.ts', 'src/login/session.ts'],
        prefixes: ['src/new/'],
      },
    },
    {
      name: 'too few for the second glob: it and the rest claim their literal prefixes',
      left: () => cost(globs.slice(0, 1)) + 1,
      claim: {
        files: ['src/login/form.ts', 'src/login/session.ts'],
        prefixes: ['src/api/', 'src/new/'],
        cut: true,
      },
    },
    {
      name: 'none: every literal prefix',
      left: () => 0,
      claim: { files: [], prefixes: ['src/login/', 'src/api/', 'src/new/'], cut: true },
    },
  ])('$name', ({ left, claim: expected }) => {
    expect(claim(globs, left())).toEqual({ base: 'main', globs, ...expected });
  });

  it('tries a glob only on the files under its literal prefix', () => {
    const budget = { left: 10_000 };
    taskPaths({ base: 'main', files: ['src/login/**'] }, TREE, budget);
    // Two files of about 20 characters, not the tree's thousand.
    expect(10_000 - budget.left).toBeLessThan(200);
  });
});

describe('overlapPath within a budget', () => {
  it('takes two claims to overlap, anywhere, once comparing runs out', () => {
    const login = claim(['src/login/**']);
    const api = claim(['src/api/**']);
    expect(overlapPath(login, api)).toBeUndefined();
    expect(overlapPath(login, api, { left: 3 })).toEqual({ path: '', approximate: true });
  });

  it('says an overlap is approximate when a claim cut short decided it', () => {
    const cut = claim(['src/login/**'], 0);
    expect(overlapPath(cut, claim(['src/login/new.ts']))).toEqual({
      path: 'src/login/new.ts',
      approximate: true,
    });
    // A file of the other that the cut claim's glob matches is a real overlap.
    expect(overlapPath(cut, claim(['src/login/form.ts']))).toEqual({ path: 'src/login/form.ts' });
  });

  it.each([
    ['', 'waiting: may overlap t1 anywhere (too many paths to match at once)'],
    ['src/', 'waiting: may overlap t1 on src/ (too many paths to match at once)'],
  ])('is shown as such: %j', (path, text) => {
    expect(formatWaitReason({ kind: 'overlap', taskId: 't1', path, approximate: true })).toBe(text);
  });
});

describe('RepoTree', () => {
  it('keeps claims until they hold 200,000 paths, globs and prefixes included', () => {
    const tree = new RepoTree({ paths: [], truncated: false });
    const globs = Array.from({ length: 100 }, (_, g) => `**/${g}*`);
    const claim = { base: 'main', files: [], globs, prefixes: globs.map(() => '') };
    for (let id = 1; id <= 1_000; id++) tree.keep(id, claim);
    expect(tree.claimOf(1_000)).toBe(claim);
    tree.keep(1_001, claim);
    expect(tree.claimOf(1_001)).toBeUndefined();
  });
});

describe('filesOutsideDeclaration within a budget', () => {
  const declared = ['src/login/**', '**/*.md'];
  const changed = ['src/api/x.ts', 'src/login/a.ts', 'docs/a.md', 'lib/y.ts'];

  it('checks the files in order until the steps run out, and counts those it did not reach', () => {
    expect(filesOutsideDeclaration(declared, changed)).toEqual({
      files: ['src/api/x.ts', 'lib/y.ts'],
      unchecked: 0,
    });
    // Steps for the first file and one more: it is outside, the other three are not reached.
    const first = { left: 1e9 };
    filesOutsideDeclaration(declared, changed.slice(0, 1), first);
    const left = 1e9 - first.left + 1;
    expect(filesOutsideDeclaration(declared, changed, { left })).toEqual({
      files: ['src/api/x.ts'],
      unchecked: 3,
    });
    expect(filesOutsideDeclaration(declared, changed, { left: 0 })).toEqual({
      files: [],
      unchecked: 4,
    });
  });
});

/** `count` tasks claiming `files`, the first ready, the others in flight. */
function claimants(count: number, files: (task: number) => string[]) {
  return Array.from({ length: count }, (_, t) => ({
    id: t + 1,
    runId: 1,
    taskKey: `t${t}`,
    state: t === 0 ? ('pending' as const) : ('running' as const),
    prNumber: null,
    ready: t === 0,
    files: files(t),
    changedFiles: null,
    base: 'main',
  }));
}

describe('decideOverlapWaits', () => {
  // The red team's plan: 100 valid globs of up to 256 characters per task that never let the
  // automaton stop early, against a tree of 20,000 files. Unbounded, one decision took 3 s for
  // 2 such tasks and 16 s for 10.
  const paths = Array.from(
    { length: 20_000 },
    (_, i) => `packages/pkg${i % 200}/src/module${i % 37}/component_${i}.tsx`,
  );
  const hostile = (t: number) =>
    Array.from({ length: 100 }, (_, g) => `**/${'*?'.repeat(40)}${g}{a,b,c,d,e,f,g,h,i,j}${t}`);

  it('decides a hostile plan within its steps, the ready task waiting, and keeps the claims', () => {
    for (const glob of hostile(9)) expect(globProblem(glob)).toBeUndefined();
    const tree = new RepoTree({ paths, truncated: false });
    const trees = new Map([['main', tree]]);
    const tasks = claimants(10, hostile);
    const bound = MATCH_STEPS + COMPARE_STEPS + 100_000;
    const first = decideOverlapWaits(tasks, trees, 0);
    expect(first.steps).toBeLessThanOrEqual(bound);
    expect(first.blocked).toEqual([1]);
    expect(first.reasons.get(1)?.get('t0')).toMatchObject({ kind: 'overlap', approximate: true });
    // Each decision works out the claims not yet kept on the tree, until all are.
    const spent = [first.steps];
    for (let pass = 0; pass < 5; pass++) {
      const next = decideOverlapWaits(tasks, trees, 0);
      expect(next.steps).toBeLessThanOrEqual(bound);
      expect(next.blocked).toEqual([1]);
      spent.push(next.steps);
    }
    expect(spent.at(-1)).toBeLessThan(COMPARE_STEPS);
  });

  it('decides an ordinary plan as without a bound, and works its claims out once per tree', () => {
    const tree = new RepoTree({ paths, truncated: false });
    const trees = new Map([['main', tree]]);
    const tasks = claimants(3, (t) =>
      t === 2 ? ['packages/pkg7/src/module7/**'] : [`packages/pkg${t}/**`, 'docs/new.md'],
    );
    const first = decideOverlapWaits(tasks, trees, 0);
    expect(first.reasons.get(1)?.get('t0')).toEqual({
      kind: 'overlap',
      taskId: 't1',
      path: 'docs/new.md',
    });
    for (const task of tasks) expect(tree.claimOf(task.id)).toBeDefined();
    const again = decideOverlapWaits(tasks, trees, 0);
    expect(again.reasons).toEqual(first.reasons);
    expect(again.steps).toBeLessThan(first.steps);
  });

  // A monorepo near GitHub's listing limit (100,000 entries), paths of about 50 characters, and
  // the globs planners write most: a whole directory, every file of a kind anywhere, or in a
  // directory of that name anywhere. Matched
  // character by character over whole paths, `**/*.ts` took 5M steps here, past a claim's 4M:
  // its task could then only wait on "may overlap anything".
  it('matches the usual globs on a tree of 100,000 files in full', () => {
    const big = Array.from(
      { length: 100_000 },
      (_, i) =>
        `packages/package-${i % 400}/src/feature-${i % 23}/component-${i}.${i % 2 ? 'ts' : 'tsx'}`,
    );
    const tree = new RepoTree({ paths: big, truncated: false });
    const tasks = claimants(
      5,
      (t) =>
        [
          ['**/*.ts'],
          ['packages/package-7/**', 'docs/guide.md'],
          ['docs/**'],
          ['**/feature-3/**'],
          ['**/feature-4/*.tsx'],
        ][t]!,
    );
    const decision = decideOverlapWaits(tasks, new Map([['main', tree]]), 0);
    const ts = tree.claimOf(1)!;
    expect(ts.cut).toBeUndefined();
    expect(ts.files).toHaveLength(50_000);
    expect(tree.claimOf(2)).toMatchObject({ prefixes: ['docs/guide.md'] });
    expect(tree.claimOf(2)!.cut).toBeUndefined();
    const feature = tree.claimOf(4)!;
    expect(feature.cut).toBeUndefined();
    expect(feature.files).toHaveLength(big.filter((p) => p.includes('/feature-3/')).length);
    const tsx = tree.claimOf(5)!;
    expect(tsx.cut).toBeUndefined();
    expect(tsx.files).toHaveLength(
      big.filter((p) => p.includes('/feature-4/') && p.endsWith('.tsx')).length,
    );
    expect(decision.reasons.get(1)?.get('t0')).toEqual({
      kind: 'overlap',
      taskId: 't1',
      path: 'packages/package-7/src/feature-0/component-14007.ts',
    });
  });
});
