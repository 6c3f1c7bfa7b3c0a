import { describe, expect, it } from 'vitest';
import {
  decideSettle,
  decideStalledRun,
  decideStalledTask,
  missesChangedFiles,
  sweepRunAction,
  tasksToCancel,
  type StalledRunEffect,
  type StalledRunTask,
} from '../../../src/core/lifecycle/index.js';
import type { TaskState } from '../../../src/core/states.js';

const of = (...states: TaskState[]) => states.map((state) => ({ state }));

/** docs/lifecycle.md step 11: when a run closes out, and how. */
describe('decideSettle', () => {
  it.each([
    { tasks: of(), kind: 'not_yet' },
    { tasks: of('merged', 'in_review'), kind: 'not_yet' },
    { tasks: of('merged', 'pending'), kind: 'not_yet' },
    { tasks: of('merged', 'merging'), kind: 'not_yet' },
    { tasks: of('merged', 'merged'), kind: 'done' },
    { tasks: of('merged', 'vetoed'), kind: 'failed' },
    { tasks: of('failed', 'blocked'), kind: 'failed' },
    { tasks: of('cancelled'), kind: 'failed' },
  ])('$tasks.length tasks $tasks → $kind', ({ tasks, kind }) => {
    expect(decideSettle(tasks).kind).toBe(kind);
  });

  it('cancels only the tasks that have not ended', () => {
    expect(tasksToCancel(of('merged', 'pending', 'running', 'vetoed', 'in_review'))).toEqual(
      of('pending', 'running', 'in_review'),
    );
  });
});

/** docs/running.md "The sweep": what a process that died mid-step leaves behind. */
describe('decideStalledTask', () => {
  const STALE_BEFORE = 1_000_000;
  const base = {
    approvedSha: 'abc1234',
    attemptCount: 2,
    updatedAt: STALE_BEFORE - 1,
    inMergeQueue: false,
  };
  const completed = (attempt: number, completedAt: number | null) => ({
    phase: 'completed',
    attempt,
    completedAt,
  });
  it.each([
    {
      name: 'running, its attempt completed long ago: move on',
      task: { ...base, state: 'running' as const, latestAttempt: completed(2, STALE_BEFORE - 5) },
      kind: 'move_on',
    },
    {
      name: 'dispatched, completed long ago: move on',
      task: { ...base, state: 'dispatched' as const, latestAttempt: completed(2, 0) },
      kind: 'move_on',
    },
    {
      name: 'completed just now: the live process may still be moving it',
      task: { ...base, state: 'running' as const, latestAttempt: completed(2, STALE_BEFORE + 5) },
      kind: 'none',
    },
    {
      name: 'an older attempt completed: the current one is out',
      task: { ...base, state: 'running' as const, latestAttempt: completed(1, 0) },
      kind: 'none',
    },
    {
      name: 'the attempt is still running',
      task: {
        ...base,
        state: 'running' as const,
        latestAttempt: { phase: 'running', attempt: 2, completedAt: null },
      },
      kind: 'none',
    },
    {
      name: 'a stale merge claim',
      task: { ...base, state: 'merging' as const },
      kind: 'release_merge',
    },
    {
      name: "a merge claim of the queue's",
      task: { ...base, state: 'merging' as const, inMergeQueue: true },
      kind: 'none',
    },
    {
      name: 'a fresh merge claim',
      task: { ...base, state: 'merging' as const, updatedAt: STALE_BEFORE + 1 },
      kind: 'none',
    },
    { name: 'in review', task: { ...base, state: 'in_review' as const }, kind: 'none' },
  ])('$name', ({ task, kind }) => {
    expect(decideStalledTask(task, STALE_BEFORE).kind).toBe(kind);
  });

  it.each([
    ['done', 'settle'],
    ['running', 'resume'],
    ['held', 'resume'],
    ['planning', 'skip'],
    ['awaiting_approval', 'skip'],
  ])('a %s run: %s', (state, action) => {
    expect(sweepRunAction(state)).toBe(action);
  });
});

/**
 * docs/lifecycle.md "Real files": the sweep reads a PR's files a lost `opened` left unread, or
 * again when a lost push left those of an earlier head recorded.
 */
describe('missesChangedFiles', () => {
  const HEAD = 'b'.repeat(40);
  const OLD = 'a'.repeat(40);
  const task = {
    state: 'in_review' as TaskState,
    files: ['src/**'] as string[] | null,
    changedFiles: null as string[] | null,
    changedFilesHead: null as string | null,
    prNumber: 7 as number | null,
  };
  const at = (head: string | null) => ({ changedFiles: ['a.ts'], changedFilesHead: head });
  it.each<{ name: string; change: Partial<typeof task>; prHead?: string | null; misses: boolean }>([
    { name: 'a PR with no files recorded', change: {}, misses: true },
    { name: 'files recorded at its head', change: at(HEAD), misses: false },
    { name: 'files of an earlier head (a lost push)', change: at(OLD), misses: true },
    { name: 'files recorded at a head not kept', change: at(null), misses: true },
    {
      name: 'none changed, at its head',
      change: { changedFiles: [], changedFilesHead: HEAD },
      misses: false,
    },
    { name: 'no PR row read: files recorded', change: at(OLD), prHead: null, misses: false },
    { name: 'no PR row read: no files recorded', change: {}, prHead: null, misses: true },
    { name: 'no declaration', change: { files: null }, misses: false },
    { name: 'no declaration, earlier head', change: { files: null, ...at(OLD) }, misses: false },
    { name: 'no PR yet', change: { prNumber: null }, misses: false },
    { name: 'approved', change: { state: 'approved' }, misses: true },
    { name: 'approved, earlier head', change: { state: 'approved', ...at(OLD) }, misses: true },
    { name: 'merged', change: { state: 'merged' }, misses: false },
    { name: 'merged, earlier head', change: { state: 'merged', ...at(OLD) }, misses: false },
    { name: 'pending with its PR (a retry)', change: { state: 'pending' }, misses: true },
    { name: 'failed', change: { state: 'failed' }, misses: false },
  ])('$name', ({ change, prHead = HEAD, misses }) => {
    expect(missesChangedFiles({ ...task, ...change }, prHead)).toBe(misses);
  });
});

/** docs/running.md "The sweep": a running or held run, as the sweep finds it at NOW. */
describe('decideStalledRun', () => {
  const GRACE = 60_000;
  const NOW = 10_000_000;
  const task = (key: string, state: TaskState, over: Partial<StalledRunTask> = {}) => ({
    key,
    state,
    approvedSha: 'abc1234' as string | null,
    attemptCount: 1,
    updatedAt: NOW - GRACE - 1,
    inMergeQueue: false,
    ...over,
  });
  const completedAt = (at: number) => ({
    latestAttempt: { phase: 'completed', attempt: 1, completedAt: at },
  });
  it.each<{ name: string; tasks: StalledRunTask[]; expected: StalledRunEffect[] }>([
    {
      name: 'every task ended: the run is closed out',
      tasks: [task('a', 'merged'), task('b', 'failed')],
      expected: [{ kind: 'settle' }],
    },
    {
      name: 'no task yet: nothing',
      tasks: [],
      expected: [{ kind: 'none', reason: 'no task was left half-done' }],
    },
    {
      name: 'tasks waiting or in review: nothing',
      tasks: [task('a', 'pending'), task('b', 'in_review')],
      expected: [{ kind: 'none', reason: 'no task was left half-done' }],
    },
    {
      name: 'an attempt completed a grace period ago: its task moves on',
      tasks: [task('a', 'merged'), task('b', 'running', completedAt(NOW - GRACE))],
      expected: [{ kind: 'moveOn', task: 'b' }],
    },
    {
      name: 'an attempt completed within the grace period: the live process may still move it',
      tasks: [task('b', 'running', completedAt(NOW - GRACE + 1))],
      expected: [{ kind: 'none', reason: 'no task was left half-done' }],
    },
    {
      name: 'a merge claimed over a grace period ago: released to the state it was claimed from',
      tasks: [task('a', 'merging')],
      expected: [
        {
          kind: 'releaseMerge',
          task: 'a',
          move: { event: 'merge released', to: 'approved' },
        },
      ],
    },
    {
      name: 'a merge claimed over a grace period ago whose approval was withdrawn since: released to review',
      tasks: [task('a', 'merging', { approvedSha: null })],
      expected: [
        {
          kind: 'releaseMerge',
          task: 'a',
          move: { event: 'merge released', to: 'in_review' },
        },
      ],
    },
    {
      name: 'a merge claimed just now: kept',
      tasks: [task('a', 'merging', { updatedAt: NOW - GRACE })],
      expected: [{ kind: 'none', reason: 'no task was left half-done' }],
    },
    {
      name: "a merge queue's claim: kept",
      tasks: [task('a', 'merging', { inMergeQueue: true })],
      expected: [{ kind: 'none', reason: 'no task was left half-done' }],
    },
    {
      name: 'several tasks left half-done: each, in order',
      tasks: [
        task('a', 'merging'),
        task('b', 'dispatched', completedAt(0)),
        task('c', 'running', {
          latestAttempt: { phase: 'running', attempt: 1, completedAt: null },
        }),
      ],
      expected: [
        { kind: 'releaseMerge', task: 'a', move: { event: 'merge released', to: 'approved' } },
        { kind: 'moveOn', task: 'b' },
      ],
    },
  ])('$name', ({ tasks, expected }) => {
    expect(decideStalledRun(tasks, NOW, GRACE)).toEqual(expected);
  });
});
