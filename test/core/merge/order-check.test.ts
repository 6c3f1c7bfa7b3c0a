import { describe, expect, it } from 'vitest';
import {
  CHECK_SUMMARY_MAX_BYTES,
  CHECK_TITLE_MAX,
  isOrderCheck,
  ORDER_CHECK_NAME,
  orderCheck,
  orderCheckSignature,
  orderCheckWrite,
  closedPullKeepsOrderCheck,
  viewPredatesPassingOrderCheck,
  type MergeTask,
} from '../../../src/core/merge/index.js';
import { HEAD, pr, specRun, task } from './builders.js';

const ZWJ = '\u2060';

function taskOf(run: ReturnType<typeof specRun>, id: string): MergeTask {
  return run.tasks.find((t) => t.taskId === id) as MergeTask;
}

describe('orderCheck', () => {
  it('is named as docs/lifecycle.md says', () => {
    expect(ORDER_CHECK_NAME).toBe('agent-coordinator/order');
  });

  it('is the only check no merge waits on', () => {
    expect(isOrderCheck({ name: ORDER_CHECK_NAME })).toBe(true);
    expect(isOrderCheck({ name: 'ci/test' })).toBe(false);
    expect(isOrderCheck({})).toBe(false);
  });

  it.each([
    {
      name: 'nothing merged: task_002 waits for task_001',
      states: {},
      id: 'task_002',
      expected: { status: 'in_progress', title: 'waiting for task_001 (#11)' },
    },
    {
      name: 'task_004 waits for both',
      states: { task_001: 'merged' },
      id: 'task_004',
      expected: { status: 'in_progress', title: 'waiting for task_002 (#12), task_003 (#13)' },
    },
    {
      name: 'task_004 waits for the one left',
      states: { task_001: 'merged', task_002: 'merged' },
      id: 'task_004',
      expected: { status: 'in_progress', title: 'waiting for task_003 (#13)' },
    },
    {
      name: 'deps merged',
      states: { task_001: 'merged' },
      id: 'task_002',
      expected: {
        status: 'completed',
        conclusion: 'success',
        title: 'approved, dependencies merged',
      },
    },
    {
      name: 'no deps',
      states: {},
      id: 'task_001',
      expected: { status: 'completed', conclusion: 'success', title: 'approved, no dependencies' },
    },
  ] as const)('$name', ({ states, id, expected }) => {
    const run = specRun(states);
    const check = orderCheck(taskOf(run, id), HEAD, run);
    expect(check).toMatchObject(expected);
    if (check.status === 'in_progress') expect(check).not.toHaveProperty('conclusion');
  });

  it.each([
    { name: 'never approved', approvedSha: undefined, why: '`task_002` is not approved.' },
    {
      name: 'approved at an older head',
      approvedSha: 'abc1234'.padEnd(40, '0'),
      why: '`task_002` was approved at abc1234, but the head is now def5678: new work needs approval again.',
    },
  ])('waits for /approve of the head once the deps are merged: $name', ({ approvedSha, why }) => {
    const run = specRun({ task_001: 'merged' });
    const waiting = { ...taskOf(run, 'task_002'), approvedSha };
    const check = orderCheck(waiting, HEAD, run);
    expect(check).toMatchObject({
      status: 'in_progress',
      title: 'waiting for /approve of def5678',
    });
    expect(check).not.toHaveProperty('conclusion');
    expect(check.summary).toContain(why);
    // Unmerged deps are named first; the approval is the last thing it waits for.
    const early = specRun({});
    expect(orderCheck({ ...taskOf(early, 'task_002'), approvedSha }, HEAD, early).title).toBe(
      'waiting for task_001 (#11)',
    );
    // Without merge.requireApproval, the dependencies are all it waits for.
    const free = specRun({ task_001: 'merged' }, { requireApproval: false });
    expect(orderCheck({ ...taskOf(free, 'task_002'), approvedSha }, HEAD, free)).toMatchObject({
      status: 'completed',
      conclusion: 'success',
      title: 'dependencies merged',
    });
  });

  it.each([
    {
      name: 'the task is held',
      held: true,
      runHeld: false,
      title: 'held: /unhold on the PR lets it merge',
    },
    {
      name: 'the run is held',
      held: false,
      runHeld: true,
      title: 'held: /unhold on the issue lets it merge',
    },
  ])('holds an approved head with its deps merged while $name', ({ held, runHeld, title }) => {
    const run = specRun({ task_001: 'merged' });
    const task = { ...taskOf(run, 'task_002'), state: 'approved' as const, held };
    const check = orderCheck(task, HEAD, { ...run, runHeld });
    expect(check).toMatchObject({ status: 'in_progress', title, notIfAbsent: true });
    expect(check).not.toHaveProperty('conclusion');
    // Unheld, the same head passes.
    expect(orderCheck({ ...task, held: false }, HEAD, run)).toMatchObject({
      status: 'completed',
      conclusion: 'success',
    });
  });

  it.each(['pending', 'dispatched', 'running', 'failed', 'blocked', 'cancelled'] as const)(
    'holds an approved head with its deps merged while the task is %s',
    (state) => {
      const run = specRun({ task_001: 'merged' });
      const check = orderCheck({ ...taskOf(run, 'task_002'), state }, HEAD, run);
      expect(check).toMatchObject({
        status: 'in_progress',
        title: `waiting: task_002 is ${state}`,
      });
      expect(check).not.toHaveProperty('conclusion');
      // A head with no check yet needs none written for this (a missing required check holds a
      // merge too); one already there is rewritten.
      expect(check.notIfAbsent).toBe(true);
      // Awaiting its merge, or merged, the same head passes.
      for (const awaiting of ['in_review', 'approved', 'merging', 'merged'] as const) {
        const passing = orderCheck({ ...taskOf(run, 'task_002'), state: awaiting }, HEAD, run);
        expect(passing).toMatchObject({ status: 'completed', conclusion: 'success' });
        expect(passing).not.toHaveProperty('notIfAbsent');
      }
      // Waiting for a dependency or an approval is said on the PR, written or not.
      const early = specRun({});
      expect(orderCheck({ ...taskOf(early, 'task_002'), state }, HEAD, early)).not.toHaveProperty(
        'notIfAbsent',
      );
    },
  );

  it('says "stacked on" while the one unmerged dep is the stack parent, and still holds it', () => {
    const run = specRun({});
    const stacked = { ...taskOf(run, 'task_002'), stackedOn: { parent: 'task_001', pr: 11 } };
    const check = orderCheck(stacked, HEAD, run);
    expect(check).toMatchObject({ status: 'in_progress', title: 'stacked on task_001 (#11)' });
    expect(check).not.toHaveProperty('conclusion');
    expect(check.summary).toContain('stacked on its one unmerged dependency');
    const merged = specRun({ task_001: 'merged' });
    const after = { ...taskOf(merged, 'task_002'), stackedOn: { parent: 'task_001', pr: 11 } };
    expect(orderCheck(after, HEAD, merged)).toMatchObject({
      status: 'completed',
      conclusion: 'success',
    });
  });

  it('lists each dep with its state and PR in the summary', () => {
    const run = specRun({ task_001: 'merged', task_002: 'merged' });
    const { summary } = orderCheck(taskOf(run, 'task_004'), HEAD, run);
    expect(summary).toContain('| dependency | title | state | PR |');
    expect(summary).toContain('| task_002 |  | merged | #12 |');
    expect(summary).toContain('| task_003 |  | in_review | #13 |');
  });

  it('names a dep missing from the run', () => {
    const t = task({ deps: ['ghost'] });
    const check = orderCheck(t, HEAD, { tasks: [t], requireApproval: true });
    expect(check.title).toBe('waiting for ghost');
    expect(check.summary).toContain('| ghost |  | not in this run |  |');
  });

  it('fails a vetoed task with the reason, even before its deps merge', () => {
    const run = specRun();
    const vetoed = {
      ...taskOf(run, 'task_004'),
      state: 'vetoed' as const,
      vetoReason: 'wrong approach',
    };
    const check = orderCheck(vetoed, HEAD, run);
    expect(check).toMatchObject({
      status: 'completed',
      conclusion: 'failure',
      title: 'vetoed: wrong approach',
    });
    expect(check.summary).toContain('> wrong approach');
  });

  it('fails a veto without a reason as just "vetoed"', () => {
    expect(
      orderCheck(task({ state: 'vetoed' }), HEAD, { tasks: [], requireApproval: true }).title,
    ).toBe('vetoed');
  });

  it('keeps untrusted text verbatim but inert', () => {
    const reason =
      'ping @octocat and @org/team <img src=x onerror=alert(1)> <!-- hide -->\nline two & more';
    const vetoed = task({ state: 'vetoed', vetoReason: reason, deps: ['dep'] });
    const dep = task({
      taskId: 'dep',
      title: 'Fix | pipes @someone <b>bold</b> \\',
      state: 'merged',
    });
    const { title, summary } = orderCheck(vetoed, HEAD, {
      tasks: [vetoed, dep],
      pulls: [pr()],
      requireApproval: true,
    });

    // The title is plain text on GitHub: one line, mentions neutralised, nothing else changed.
    expect(title).toBe(
      `vetoed: ping @${ZWJ}octocat and @${ZWJ}org/team <img src=x onerror=alert(1)> <!-- hide --> line two & more`,
    );
    // The summary is markdown: no HTML, no mentions, lines kept.
    expect(summary).toContain(
      `> ping @${ZWJ}octocat and @${ZWJ}org/team &lt;img src=x onerror=alert(1)&gt; &lt;!-- hide --&gt;\n> line two &amp; more`,
    );
    expect(summary).toContain(
      `| dep | Fix \\| pipes @${ZWJ}someone &lt;b&gt;bold&lt;/b&gt; \\\\ | merged |`,
    );
    expect(summary).not.toMatch(/<|@(?!\u2060)/);
  });

  it("caps the title at GitHub's 1000 characters and the summary at 65535 bytes", () => {
    const vetoed = task({ state: 'vetoed', vetoReason: '名'.repeat(30_000) });
    const { title, summary } = orderCheck(vetoed, HEAD, { tasks: [vetoed], requireApproval: true });
    expect(Array.from(title).length).toBeLessThanOrEqual(CHECK_TITLE_MAX);
    expect(title.endsWith('…')).toBe(true);
    expect(new TextEncoder().encode(summary).length).toBeLessThanOrEqual(CHECK_SUMMARY_MAX_BYTES);

    const many = Array.from({ length: 400 }, (_, i) =>
      task({ taskId: `t${i}`, title: '🙂'.repeat(200) }),
    );
    const wide = task({ taskId: 'wide', deps: many.map((t) => t.taskId) });
    const big = orderCheck(wide, HEAD, { tasks: [wide, ...many], requireApproval: true });
    expect(new TextEncoder().encode(big.summary).length).toBeLessThanOrEqual(
      CHECK_SUMMARY_MAX_BYTES,
    );
    expect(big.summary.endsWith('…')).toBe(true);
    expect(Array.from(big.title).length).toBeLessThanOrEqual(CHECK_TITLE_MAX);
  });
});

describe('viewPredatesPassingOrderCheck', () => {
  it.each([
    { conclusion: 'success', state: 'blocked', stale: true },
    { conclusion: 'success', state: 'clean', stale: false },
    { conclusion: 'success', state: 'behind', stale: false },
    { conclusion: 'failure', state: 'blocked', stale: false },
    { conclusion: undefined, state: 'blocked', stale: false },
  ] as const)(
    'a $conclusion check over a $state view: stale $stale',
    ({ conclusion, state, stale }) => {
      expect(viewPredatesPassingOrderCheck({ conclusion }, state)).toBe(stale);
    },
  );
});

describe('orderCheckWrite', () => {
  const waiting = {
    status: 'in_progress',
    title: 'waiting for /approve of abc1234',
    summary: '',
  } as const;
  const passing = {
    status: 'completed',
    conclusion: 'success',
    title: 'approved, no dependencies',
    summary: '',
  } as const;
  const failing = { ...passing, conclusion: 'failure', title: 'vetoed' } as const;
  const onHead = (check: Parameters<typeof orderCheckSignature>[0], checkRunId = 7) => ({
    sha: HEAD,
    signature: orderCheckSignature(check),
    checkRunId,
  });
  const none = { sha: null, signature: null, checkRunId: null };

  it.each([
    { name: 'a head without one gets one', written: none, check: waiting, kind: 'create' },
    {
      name: 'what the head shows already is not written again',
      written: onHead(passing),
      check: passing,
      kind: 'none',
    },
    {
      name: 'a head without one gets none while its task awaits no merge',
      written: none,
      check: { ...waiting, notIfAbsent: true },
      kind: 'none',
    },
    {
      name: "an older head's check is not the new head's",
      written: { ...onHead(passing), sha: 'older' },
      check: waiting,
      kind: 'create',
    },
    {
      name: 'an in-progress check is rewritten in place',
      written: onHead(waiting),
      check: passing,
      kind: 'update',
    },
    {
      name: 'a completed check is rewritten in place to another conclusion',
      written: onHead(passing),
      check: failing,
      kind: 'update',
    },
    {
      name: 'a passing check is withdrawn by a new check run: GitHub keeps a completed one completed',
      written: onHead(passing),
      check: waiting,
      kind: 'create',
    },
    {
      name: 'so is a failing one, when the veto is lifted',
      written: onHead(failing),
      check: { ...waiting, notIfAbsent: true },
      kind: 'create',
    },
  ] as const)('$name', ({ written, check, kind }) => {
    const write = orderCheckWrite(written, HEAD, check);
    expect(write.kind).toBe(kind);
    if (write.kind === 'update') expect(write.checkRunId).toBe(7);
  });
});

describe('closedPullKeepsOrderCheck', () => {
  const pull = { state: 'closed', merged: false, headSha: HEAD, orderCheckSha: HEAD };
  it.each([
    { name: 'a PR closed unmerged with a check on its head', pull, kept: true },
    { name: 'an open PR (a merge target)', pull: { ...pull, state: 'open' }, kept: false },
    { name: 'a merged PR', pull: { ...pull, merged: true }, kept: false },
    { name: 'a head without a check', pull: { ...pull, orderCheckSha: null }, kept: false },
    { name: "an older head's check", pull: { ...pull, orderCheckSha: 'older' }, kept: false },
  ])('$name: $kept', ({ pull, kept }) => {
    expect(closedPullKeepsOrderCheck(pull)).toBe(kept);
  });
});
