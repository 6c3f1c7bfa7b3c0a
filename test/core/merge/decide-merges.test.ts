import { describe, expect, it } from 'vitest';
import {
  decideMerges,
  type MergeDecision,
  type MergePull,
  type MergeSnapshot,
  type MergeTask,
  type WaitReasonKind,
} from '../../../src/core/merge/index.js';
import { check, HEAD, OLD, pr, snapshot, specRun, task } from './builders.js';

interface Row {
  name: string;
  task?: Partial<MergeTask>;
  pull?: Partial<MergePull>;
  snap?: Partial<MergeSnapshot>;
  expected: Partial<MergeDecision>;
}

/** The decision for a run of one task with one PR (#1). */
function decideOne(row: Omit<Row, 'name' | 'expected'>): MergeDecision {
  const decisions = decideMerges(
    snapshot({ tasks: [task(row.task)], pulls: [pr(row.pull)], ...row.snap }),
  );
  expect(decisions).toHaveLength(1);
  return decisions[0] as MergeDecision;
}

const waitFor = (reason: WaitReasonKind, detail?: string): Partial<MergeDecision> =>
  detail === undefined ? { kind: 'wait', reason } : { kind: 'wait', reason, detail };

describe('decideMerges: one PR', () => {
  it.each<Row>([
    // Ready: GitHub says it can merge.
    {
      name: 'clean, approved, green',
      expected: { kind: 'merge', pr: 1, taskId: 'task_001', sha: HEAD, method: 'squash' },
    },
    { name: 'unstable', pull: { mergeableState: 'unstable' }, expected: { kind: 'merge' } },
    { name: 'has_hooks', pull: { mergeableState: 'has_hooks' }, expected: { kind: 'merge' } },
    { name: 'merge method', snap: { mergeMethod: 'rebase' }, expected: { method: 'rebase' } },
    {
      name: 'neutral and skipped checks are green',
      pull: {
        checks: [check({ conclusion: 'neutral' }), check({ name: 'lint', conclusion: 'skipped' })],
      },
      expected: { kind: 'merge' },
    },
    {
      name: 'behind is updated first',
      pull: { mergeableState: 'behind' },
      expected: { kind: 'update_branch', pr: 1, expectedHeadSha: HEAD },
    },
    {
      name: 'behind, and GitHub refused the App its update at this head: waits for a person',
      pull: {
        mergeableState: 'behind',
        updateRefusedSha: HEAD,
        updateRefusedMessage: 'refusing to allow a GitHub App to create or update workflow x.yml',
      },
      expected: waitFor(
        'update_refused',
        'GitHub would not let the App bring the branch up to date with main at def5678: refusing to allow a GitHub App to create or update workflow x.yml; merge main into it',
      ),
    },
    {
      name: 'behind, the update refused at an older head: a push moved it, updated again',
      pull: { mergeableState: 'behind', updateRefusedSha: OLD, updateRefusedMessage: 'no' },
      expected: { kind: 'update_branch', pr: 1, expectedHeadSha: HEAD },
    },
    {
      name: 'still stacked on a parent that merged: waits for the stack to retarget it',
      task: { stackedOn: { parent: 'task_000', pr: 9 } },
      expected: waitFor(
        'deps_unmerged',
        'stacked on task_000 (#9), which merged: waiting to be retargeted',
      ),
    },
    {
      // docs/lifecycle.md "Which base counts": a person retargeted it; merged there, its change
      // would miss main while its task counted as merged.
      name: "retargeted off the run's base: waits, however ready",
      pull: { baseRef: 'release' },
      expected: waitFor(
        'off_base',
        "targets release, not the run's base main: retarget it to main to merge",
      ),
    },
    {
      name: "retargeted off the run's base and behind: not updated against the other branch",
      pull: { baseRef: 'release', mergeableState: 'behind' },
      snap: { mergeQueue: true },
      expected: waitFor('off_base'),
    },
    {
      name: 'the update refused at this head, yet clean: it merges',
      pull: { updateRefusedSha: HEAD, updateRefusedMessage: 'no' },
      expected: { kind: 'merge', sha: HEAD },
    },

    // Merge queue.
    {
      name: 'queue: clean is enqueued with the head guard',
      snap: { mergeQueue: true },
      expected: { kind: 'enqueue', pr: 1, taskId: 'task_001', expectedHeadOid: HEAD },
    },
    {
      name: 'queue: behind is enqueued (the queue builds on the latest base)',
      snap: { mergeQueue: true },
      pull: { mergeableState: 'behind' },
      expected: { kind: 'enqueue' },
    },
    {
      name: 'queue: blocked is enqueued (the queue enforces the rules)',
      snap: { mergeQueue: true },
      pull: { mergeableState: 'blocked' },
      expected: { kind: 'enqueue' },
    },
    {
      name: 'queue: already queued',
      snap: { mergeQueue: true },
      pull: { inMergeQueue: true },
      expected: waitFor('in_queue', 'in the merge queue'),
    },
    {
      name: 'queue: queued unapproved with no approval required stays',
      snap: { mergeQueue: true, requireApproval: false },
      task: { state: 'merging', approvedSha: undefined },
      pull: { inMergeQueue: true },
      expected: waitFor('in_queue', 'in the merge queue'),
    },
    {
      name: 'queue: dirty still goes back to the worker',
      snap: { mergeQueue: true },
      pull: { mergeableState: 'dirty' },
      expected: { kind: 'send_back_to_worker' },
    },
    {
      name: 'queue: pending checks still wait',
      snap: { mergeQueue: true },
      pull: { checks: [check({ status: 'in_progress', conclusion: null })] },
      expected: waitFor('checks_pending'),
    },

    // Approval.
    {
      name: 'no approval',
      task: { approvedSha: undefined },
      expected: waitFor('not_approved', 'waiting for /approve or an approving review'),
    },
    {
      name: 'approval of an older head',
      task: { approvedSha: OLD },
      expected: waitFor(
        'approval_stale',
        'approved abc1234 but head is def5678: new work pushed after approval needs approval again',
      ),
    },
    {
      name: "the coordinator's update of the approved head: waits until its push is seen",
      task: { approvedSha: OLD },
      pull: { updatedByCoordinatorFrom: OLD },
      expected: waitFor(
        'update_pending',
        "updated with main; waiting for the update's push to abc1234…",
      ),
    },
    {
      name: "the coordinator's update asked for, GitHub's head not moved yet",
      task: { approvedSha: HEAD },
      pull: { updatedByCoordinatorFrom: HEAD, mergeableState: 'behind' },
      expected: waitFor('update_pending'),
    },
    {
      name: "the update's push seen: the approval moved to its head",
      task: { approvedSha: HEAD },
      pull: { updatedByCoordinatorFrom: OLD },
      expected: { kind: 'merge', sha: HEAD },
    },
    {
      name: 'an update from some other SHA does not',
      task: { approvedSha: OLD },
      pull: { updatedByCoordinatorFrom: 'c0ffee0' },
      expected: waitFor('approval_stale'),
    },
    {
      name: 'approval not required',
      task: { approvedSha: undefined },
      snap: { requireApproval: false },
      expected: { kind: 'merge' },
    },
    {
      name: 'approval not required ignores a stale one',
      task: { approvedSha: OLD },
      snap: { requireApproval: false },
      expected: { kind: 'merge' },
    },

    // Checks.
    {
      name: 'a check still running',
      pull: { checks: [check(), check({ name: 'lint', status: 'queued', conclusion: null })] },
      expected: waitFor('checks_pending', 'checks pending: lint'),
    },
    {
      name: 'pending and failing: wait for all before sending back',
      pull: {
        checks: [
          check({ name: 'ci/slow', status: 'in_progress', conclusion: null }),
          check({ name: 'lint', conclusion: 'failure' }),
        ],
      },
      expected: waitFor('checks_pending', 'checks pending: ci/slow; failing: lint'),
    },
    {
      name: 'failing checks go back to the worker',
      pull: {
        checks: [
          check({ conclusion: 'failure' }),
          check({ name: 'lint', conclusion: 'timed_out' }),
          check({ name: 'docs' }),
        ],
      },
      expected: {
        kind: 'send_back_to_worker',
        pr: 1,
        taskId: 'task_001',
        mode: 'fix',
        feedback: 'Failing checks: ci/test, lint',
        failingChecks: ['ci/test', 'lint'],
      },
    },
    {
      name: 'failing checks, already sent back for this head',
      pull: { checks: [check({ conclusion: 'failure' })], sentBackForSha: HEAD },
      expected: waitFor(
        'checks_failing',
        'checks failing: ci/test (already sent back to the worker for def5678; /retry to try again)',
      ),
    },
    {
      name: 'failing checks on a new head go back again',
      pull: { checks: [check({ conclusion: 'failure' })], sentBackForSha: OLD },
      expected: { kind: 'send_back_to_worker' },
    },
    {
      name: 'a completed check without a conclusion fails closed',
      pull: { checks: [check({ conclusion: null })] },
      expected: { kind: 'send_back_to_worker', feedback: 'Failing checks: ci/test' },
    },
    {
      name: 'a check listed twice is named once',
      pull: { checks: [check({ conclusion: 'failure' }), check({ conclusion: 'failure' })] },
      expected: { feedback: 'Failing checks: ci/test' },
    },

    // Mergeability.
    {
      name: 'conflicts go back to the worker',
      pull: { mergeableState: 'dirty', mergeable: false, baseRef: 'develop' },
      snap: { runBase: 'develop' },
      expected: {
        kind: 'send_back_to_worker',
        mode: 'fix',
        feedback: 'The branch has conflicts with develop; merge develop into it and resolve them.',
      },
    },
    {
      name: 'conflicts, already sent back for this head',
      pull: { mergeableState: 'dirty', sentBackForSha: HEAD },
      expected: waitFor('conflicts'),
    },
    {
      name: 'conflicts come before pending checks (CI may never run on them)',
      pull: {
        mergeableState: 'dirty',
        checks: [check({ status: 'queued', conclusion: null })],
      },
      expected: { kind: 'send_back_to_worker' },
    },
    {
      name: 'mergeable not computed yet',
      pull: { mergeable: null },
      expected: waitFor('mergeability_unknown'),
    },
    {
      name: 'mergeable_state unknown',
      pull: { mergeableState: 'unknown' },
      expected: waitFor('mergeability_unknown'),
    },
    {
      name: 'a mergeable_state GitHub may add later',
      pull: { mergeableState: 'shiny' },
      expected: waitFor('mergeability_unknown', 'GitHub reports mergeable_state "shiny"'),
    },
    {
      name: 'blocked by branch protection',
      pull: { mergeableState: 'blocked' },
      expected: waitFor(
        'blocked_by_protection',
        'GitHub reports the PR blocked by branch protection (required reviews or checks)',
      ),
    },
    { name: 'draft PR', pull: { draft: true }, expected: waitFor('draft') },
    {
      name: 'draft mergeable_state',
      pull: { mergeableState: 'draft' },
      expected: waitFor('draft'),
    },

    // People and lifecycle.
    {
      name: 'held task',
      task: { held: true },
      expected: waitFor('held', 'held: /unhold on #1 resumes merging'),
    },
    {
      name: 'held run',
      snap: { runHeld: true },
      expected: waitFor('run_held', 'run held: /unhold on the issue resumes merging'),
    },
    { name: 'vetoed', task: { state: 'vetoed' }, expected: waitFor('vetoed', 'vetoed') },
    {
      name: 'vetoed with a reason',
      task: { state: 'vetoed', vetoReason: 'touches the billing code' },
      expected: waitFor('vetoed', 'vetoed: touches the billing code'),
    },
    { name: 'merge in flight', task: { state: 'merging' }, expected: waitFor('merging') },
    {
      name: 'merge in flight, task state not updated yet',
      snap: { inFlightPrs: [1] },
      expected: waitFor('merging', 'merge in flight'),
    },
    {
      name: 'approved state merges like in_review',
      task: { state: 'approved' },
      expected: { kind: 'merge' },
    },
    {
      name: 'a fix attempt is running on the branch',
      task: { state: 'running' },
      expected: waitFor('task_state', 'task_001 is running'),
    },
    {
      name: 'a PR whose task is not in the run',
      pull: { taskId: 'task_009' },
      expected: waitFor('task_state', 'no task task_009 in this run'),
    },

    // Which reason wins.
    {
      name: 'vetoed beats unmerged deps',
      task: { state: 'vetoed', deps: ['task_000'] },
      expected: waitFor('vetoed'),
    },
    {
      name: 'held beats not approved',
      task: { held: true, approvedSha: undefined },
      expected: waitFor('held'),
    },
    {
      name: 'no send-back before approval',
      task: { approvedSha: undefined },
      pull: { checks: [check({ conclusion: 'failure' })], mergeableState: 'dirty' },
      expected: waitFor('not_approved'),
    },
    {
      name: 'draft beats failing checks',
      pull: { draft: true, checks: [check({ conclusion: 'failure' })] },
      expected: waitFor('draft'),
    },
  ])('$name', ({ task: t, pull, snap, expected }) => {
    expect(decideOne({ task: t, pull, snap })).toMatchObject(expected);
  });

  it.each(['queued', 'in_progress', 'pending', 'waiting', 'requested'] as const)(
    'a check %s is pending',
    (status) => {
      expect(decideOne({ pull: { checks: [check({ status, conclusion: null })] } })).toMatchObject(
        waitFor('checks_pending', 'checks pending: ci/test'),
      );
    },
  );

  it.each([
    'pending',
    'dispatched',
    'running',
    'failed',
    'rejected',
    'blocked',
    'cancelled',
    'merged',
  ] as const)('a %s task does not merge', (state) => {
    expect(decideOne({ task: { state } })).toMatchObject(
      waitFor('task_state', `task_001 is ${state}`),
    );
  });

  it.each<Row>([
    {
      name: 'vetoed',
      task: { state: 'vetoed', vetoReason: 'no' },
      expected: { reason: 'vetoed', detail: 'vetoed: no' },
    },
    { name: 'held', task: { held: true }, expected: { reason: 'held' } },
    { name: 'run held', snap: { runHeld: true }, expected: { reason: 'run_held' } },
    {
      name: "retargeted off the run's base",
      snap: { runBase: 'release' },
      expected: { reason: 'off_base' },
    },
    { name: 'cancelled', task: { state: 'cancelled' }, expected: { reason: 'task_state' } },
    {
      // A writer asked for changes there: the task went back to its worker (docs/lifecycle.md).
      name: 'sent back to its worker',
      task: { state: 'pending' },
      expected: { reason: 'task_state', detail: 'task_001 is pending' },
    },
    {
      // A dismissed review empties the approval of a task the queue holds (docs/lifecycle.md).
      name: 'its approval was withdrawn',
      task: { state: 'merging', approvedSha: undefined },
      expected: {
        reason: 'not_approved',
        detail: 'its approval was withdrawn: waiting for /approve or an approving review',
      },
    },
  ])('leaves the merge queue when $name', ({ task: t, snap, expected }) => {
    expect(
      decideOne({ task: t, pull: { inMergeQueue: true }, snap: { mergeQueue: true, ...snap } }),
    ).toMatchObject({ kind: 'dequeue', pr: 1, taskId: 'task_001', ...expected });
  });
});

const summary = (decisions: MergeDecision[]) =>
  decisions.map((d) => (d.kind === 'wait' ? `#${d.pr} wait ${d.reason}` : `#${d.pr} ${d.kind}`));

describe('decideMerges: the docs/tasks-block.md plan', () => {
  it('merges task_001 first; the others wait for their deps by name and PR', () => {
    const decisions = decideMerges(specRun());
    expect(decisions).toEqual([
      { kind: 'merge', pr: 11, taskId: 'task_001', sha: HEAD, method: 'squash' },
      {
        kind: 'wait',
        pr: 12,
        taskId: 'task_002',
        reason: 'deps_unmerged',
        detail: 'waiting for task_001 (#11)',
      },
      {
        kind: 'wait',
        pr: 13,
        taskId: 'task_003',
        reason: 'deps_unmerged',
        detail: 'waiting for task_001 (#11)',
      },
      {
        kind: 'wait',
        pr: 14,
        taskId: 'task_004',
        reason: 'deps_unmerged',
        detail: 'waiting for task_002 (#12), task_003 (#13)',
      },
    ]);
  });

  it('after task_001 merged: task_002 merges, task_003 takes the next turn, task_004 waits', () => {
    expect(summary(decideMerges(specRun({ task_001: 'merged' })))).toEqual([
      '#12 merge',
      '#13 wait waiting_turn',
      '#14 wait deps_unmerged',
    ]);
    expect(decideMerges(specRun({ task_001: 'merged' }))[1]).toMatchObject({
      detail: '#12 merges into main first',
    });
  });

  it('with a merge queue, task_002 and task_003 are enqueued together', () => {
    expect(summary(decideMerges(specRun({ task_001: 'merged' }, { mergeQueue: true })))).toEqual([
      '#12 enqueue',
      '#13 enqueue',
      '#14 wait deps_unmerged',
    ]);
  });

  it('while task_002 merges, task_003 waits for the slot', () => {
    const decisions = decideMerges(specRun({ task_001: 'merged', task_002: 'merging' }));
    expect(summary(decisions)).toEqual([
      '#12 wait merging',
      '#13 wait waiting_turn',
      '#14 wait deps_unmerged',
    ]);
    expect(decisions[1]).toMatchObject({ detail: 'waiting for #12 to finish merging into main' });
  });

  it('task_004 waits for the one dep left, then merges', () => {
    const one = decideMerges(specRun({ task_001: 'merged', task_002: 'merged' }));
    expect(summary(one)).toEqual(['#13 merge', '#14 wait deps_unmerged']);
    expect(one[1]).toMatchObject({ detail: 'waiting for task_003 (#13)' });

    const other = decideMerges(specRun({ task_001: 'merged', task_003: 'merged' }));
    expect(other[1]).toMatchObject({ detail: 'waiting for task_002 (#12)' });

    const all = decideMerges(
      specRun({ task_001: 'merged', task_002: 'merged', task_003: 'merged' }),
    );
    expect(summary(all)).toEqual(['#14 merge']);
  });

  it('names a dep without an open PR by its recorded PR, and an unknown dep by id', () => {
    const run = specRun({ task_001: 'rejected' });
    const closed = decideMerges({
      ...run,
      pulls: run.pulls.filter((p) => p.taskId !== 'task_001'),
    });
    expect(closed[0]).toMatchObject({ pr: 12, detail: 'waiting for task_001 (#11)' });

    const ghost = decideMerges(snapshot({ tasks: [task({ deps: ['task_000'] })], pulls: [pr()] }));
    expect(ghost[0]).toMatchObject({ reason: 'deps_unmerged', detail: 'waiting for task_000' });
  });

  it('answers in dependency order, then PR number, whatever the listing order', () => {
    const tasks = [
      task({ taskId: 'task_004', deps: ['task_002', 'task_003'] }),
      task({ taskId: 'task_003', deps: ['task_001'] }),
      task({ taskId: 'task_002', deps: ['task_001'] }),
      task({ taskId: 'task_001' }),
    ];
    const pulls = [
      pr({ taskId: 'task_001', number: 40 }),
      pr({ taskId: 'task_004', number: 5 }),
      pr({ taskId: 'task_002', number: 31 }),
      pr({ taskId: 'task_003', number: 30 }),
    ];
    expect(decideMerges(snapshot({ tasks, pulls })).map((d) => d.pr)).toEqual([40, 30, 31, 5]);
  });
});

describe('decideMerges: one merge slot per base branch', () => {
  const two = (
    first: Partial<MergePull>,
    second: Partial<MergePull>,
    extra: Partial<MergeSnapshot> = {},
  ) =>
    decideMerges(
      snapshot({
        tasks: [task({ taskId: 'a' }), task({ taskId: 'b' })],
        pulls: [
          pr({ taskId: 'a', number: 1, ...first }),
          pr({ taskId: 'b', number: 2, ...second }),
        ],
        ...extra,
      }),
    );

  it('merges a clean PR before updating a behind one', () => {
    const decisions = two({ mergeableState: 'behind' }, {});
    expect(summary(decisions)).toEqual(['#1 wait waiting_turn', '#2 merge']);
    expect(decisions[0]).toMatchObject({ detail: '#2 merges into main first' });
  });

  it('updates the next behind PR while GitHub refuses the App the first one’s update', () => {
    const decisions = two(
      { mergeableState: 'behind', updateRefusedSha: HEAD, updateRefusedMessage: 'no' },
      { mergeableState: 'behind' },
    );
    expect(summary(decisions)).toEqual(['#1 wait update_refused', '#2 update_branch']);
  });

  it('updates one behind PR at a time', () => {
    const decisions = two({ mergeableState: 'behind' }, { mergeableState: 'behind' });
    expect(summary(decisions)).toEqual(['#1 update_branch', '#2 wait waiting_turn']);
    expect(decisions[1]).toMatchObject({ detail: '#1 is being updated with main first' });
  });

  it('does not update another branch while an updated one runs its checks', () => {
    const decisions = two(
      {
        updatedByCoordinatorFrom: OLD,
        checks: [check({ status: 'in_progress', conclusion: null })],
      },
      { mergeableState: 'behind' },
    );
    expect(summary(decisions)).toEqual(['#1 wait checks_pending', '#2 wait waiting_turn']);
    expect(decisions[1]).toMatchObject({
      detail: 'waiting for #1 (updated with main, checks running) to merge first',
    });
  });

  it('does not update another branch while an update waits for its push', () => {
    const decisions = two(
      { updatedByCoordinatorFrom: HEAD, mergeableState: 'behind' },
      { mergeableState: 'behind' },
    );
    expect(summary(decisions)).toEqual(['#1 wait update_pending', '#2 wait waiting_turn']);
  });

  it('still merges a clean PR while an updated one runs its checks', () => {
    const decisions = two({ updatedByCoordinatorFrom: OLD, mergeable: null }, {});
    expect(summary(decisions)).toEqual(['#1 wait mergeability_unknown', '#2 merge']);
  });

  it('waits while another run of the repository holds the base branch', () => {
    const merging = two(
      {},
      {},
      {
        slotsHeldElsewhere: [{ baseRef: 'main', pr: 90, kind: 'merging' }],
      },
    );
    expect(summary(merging)).toEqual(['#1 wait waiting_turn', '#2 wait waiting_turn']);
    expect(merging[0]).toMatchObject({
      detail: 'waiting for #90 (another run) to finish merging into main',
    });
    // Another base's slot holds nothing of this one.
    const elsewhere = two(
      {},
      {},
      {
        slotsHeldElsewhere: [{ baseRef: 'release', pr: 90, kind: 'merging' }],
      },
    );
    expect(summary(elsewhere)).toEqual(['#1 merge', '#2 wait waiting_turn']);
    const updated = two(
      { mergeableState: 'behind' },
      { mergeableState: 'behind' },
      {
        slotsHeldElsewhere: [{ baseRef: 'main', pr: 91, kind: 'updated' }],
      },
    );
    expect(summary(updated)).toEqual(['#1 wait waiting_turn', '#2 wait waiting_turn']);
    expect(updated[1]).toMatchObject({
      detail: 'waiting for #91 (another run, updated with main) to merge first',
    });
  });

  it("still merges a clean PR while another run's updated branch runs its checks, as its own would", () => {
    const decisions = two(
      { mergeableState: 'behind' },
      {},
      {
        slotsHeldElsewhere: [{ baseRef: 'main', pr: 91, kind: 'updated' }],
      },
    );
    expect(summary(decisions)).toEqual(['#1 wait waiting_turn', '#2 merge']);
    expect(decisions[0]).toMatchObject({ detail: '#2 merges into main first' });
    // While a merge of another run is in flight, nothing merges.
    const merging = two(
      { mergeableState: 'behind' },
      {},
      {
        slotsHeldElsewhere: [
          { baseRef: 'main', pr: 91, kind: 'updated' },
          { baseRef: 'main', pr: 90, kind: 'merging' },
        ],
      },
    );
    expect(summary(merging)).toEqual(['#1 wait waiting_turn', '#2 wait waiting_turn']);
    expect(merging[1]).toMatchObject({
      detail: 'waiting for #90 (another run) to finish merging into main',
    });
  });

  it('does not let a slot held elsewhere stop what is not a merge or an update', () => {
    const decisions = two(
      { mergeable: null },
      { draft: true },
      {
        slotsHeldElsewhere: [{ baseRef: 'main', pr: 90, kind: 'merging' }],
      },
    );
    expect(summary(decisions)).toEqual(['#1 wait mergeability_unknown', '#2 wait draft']);
  });

  it('leaves the slot to the base’s own PR when one was retargeted to another branch', () => {
    expect(summary(two({ baseRef: 'release' }, {}))).toEqual(['#1 wait off_base', '#2 merge']);
  });

  it('a send-back does not take the slot', () => {
    expect(summary(two({ mergeableState: 'dirty' }, {}))).toEqual([
      '#1 send_back_to_worker',
      '#2 merge',
    ]);
  });

  it('a merge listed in flight blocks the slot even if its task state lags', () => {
    expect(summary(two({}, {}, { inFlightPrs: [1] }))).toEqual([
      '#1 wait merging',
      '#2 wait waiting_turn',
    ]);
  });

  it('a queued PR does not block direct merges of the base', () => {
    expect(summary(two({ inMergeQueue: true }, {}))).toEqual(['#1 wait in_queue', '#2 merge']);
  });
});

describe('decideMerges: odd listings', () => {
  it('gives a second PR of one task a wait, and only the task PR can act', () => {
    const decisions = decideMerges(snapshot({ pulls: [pr({ number: 7 }), pr({ number: 3 })] }));
    expect(decisions).toEqual([
      { kind: 'merge', pr: 3, taskId: 'task_001', sha: HEAD, method: 'squash' },
      {
        kind: 'wait',
        pr: 7,
        taskId: 'task_001',
        reason: 'task_state',
        detail: 'task_001 already has #3',
      },
    ]);
  });

  it('answers a PR listed twice once', () => {
    expect(decideMerges(snapshot({ pulls: [pr(), pr()] }))).toHaveLength(1);
  });

  it('answers nothing for a run without open PRs', () => {
    expect(decideMerges(snapshot({ pulls: [] }))).toEqual([]);
  });

  it('survives a dependency cycle without acting on it', () => {
    const decisions = decideMerges(
      snapshot({
        tasks: [task({ taskId: 'a', deps: ['b'] }), task({ taskId: 'b', deps: ['a'] })],
        pulls: [pr({ taskId: 'a', number: 1 }), pr({ taskId: 'b', number: 2 })],
      }),
    );
    expect(summary(decisions)).toEqual(['#1 wait deps_unmerged', '#2 wait deps_unmerged']);
  });
});
