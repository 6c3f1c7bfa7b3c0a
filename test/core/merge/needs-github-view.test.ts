import { describe, expect, it } from 'vitest';
import {
  decideMerges,
  pullsNeedingGitHubView,
  type MergePull,
  type MergeSnapshot,
  type MergeTask,
} from '../../../src/core/merge/index.js';
import { check, OLD, pr, snapshot, specRun, task } from './builders.js';

/** The PR as the database knows it: no checks, mergeability unknown. */
const stored = (overrides: Partial<MergePull> = {}): MergePull =>
  pr({ mergeableState: 'unknown', mergeable: null, ...overrides });

interface Row {
  name: string;
  task?: Partial<MergeTask>;
  pull?: Partial<MergePull>;
  snap?: Partial<MergeSnapshot>;
  needed: boolean;
}

describe('pullsNeedingGitHubView: one PR', () => {
  it.each<Row>([
    { name: 'approved and awaiting merge', needed: true },
    { name: 'approved state', task: { state: 'approved' }, needed: true },
    { name: 'a merge in flight', task: { state: 'merging' }, needed: true },
    {
      name: 'approved for an older head: the head GitHub shows may be the approved one',
      task: { approvedSha: OLD },
      needed: true,
    },
    { name: 'never approved', task: { approvedSha: undefined }, needed: false },
    {
      name: 'never approved, approval not required',
      task: { approvedSha: undefined },
      snap: { requireApproval: false },
      needed: true,
    },
    { name: 'held', task: { held: true }, needed: false },
    { name: 'the run held', snap: { runHeld: true }, needed: false },
    { name: 'vetoed', task: { state: 'vetoed', vetoReason: 'no' }, needed: false },
    { name: 'a veto reason on a task in review', task: { vetoReason: 'no' }, needed: false },
    {
      name: 'held, in the merge queue',
      task: { held: true, state: 'merging' },
      pull: { inMergeQueue: true },
      needed: false,
    },
    ...(
      [
        'pending',
        'dispatched',
        'running',
        'merged',
        'failed',
        'rejected',
        'blocked',
        'cancelled',
      ] as const
    ).map((state): Row => ({ name: `task ${state}`, task: { state }, needed: false })),
    { name: 'a dep not merged', task: { deps: ['task_000'] }, needed: false },
    { name: 'the PR of no task', pull: { taskId: 'task_999' }, needed: false },
  ])('$name', ({ task: t, pull, snap, needed }) => {
    const s = snapshot({ tasks: [task(t)], pulls: [stored(pull)], ...snap });
    expect(pullsNeedingGitHubView(s).has(1)).toBe(needed);
  });
});

describe('pullsNeedingGitHubView: a run', () => {
  it('asks GitHub only about the PRs whose deps are merged', () => {
    const s = specRun({ task_001: 'merged' });
    const pulls = s.pulls.map((p) => ({ ...p, mergeableState: 'unknown', mergeable: null }));
    expect([...pullsNeedingGitHubView({ ...s, pulls })].sort()).toEqual([12, 13]);
  });

  it('a PR left out decides the same from the stored copy as with any view of GitHub', () => {
    // What GitHub might say about a PR: none of it moves one that stops on the snapshot.
    const views: Partial<MergePull>[] = [
      { mergeableState: 'clean', mergeable: true },
      { mergeableState: 'dirty', mergeable: false },
      { mergeableState: 'behind', mergeable: true, headSha: OLD },
      { mergeableState: 'clean', mergeable: true, checks: [check({ conclusion: 'failure' })] },
    ];
    // #12 is being reworked, #13 was never approved, #14 waits on both.
    const s = specRun({ task_001: 'merged', task_002: 'running' });
    const tasks = s.tasks.map((t) =>
      t.taskId === 'task_003' ? { ...t, approvedSha: undefined } : t,
    );
    const pulls = s.pulls.map((p) => stored({ taskId: p.taskId, number: p.number }));
    const dbOnly = { ...s, tasks, pulls };
    const needed = pullsNeedingGitHubView(dbOnly);
    const left = pulls.filter((p) => !needed.has(p.number)).map((p) => p.number);
    expect(left).toEqual([12, 13, 14]);
    const fromDb = decideMerges(dbOnly);
    for (const view of views) {
      const withView = decideMerges({ ...dbOnly, pulls: pulls.map((p) => ({ ...p, ...view })) });
      for (const number of left)
        expect(withView.find((d) => d.pr === number)).toEqual(fromDb.find((d) => d.pr === number));
    }
  });

  it('a draft never approved waits either way, for approval in the stored copy', () => {
    const s = snapshot({ tasks: [task({ approvedSha: undefined })], pulls: [stored()] });
    expect(pullsNeedingGitHubView(s).has(1)).toBe(false);
    expect(decideMerges(s)[0]).toMatchObject({ kind: 'wait', reason: 'not_approved' });
    const withView = decideMerges({ ...s, pulls: [pr({ draft: true })] });
    expect(withView[0]).toMatchObject({ kind: 'wait', reason: 'draft' });
  });
});
