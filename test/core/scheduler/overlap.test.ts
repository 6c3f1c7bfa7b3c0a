import { describe, expect, it } from 'vitest';
import {
  filesOutsideDeclaration,
  formatWaitReason,
  overlapPath,
  overlapWaits,
  selectDispatches,
  RepoTree,
  taskPaths,
  type TaskPaths,
} from '../../../src/core/scheduler/index.js';
import { candidate, schedulerInput } from './builders.js';

const LISTING = {
  paths: [
    'README.md',
    'src/login/session.ts',
    'src/login/form.ts',
    'src/api/index.ts',
    'docs/a.md',
  ],
  truncated: false,
};
const TREE = new RepoTree(LISTING);
const TRUNCATED = new RepoTree({ ...LISTING, truncated: true });

const declared = (files: string[], tree: RepoTree | undefined = TREE): TaskPaths =>
  taskPaths({ base: 'main', files }, tree)!;
const changed = (changedFiles: string[]): TaskPaths =>
  taskPaths({ base: 'main', files: ['unused/**'], changedFiles }, TREE)!;

describe('taskPaths', () => {
  it('matches the globs against the tree and keeps prefixes only for globs that match nothing', () => {
    expect(declared(['src/login/**', 'src/new/**', 'src/api/new.ts'])).toEqual({
      base: 'main',
      files: ['src/login/form.ts', 'src/login/session.ts'],
      globs: ['src/login/**', 'src/new/**', 'src/api/new.ts'],
      prefixes: ['src/new/', 'src/api/new.ts'],
    });
  });

  it('falls back to every glob’s literal prefix when the tree is truncated or unknown', () => {
    for (const tree of [TRUNCATED, undefined]) {
      expect(taskPaths({ base: 'main', files: ['src/login/**', 'docs/*.md'] }, tree)).toMatchObject(
        {
          files: [],
          prefixes: ['src/login/', 'docs/'],
        },
      );
    }
  });

  it('prefers the PR’s real files to the declaration', () => {
    expect(changed(['src/api/index.ts'])).toEqual({
      base: 'main',
      files: ['src/api/index.ts'],
      globs: [],
      prefixes: [],
    });
  });

  it('claims nothing without a declaration or real files', () => {
    expect(taskPaths({ base: 'main' }, TREE)).toBeUndefined();
    expect(taskPaths({ base: 'main', files: null, changedFiles: null }, TREE)).toBeUndefined();
  });
});

describe('overlapPath', () => {
  it.each<{ name: string; a: TaskPaths; b: TaskPaths; path: string | undefined }>([
    {
      name: 'a file both globs match',
      a: declared(['src/login/**']),
      b: declared(['src/login/session.ts']),
      path: 'src/login/session.ts',
    },
    {
      name: 'globs on disjoint existing files',
      a: declared(['src/login/**']),
      b: declared(['src/api/**']),
      path: undefined,
    },
    {
      // Both prefixes are `src/`, but the tree says which files each means.
      name: 'globs with the same prefix on different existing files',
      a: declared(['src/login/*.ts']),
      b: declared(['src/api/*.ts']),
      path: undefined,
    },
    {
      name: 'two new files under nesting prefixes',
      a: declared(['src/new/**']),
      b: declared(['src/new/x.ts']),
      path: 'src/new/x.ts',
    },
    {
      name: 'new files under separate prefixes',
      a: declared(['src/new/**']),
      b: declared(['src/other/**']),
      path: undefined,
    },
    {
      name: 'a real changed file that a declaration’s glob matches',
      a: changed(['src/api/created.ts']),
      b: declared(['src/api/**']),
      path: 'src/api/created.ts',
    },
    {
      name: 'real changed files against each other',
      a: changed(['src/a.ts', 'src/b.ts']),
      b: changed(['src/b.ts']),
      path: 'src/b.ts',
    },
    {
      name: 'real files replace a declaration that would overlap',
      a: changed(['docs/a.md']),
      b: declared(['src/login/**']),
      path: undefined,
    },
    {
      name: 'a truncated tree decides by prefixes',
      a: declared(['src/login/*.md'], TRUNCATED),
      b: declared(['src/login/session.ts'], TRUNCATED),
      path: 'src/login/session.ts',
    },
    {
      name: 'different base branches never overlap',
      a: declared(['src/login/**']),
      b: { ...declared(['src/login/**']), base: 'release' },
      path: undefined,
    },
  ])('$name', ({ a, b, path }) => {
    expect(overlapPath(a, b)?.path).toBe(path);
    expect(overlapPath(b, a) !== undefined).toBe(path !== undefined);
  });
});

describe('selectDispatches with files', () => {
  const login = declared(['src/login/**']);
  const session = declared(['src/login/session.ts']);
  const api = declared(['src/api/**']);

  it('makes a candidate wait on a task in flight whose paths overlap', () => {
    const decision = selectDispatches(
      schedulerInput({
        candidates: [
          candidate({ taskId: 'task_002' }),
          candidate({ taskId: 'task_004', order: 3 }),
        ],
        overlap: {
          holders: [{ runId: 'run1', taskId: 'task_003', paths: login }],
          paths: new Map([
            ['run1:task_002', session],
            ['run1:task_004', api],
          ]),
        },
      }),
    );
    expect(decision.dispatch.map((c) => c.taskId)).toEqual(['task_004']);
    expect(decision.waiting).toEqual([
      {
        candidate: candidate({ taskId: 'task_002' }),
        reason: { kind: 'overlap', taskId: 'task_003', path: 'src/login/session.ts' },
      },
    ]);
    expect(formatWaitReason(decision.waiting[0]!.reason)).toBe(
      'waiting: overlaps task_003 on src/login/session.ts',
    );
    expect(overlapWaits(decision)).toEqual(new Set(['run1:task_002']));
  });

  it('lets the first of two overlapping candidates in dispatch order go, even without a slot', () => {
    const first = candidate({ taskId: 'b', priority: 5, order: 9 });
    const second = candidate({ taskId: 'a', priority: 3, order: 0 });
    const overlap = {
      holders: [],
      paths: new Map([
        ['run1:a', login],
        ['run1:b', session],
      ]),
    };
    const free = selectDispatches(schedulerInput({ candidates: [second, first], overlap }));
    expect(free.dispatch.map((c) => c.taskId)).toEqual(['b']);
    expect(free.waiting[0]?.reason).toMatchObject({ kind: 'overlap', taskId: 'b' });
    // No slot: the first waits on concurrency and still claims its paths, so the overlap set
    // does not depend on the limits (the claim takes it as given).
    const full = selectDispatches(
      schedulerInput({ candidates: [second, first], overlap, repoLimit: 0 }),
    );
    expect(overlapWaits(full)).toEqual(new Set(['run1:a']));
  });

  it('does not let a candidate waiting for another reason claim paths', () => {
    const held = candidate({ runId: 'held', taskId: 'x', priority: 5 });
    const decision = selectDispatches(
      schedulerInput({
        candidates: [held, candidate({ taskId: 'y' })],
        heldRuns: new Set(['held']),
        overlap: {
          holders: [],
          paths: new Map([
            ['held:x', login],
            ['run1:y', login],
          ]),
        },
      }),
    );
    expect(decision.dispatch.map((c) => c.taskId)).toEqual(['y']);
  });

  it('names another run’s task as such', () => {
    const decision = selectDispatches(
      schedulerInput({
        candidates: [candidate({ taskId: 'task_002' })],
        overlap: {
          holders: [{ runId: 'run9', taskId: 'task_001', paths: login }],
          paths: new Map([['run1:task_002', session]]),
        },
      }),
    );
    const reason = decision.waiting[0]!.reason;
    expect(reason).toEqual({
      kind: 'overlap',
      taskId: 'task_001',
      path: 'src/login/session.ts',
      elsewhere: true,
    });
    expect(formatWaitReason(reason)).toBe(
      'waiting: overlaps task_001 (another run) on src/login/session.ts',
    );
  });

  it('never makes a task without files wait, nor wait for one', () => {
    const decision = selectDispatches(
      schedulerInput({
        candidates: [candidate({ taskId: 'a' }), candidate({ taskId: 'b', order: 1 })],
        overlap: {
          holders: [{ runId: 'run1', taskId: 'c', paths: login }],
          paths: new Map([['run1:b', login]]),
        },
      }),
    );
    expect(decision.dispatch.map((c) => c.taskId)).toEqual(['a']);
    expect(decision.waiting.map((w) => w.candidate.taskId)).toEqual(['b']);
  });

  it('never makes a stacked task wait on the dependency it starts on, only on others', () => {
    const stacked = candidate({ taskId: 'child', stackParent: 'parent' });
    const onParent = selectDispatches(
      schedulerInput({
        candidates: [stacked],
        overlap: {
          holders: [{ runId: 'run1', taskId: 'parent', paths: login }],
          paths: new Map([['run1:child', session]]),
        },
      }),
    );
    expect(onParent.dispatch.map((c) => c.taskId)).toEqual(['child']);
    const onOther = selectDispatches(
      schedulerInput({
        candidates: [stacked],
        overlap: {
          holders: [
            { runId: 'run1', taskId: 'parent', paths: login },
            { runId: 'run1', taskId: 'other', paths: login },
          ],
          paths: new Map([['run1:child', session]]),
        },
      }),
    );
    expect(onOther.waiting.map((w) => w.reason)).toEqual([
      { kind: 'overlap', taskId: 'other', path: 'src/login/session.ts' },
    ]);
  });
});

describe('filesOutsideDeclaration', () => {
  it.each([
    {
      declared: ['src/login/**'],
      changed: ['src/login/a.ts', 'src/api/x.ts'],
      out: ['src/api/x.ts'],
    },
    { declared: ['src/login/**'], changed: ['src/login/a.ts'], out: [] },
    { declared: null, changed: ['anything.ts'], out: [] },
  ])('$declared with $changed', ({ declared: d, changed: c, out }) => {
    expect(filesOutsideDeclaration(d, c)).toEqual({ files: out, unchecked: 0 });
  });
});
