import { describe, expect, it } from 'vitest';
import {
  checkMergeGroup,
  mergeGroupApproversToRead,
  type ApproverStanding,
  type MergeGroupRun,
  type MergeGroupTask,
} from '../../../src/core/merge/index.js';

const HEAD = 'def5678'.padEnd(40, '0');

function groupTask(overrides: Partial<MergeGroupTask> = {}): MergeGroupTask {
  return { taskId: 'task_001', deps: [], state: 'in_review', approvedSha: HEAD, ...overrides };
}

/** docs/tasks-block.md in run "r1": task_001 merged unless states say otherwise, PRs #11..#14. */
function specRuns(states: Partial<Record<string, MergeGroupTask['state']>> = {}) {
  const tasks: MergeGroupTask[] = [
    groupTask({ taskId: 'task_001', state: 'merged', prNumber: 11 }),
    groupTask({ taskId: 'task_002', deps: ['task_001'], prNumber: 12 }),
    groupTask({ taskId: 'task_003', deps: ['task_001'], prNumber: 13 }),
    groupTask({ taskId: 'task_004', deps: ['task_002', 'task_003'], prNumber: 14 }),
  ].map((t) => ({ ...t, state: states[t.taskId] ?? t.state }));
  return new Map<string, MergeGroupRun>([['r1', { tasks, requireApproval: true }]]);
}

const agent = (number: number, taskId: string, runKey = 'r1', headSha = HEAD) => ({
  number,
  taskId,
  runKey,
  headSha,
});

describe('checkMergeGroup', () => {
  it.each([
    { name: 'deps merged', group: [agent(12, 'task_002')] },
    { name: 'independent tasks together', group: [agent(12, 'task_002'), agent(13, 'task_003')] },
    {
      name: 'deps earlier in the same group',
      group: [agent(12, 'task_002'), agent(13, 'task_003'), agent(14, 'task_004')],
    },
    { name: 'non-agent PRs only', group: [{ number: 99 }, { number: 100 }] },
    { name: 'an empty group', group: [] },
  ])('passes $name', ({ group }) => {
    expect(checkMergeGroup(group, specRuns())).toEqual({ ok: true });
  });

  it('fails a dep later in the group, naming the PR and the dep', () => {
    expect(
      checkMergeGroup(
        [agent(13, 'task_003'), agent(14, 'task_004'), { number: 99 }, agent(12, 'task_002')],
        specRuns(),
      ),
    ).toEqual({
      ok: false,
      reason: '#14 (task_004) would land before its dependency task_002 (#12)',
    });
  });

  it('fails a dep absent from the group and unmerged', () => {
    expect(checkMergeGroup([agent(14, 'task_004')], specRuns({ task_002: 'merged' }))).toEqual({
      ok: false,
      reason: '#14 (task_004) would land before its dependency task_003 (#13)',
    });
  });

  it('names every problem in queue order', () => {
    const verdict = checkMergeGroup([agent(14, 'task_004')], specRuns({ task_001: 'in_review' }));
    expect(verdict).toEqual({
      ok: false,
      reason:
        '#14 (task_004) would land before its dependency task_002 (#12); ' +
        '#14 (task_004) would land before its dependency task_003 (#13)',
    });
  });

  it('ignores non-agent PRs around agent ones', () => {
    expect(
      checkMergeGroup([{ number: 1 }, agent(12, 'task_002'), { number: 2 }], specRuns()),
    ).toEqual({ ok: true });
  });

  it('keeps runs apart: the same task id in another run is not the dep', () => {
    const runs = specRuns();
    runs.set('r2', runs.get('r1') as MergeGroupRun);
    expect(
      checkMergeGroup(
        [agent(21, 'task_002', 'r2'), agent(22, 'task_004', 'r1'), agent(23, 'task_003', 'r1')],
        runs,
      ).ok,
    ).toBe(false);
  });

  it('fails a vetoed task', () => {
    expect(checkMergeGroup([agent(12, 'task_002')], specRuns({ task_002: 'vetoed' }))).toEqual({
      ok: false,
      reason: '#12 (task_002) is vetoed',
    });
  });

  // Approved at the head the group took in, but no longer awaiting its merge: a group GitHub
  // formed before the coordinator took the PR out of the queue would land it. A task merged
  // meanwhile (its earlier group landed) is none of these.
  it.each(['cancelled', 'failed', 'rejected', 'blocked', 'pending', 'running'] as const)(
    'fails a task that is %s, as its order check does',
    (state) => {
      expect(checkMergeGroup([agent(12, 'task_002')], specRuns({ task_002: state }))).toEqual({
        ok: false,
        reason: `#12 (task_002) is ${state}`,
      });
    },
  );

  it('passes a task merged meanwhile', () => {
    expect(checkMergeGroup([agent(12, 'task_002')], specRuns({ task_002: 'merged' }))).toEqual({
      ok: true,
    });
  });

  it('fails an agent PR whose approval is not for the head the group took in', () => {
    const older = 'abc1234'.padEnd(40, '0');
    expect(checkMergeGroup([agent(12, 'task_002', 'r1', older)], specRuns())).toEqual({
      ok: false,
      reason: '#12 (task_002) is approved at def5678, not at its head abc1234',
    });
    const runs = specRuns();
    const r1 = runs.get('r1')!;
    const unapproved = r1.tasks.map((t) => ({ ...t, approvedSha: undefined }));
    runs.set('r1', { ...r1, tasks: unapproved });
    expect(checkMergeGroup([agent(12, 'task_002')], runs)).toEqual({
      ok: false,
      reason: '#12 (task_002) is not approved (head def5678)',
    });
    expect(checkMergeGroup([{ number: 12, taskId: 'task_002', runKey: 'r1' }], specRuns())).toEqual(
      {
        ok: false,
        reason: '#12 (task_002) has a head that could not be read',
      },
    );
    // Without merge.requireApproval, order is all that counts.
    runs.set('r1', { tasks: unapproved, requireApproval: false });
    expect(checkMergeGroup([agent(12, 'task_002', 'r1', older)], runs)).toEqual({ ok: true });
  });

  it('fails closed for an agent PR of an unknown run or task', () => {
    expect(checkMergeGroup([agent(12, 'task_002', 'gone')], specRuns())).toEqual({
      ok: false,
      reason: '#12 (task_002) belongs to no known run task',
    });
    expect(checkMergeGroup([agent(15, 'task_005')], specRuns()).ok).toBe(false);
    expect(checkMergeGroup([{ number: 15, taskId: 'task_002' }], specRuns()).ok).toBe(false);
  });

  it('names a dep without a PR by id only', () => {
    const runs = new Map<string, MergeGroupRun>([
      [
        'r1',
        {
          tasks: [groupTask({ taskId: 'a' }), groupTask({ taskId: 'b', deps: ['a'] })],
          requireApproval: true,
        },
      ],
    ]);
    expect(checkMergeGroup([agent(2, 'b')], runs)).toEqual({
      ok: false,
      reason: '#2 (b) would land before its dependency a',
    });
  });

  describe('an approval whose author lost write access since the PR was queued', () => {
    /** docs/tasks-block.md in run "r1", task_002 approved at HEAD by carol. */
    const approvedByCarol = (requireApproval = true) => {
      const runs = specRuns();
      const r1 = runs.get('r1')!;
      const tasks = r1.tasks.map((t) =>
        t.taskId === 'task_002' ? { ...t, approvedBy: 'Carol' } : t,
      );
      runs.set('r1', { tasks, requireApproval });
      return runs;
    };
    const standing = (s: ApproverStanding) => new Map([['carol', s]]);

    it.each<{ name: string; approvers: Map<string, ApproverStanding>; reason?: string }>([
      { name: 'still a writer: passes', approvers: standing('writer') },
      {
        name: 'no longer a writer: fails, naming them',
        approvers: standing('not_writer'),
        reason: '#12 (task_002) is approved by @Carol, who no longer has write access',
      },
      {
        name: 'GitHub did not say: fails closed',
        approvers: standing('unknown'),
        reason: '#12 (task_002) is approved by @Carol, whose write access could not be read',
      },
      {
        name: 'not read: fails closed',
        approvers: new Map(),
        reason: '#12 (task_002) is approved by @Carol, whose write access could not be read',
      },
    ])('$name', ({ approvers, reason }) => {
      expect(checkMergeGroup([agent(12, 'task_002')], approvedByCarol(), approvers)).toEqual(
        reason === undefined ? { ok: true } : { ok: false, reason },
      );
    });

    it('asks about approvals that count, only where approval is required', () => {
      expect(mergeGroupApproversToRead([agent(12, 'task_002')], approvedByCarol())).toEqual(
        new Set(['carol']),
      );
      // An approval of another head is the group's problem already; nobody to ask about.
      const older = 'abc1234'.padEnd(40, '0');
      expect(
        mergeGroupApproversToRead([agent(12, 'task_002', 'r1', older)], approvedByCarol()),
      ).toEqual(new Set());
      expect(mergeGroupApproversToRead([agent(12, 'task_002')], approvedByCarol(false))).toEqual(
        new Set(),
      );
      // An approval recorded before authors were counts as it did.
      expect(mergeGroupApproversToRead([agent(13, 'task_003')], approvedByCarol())).toEqual(
        new Set(),
      );
      expect(checkMergeGroup([agent(13, 'task_003')], approvedByCarol())).toEqual({ ok: true });
      expect(
        checkMergeGroup([agent(12, 'task_002')], approvedByCarol(false), standing('not_writer')),
      ).toEqual({ ok: true });
    });
  });
});
