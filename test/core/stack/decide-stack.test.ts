import { describe, expect, it } from 'vitest';
import {
  decideStacks,
  isDispatchReady,
  parentMovesToCheck,
  stackParentHeads,
  stackedOnText,
  type StackSnapshot,
  type StackTask,
} from '../../../src/core/stack/index.js';

function task(taskId: string, over: Partial<StackTask> = {}): StackTask {
  return { taskId, deps: [], state: 'pending', held: false, vetoed: false, attempts: 0, ...over };
}

const branchOf = (id: string) => `agent/7/${id}`;

function snapshot(over: Partial<StackSnapshot>): StackSnapshot {
  return { base: 'main', branchOf, tasks: [], pulls: [], greenHeads: new Set(), ...over };
}

const parentPr = { taskId: 'task_001', number: 12, headSha: 'aaa', baseRef: 'main' };
const onParent = { parent: 'task_001', pr: 12, head: 'aaa' };

describe('isDispatchReady', () => {
  it.each([
    [0, null, true],
    [0, 'task_001', true],
    [1, null, false],
    [1, 'task_001', true],
    [2, 'task_001', false],
  ] as const)('unmet %i, stack parent %s → %s', (unmetDeps, stackParent, ready) => {
    expect(isDispatchReady({ unmetDeps, stackParent })).toBe(ready);
  });
});

describe('decideStacks: permits', () => {
  const child = task('task_002', { deps: ['task_001'] });
  it.each<[string, Partial<StackTask>, boolean, boolean]>([
    ['parent in review, checks green', { state: 'in_review' }, true, true],
    ['parent approved, checks green', { state: 'approved' }, true, true],
    ['parent merging, checks green', { state: 'merging' }, true, true],
    ['checks not green', { state: 'in_review' }, false, false],
    ['parent sent back (pending)', { state: 'pending' }, true, false],
    ['parent running', { state: 'running' }, true, false],
    ['parent held', { state: 'in_review', held: true }, true, false],
    ['parent vetoed', { state: 'in_review', vetoed: true }, true, false],
  ])('%s', (_, parent, green, permitted) => {
    const decisions = decideStacks(
      snapshot({
        tasks: [task('task_001', parent), child],
        pulls: [parentPr],
        greenHeads: new Set(green ? ['aaa'] : []),
      }),
    );
    expect(decisions).toEqual(
      permitted ? [{ kind: 'permit', task: 'task_002', on: onParent }] : [],
    );
  });

  it('never stacks a diamond join on two parents', () => {
    const s = snapshot({
      tasks: [
        task('task_001', { state: 'merged' }),
        task('task_002', { state: 'in_review', deps: ['task_001'] }),
        task('task_003', { state: 'in_review', deps: ['task_001'] }),
        task('task_004', { deps: ['task_002', 'task_003'] }),
      ],
      pulls: [
        { taskId: 'task_002', number: 13, headSha: 'b', baseRef: 'main' },
        { taskId: 'task_003', number: 14, headSha: 'c', baseRef: 'main' },
      ],
      greenHeads: new Set(['b', 'c']),
    });
    expect(decideStacks(s)).toEqual([]);
    expect(stackParentHeads(s)).toEqual([]);
  });

  it('stacks on a parent that is itself stacked (a chain)', () => {
    const s = snapshot({
      tasks: [
        task('task_001', { state: 'in_review' }),
        task('task_002', {
          state: 'in_review',
          deps: ['task_001'],
          attempts: 1,
          stackedOn: onParent,
        }),
        task('task_003', { deps: ['task_002'] }),
      ],
      pulls: [
        parentPr,
        { taskId: 'task_002', number: 13, headSha: 'b', baseRef: branchOf('task_001') },
      ],
      greenHeads: new Set(['aaa', 'b']),
    });
    expect(decideStacks(s)).toEqual([
      { kind: 'permit', task: 'task_003', on: { parent: 'task_002', pr: 13, head: 'b' } },
    ]);
  });

  it('asks for the checks of stackable parents only', () => {
    expect(
      stackParentHeads({
        tasks: [task('task_001', { state: 'in_review' }), task('task_002', { deps: ['task_001'] })],
        pulls: [parentPr],
      }),
    ).toEqual(['aaa']);
  });

  it('moves a permit to the parent’s new green head, and revokes it when the parent is reworked', () => {
    const stacked = task('task_002', { deps: ['task_001'], stackedOn: onParent });
    expect(
      decideStacks(
        snapshot({
          tasks: [task('task_001', { state: 'in_review' }), stacked],
          pulls: [{ ...parentPr, headSha: 'bbb' }],
          greenHeads: new Set(['bbb']),
        }),
      ),
    ).toEqual([{ kind: 'permit', task: 'task_002', on: { ...onParent, head: 'bbb' } }]);
    expect(
      decideStacks(
        snapshot({ tasks: [task('task_001', { state: 'pending' }), stacked], pulls: [parentPr] }),
      ),
    ).toEqual([{ kind: 'revoke', task: 'task_002' }]);
  });
});

describe('decideStacks: a started child follows its parent', () => {
  const child = (over: Partial<StackTask> = {}) =>
    task('task_002', { deps: ['task_001'], attempts: 1, stackedOn: onParent, ...over });
  const childPr = { taskId: 'task_002', number: 13, headSha: 'c1', baseRef: branchOf('task_001') };

  it('restacks a child in review when the parent’s head moved', () => {
    expect(
      decideStacks(
        snapshot({
          tasks: [task('task_001', { state: 'in_review' }), child({ state: 'in_review' })],
          pulls: [{ ...parentPr, headSha: 'a2' }, childPr],
        }),
      ),
    ).toEqual([
      { kind: 'restack', task: 'task_002', pr: 13, expectedHeadSha: 'c1', parentHead: 'a2' },
    ]);
  });

  it('names the parent moves a restack would bring in, and nothing else, for the engine to check', () => {
    const moved = { ...parentPr, headSha: 'a2' };
    const inReview = [task('task_001', { state: 'in_review' }), child({ state: 'in_review' })];
    expect(parentMovesToCheck(snapshot({ tasks: inReview, pulls: [moved, childPr] }))).toEqual([
      { from: 'aaa', to: 'a2' },
    ]);
    // No restack due: the head is the one recorded, the child is at work, or the parent's head
    // moved only by the coordinator's update from the base.
    expect(parentMovesToCheck(snapshot({ tasks: inReview, pulls: [parentPr, childPr] }))).toEqual(
      [],
    );
    const working = [task('task_001', { state: 'in_review' }), child({ state: 'running' })];
    expect(parentMovesToCheck(snapshot({ tasks: working, pulls: [moved, childPr] }))).toEqual([]);
    const updated = { ...moved, updatedFrom: 'aaa', updatedTo: 'a2' };
    expect(parentMovesToCheck(snapshot({ tasks: inReview, pulls: [updated, childPr] }))).toEqual(
      [],
    );
  });

  it.each<[string, Partial<StackTask>, object | undefined]>([
    ['approved, in review', { state: 'approved', approved: true }, { move: 'approval withdrawn' }],
    [
      'approved for an older head',
      { state: 'in_review', approved: true },
      { move: 'approval withdrawn' },
    ],
    ['not approved', { state: 'in_review' }, undefined],
  ])(
    'restacks a child whose parent’s branch was rewritten, telling it and withdrawing an approval (%s)',
    (_, over, withdrawApproval) => {
      const [decision] = decideStacks(
        snapshot({
          tasks: [task('task_001', { state: 'in_review' }), child(over)],
          pulls: [{ ...parentPr, headSha: 'a2' }, childPr],
          droppedParentHeads: new Set(['aaa']),
        }),
      );
      expect(decision).toMatchObject({
        kind: 'restack',
        parentHead: 'a2',
        parentRewritten: {
          from: 'aaa',
          to: 'a2',
          comment: { marker: '<!-- agent-coordinator:parent-rewritten head=a2 -->' },
        },
      });
      const rewritten = decision?.kind === 'restack' ? decision.parentRewritten : undefined;
      expect(rewritten?.withdrawApproval).toEqual(withdrawApproval);
      expect(rewritten?.comment.body.includes('Its approval is withdrawn')).toBe(
        withdrawApproval !== undefined,
      );
      expect(rewritten?.comment.body).toContain('task_001 (agent/7/task_001)');
    },
  );

  it('only records the parent’s head when the coordinator updated the parent from the base', () => {
    const tasks = [task('task_001', { state: 'in_review' }), child({ state: 'in_review' })];
    const updated = { ...parentPr, headSha: 'a2', updatedFrom: 'aaa', updatedTo: 'a2' };
    expect(decideStacks(snapshot({ tasks, pulls: [updated, childPr] }))).toEqual([
      { kind: 'keep', task: 'task_002', parentHead: 'a2' },
    ]);
    // Another commit pushed from the head the update started from (a look-alike of its merge):
    // new work of the parent, followed.
    const lookAlike = { ...updated, headSha: 'a3' };
    expect(decideStacks(snapshot({ tasks, pulls: [lookAlike, childPr] }))).toEqual([
      { kind: 'restack', task: 'task_002', pr: 13, expectedHeadSha: 'c1', parentHead: 'a3' },
    ]);
    // Updated from its own stack parent (a restack brought that parent's work): followed.
    const restacked = { ...updated, baseRef: branchOf('task_000') };
    expect(decideStacks(snapshot({ tasks, pulls: [restacked, childPr] }))).toEqual([
      { kind: 'restack', task: 'task_002', pr: 13, expectedHeadSha: 'c1', parentHead: 'a2' },
    ]);
    // New work after the update (the update was from an older head): followed.
    const fixed = { ...updated, updatedFrom: 'a0' };
    expect(decideStacks(snapshot({ tasks, pulls: [fixed, childPr] }))).toEqual([
      { kind: 'restack', task: 'task_002', pr: 13, expectedHeadSha: 'c1', parentHead: 'a2' },
    ]);
  });

  it('does not restack a child whose update GitHub refused the App at its head, until its head moves', () => {
    const tasks = [task('task_001', { state: 'in_review' }), child({ state: 'in_review' })];
    const parentMoved = { ...parentPr, headSha: 'a2' };
    expect(
      decideStacks(
        snapshot({ tasks, pulls: [parentMoved, { ...childPr, updateRefusedSha: 'c1' }] }),
      ),
    ).toEqual([]);
    // A person's push (the parent's branch merged in) moved the child's head.
    expect(
      decideStacks(
        snapshot({
          tasks,
          pulls: [parentMoved, { ...childPr, headSha: 'c2', updateRefusedSha: 'c1' }],
        }),
      ),
    ).toEqual([
      { kind: 'restack', task: 'task_002', pr: 13, expectedHeadSha: 'c2', parentHead: 'a2' },
    ]);
  });

  it.each(['running', 'dispatched', 'pending'] as const)('waits while the child is %s', (state) => {
    expect(
      decideStacks(
        snapshot({
          tasks: [task('task_001', { state: 'in_review' }), child({ state })],
          pulls: [{ ...parentPr, headSha: 'a2' }, childPr],
        }),
      ),
    ).toEqual([]);
  });

  it('does nothing while the parent’s head is the one recorded', () => {
    expect(
      decideStacks(
        snapshot({
          tasks: [task('task_001', { state: 'approved' }), child({ state: 'approved' })],
          pulls: [parentPr, childPr],
        }),
      ),
    ).toEqual([]);
  });

  it('retargets the child to the base once the parent merged', () => {
    expect(
      decideStacks(
        snapshot({
          tasks: [task('task_001', { state: 'merged' }), child({ state: 'in_review' })],
          pulls: [childPr],
        }),
      ),
    ).toEqual([
      {
        kind: 'retarget',
        task: 'task_002',
        pr: 13,
        to: 'main',
        expectedHeadSha: 'c1',
        update: true,
        unstacks: true,
      },
    ]);
  });

  it('retargets without updating the child whose update GitHub refused the App at its head', () => {
    const [decision] = decideStacks(
      snapshot({
        tasks: [task('task_001', { state: 'merged' }), child({ state: 'in_review' })],
        pulls: [{ ...childPr, updateRefusedSha: 'c1' }],
      }),
    );
    expect(decision).toMatchObject({ kind: 'retarget', to: 'main', update: false, unstacks: true });
  });

  it('forgets the stack without updating when GitHub retargeted a child refused its update', () => {
    expect(
      decideStacks(
        snapshot({
          tasks: [task('task_001', { state: 'merged' }), child({ state: 'approved' })],
          pulls: [{ ...childPr, baseRef: 'main', updateRefusedSha: 'c1' }],
        }),
      ),
    ).toEqual([{ kind: 'unstack', task: 'task_002', pr: 13 }]);
  });

  it('points a PR a cancelled stack had moved to the base back at its parent when stacked anew', () => {
    expect(
      decideStacks(
        snapshot({
          tasks: [
            task('task_001', { state: 'in_review' }),
            child({ state: 'pending', attempts: 2 }),
          ],
          pulls: [parentPr, { ...childPr, baseRef: 'main' }],
        }),
      ),
    ).toEqual([
      {
        kind: 'retarget',
        task: 'task_002',
        pr: 13,
        to: branchOf('task_001'),
        expectedHeadSha: 'c1',
        update: false,
        unstacks: false,
      },
    ]);
  });

  it('leaves a PR opened on the base alone while the parent’s PR is closed and its merge not recorded yet', () => {
    // The parent's branch was deleted at its merge, so the child's worker opened its PR on the
    // base; the parent's own PR is no longer open. Once the merge is recorded: unstack.
    expect(
      decideStacks(
        snapshot({
          tasks: [task('task_001', { state: 'merging' }), child({ state: 'in_review' })],
          pulls: [{ ...childPr, baseRef: 'main' }],
        }),
      ),
    ).toEqual([]);
  });

  it('retargets without updating while a worker of the child is out', () => {
    const [decision] = decideStacks(
      snapshot({
        tasks: [task('task_001', { state: 'merged' }), child({ state: 'running' })],
        pulls: [childPr],
      }),
    );
    expect(decision).toMatchObject({ kind: 'retarget', update: false });
  });

  it('updates and forgets the stack when GitHub already retargeted the PR', () => {
    expect(
      decideStacks(
        snapshot({
          tasks: [task('task_001', { state: 'merged' }), child({ state: 'approved' })],
          pulls: [{ ...childPr, baseRef: 'main' }],
        }),
      ),
    ).toEqual([{ kind: 'unstack', task: 'task_002', pr: 13, expectedHeadSha: 'c1' }]);
  });

  it('forgets the stack without updating a PR someone pointed at another branch than the base', () => {
    expect(
      decideStacks(
        snapshot({
          tasks: [task('task_001', { state: 'merged' }), child({ state: 'approved' })],
          pulls: [{ ...childPr, baseRef: 'release' }],
        }),
      ),
    ).toEqual([{ kind: 'unstack', task: 'task_002', pr: 13 }]);
  });

  it.each<[string, Partial<StackTask>, string, object | undefined]>([
    [
      'approved, GitHub retargeted it',
      { state: 'approved', approved: true },
      'main',
      { move: 'approval withdrawn' },
    ],
    [
      'approved, on the parent’s branch',
      { state: 'approved', approved: true },
      branchOf('task_001'),
      { move: 'approval withdrawn' },
    ],
    [
      'approved while its worker is out',
      { state: 'running', approved: true },
      branchOf('task_001'),
      {},
    ],
    ['not approved', { state: 'in_review' }, 'main', undefined],
  ])(
    'tells a child whose parent merged at a head it never took in, withdrawing an approval (%s)',
    (_, over, baseRef, withdrawApproval) => {
      const [decision] = decideStacks(
        snapshot({
          tasks: [task('task_001', { state: 'merged' }), child(over)],
          pulls: [{ ...childPr, baseRef }],
          mergedHeads: new Map([['task_001', { head: 'a2' }]]),
        }),
      );
      expect(decision).toMatchObject({
        kind: baseRef === 'main' ? 'unstack' : 'retarget',
        parentMergedUnseen: {
          from: 'aaa',
          to: 'a2',
          comment: { marker: '<!-- agent-coordinator:parent-merged-unseen head=a2 -->' },
        },
      });
      const unseen =
        decision?.kind === 'unstack' || decision?.kind === 'retarget'
          ? decision.parentMergedUnseen
          : undefined;
      expect(unseen?.withdrawApproval).toEqual(withdrawApproval);
      expect(unseen?.comment.body.includes('Its approval is withdrawn')).toBe(
        withdrawApproval !== undefined,
      );
    },
  );

  it('says nothing more when the parent merged at the head the child last took in', () => {
    const [decision] = decideStacks(
      snapshot({
        tasks: [
          task('task_001', { state: 'merged' }),
          child({ state: 'approved', approved: true }),
        ],
        pulls: [childPr],
        mergedHeads: new Map([['task_001', { head: 'aaa' }]]),
      }),
    );
    expect(decision).toMatchObject({ kind: 'retarget' });
    expect(decision).not.toHaveProperty('parentMergedUnseen');
  });

  it('says nothing when the parent merged at the head its coordinator’s update made from the one the child took in', () => {
    const decide = (updatedFrom: string, updatedTo = 'a2') =>
      decideStacks(
        snapshot({
          tasks: [
            task('task_001', { state: 'merged' }),
            child({ state: 'approved', approved: true }),
          ],
          pulls: [childPr],
          mergedHeads: new Map([['task_001', { head: 'a2', updatedFrom, updatedTo }]]),
        }),
      )[0];
    // The `keep` never ran: the update's push and the merge were handled in one turn.
    expect(decide('aaa')).not.toHaveProperty('parentMergedUnseen');
    // Updated from another head: the move from the recorded head was not the update alone.
    expect(decide('a1')).toHaveProperty('parentMergedUnseen');
    // Merged at a commit other than the update's own merge: not the update alone either.
    expect(decide('aaa', 'a3')).toHaveProperty('parentMergedUnseen');
  });

  it('forgets the stack of a child with no PR once the parent merged, unless its worker is out', () => {
    const tasks = (state: StackTask['state']) => [
      task('task_001', { state: 'merged' }),
      child({ state }),
    ];
    expect(decideStacks(snapshot({ tasks: tasks('pending') }))).toEqual([
      { kind: 'unstack', task: 'task_002' },
    ]);
    expect(decideStacks(snapshot({ tasks: tasks('running') }))).toEqual([]);
  });

  it.each(['vetoed', 'rejected', 'failed', 'cancelled', 'blocked'] as const)(
    'cancels the child when the parent is %s',
    (state) => {
      expect(
        decideStacks(
          snapshot({
            tasks: [task('task_001', { state }), child({ state: 'in_review' })],
            pulls: [childPr],
          }),
        ),
      ).toEqual([
        { kind: 'cancel', task: 'task_002', parent: 'task_001', pr: 13, retargetTo: 'main' },
      ]);
    },
  );

  it('takes back the approval of a child it cancels: it covered the diff against the parent', () => {
    expect(
      decideStacks(
        snapshot({
          tasks: [
            task('task_001', { state: 'vetoed' }),
            child({ state: 'approved', approved: true }),
          ],
          pulls: [childPr],
        }),
      ),
    ).toEqual([
      {
        kind: 'cancel',
        task: 'task_002',
        parent: 'task_001',
        pr: 13,
        retargetTo: 'main',
        withdrawApproval: true,
      },
    ]);
  });

  it('cancels on a /veto not yet reflected in the state, and a child with no PR', () => {
    expect(
      decideStacks(
        snapshot({
          tasks: [
            task('task_001', { state: 'in_review', vetoed: true }),
            child({ state: 'running' }),
          ],
        }),
      ),
    ).toEqual([{ kind: 'cancel', task: 'task_002', parent: 'task_001' }]);
  });

  it('leaves a merged child alone', () => {
    expect(
      decideStacks(
        snapshot({ tasks: [task('task_001', { state: 'merged' }), child({ state: 'merged' })] }),
      ),
    ).toEqual([]);
  });
});

it('names the stack as the order check and the status comment say it', () => {
  expect(stackedOnText(onParent)).toBe('stacked on task_001 (#12)');
});
