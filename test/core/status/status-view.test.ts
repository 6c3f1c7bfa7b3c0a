import { describe, expect, it } from 'vitest';
import { statusViewOf, type StatusSnapshot } from '../../../src/core/status/model.js';

const NOW = Date.parse('2026-12-03T12:00:00Z');
const task = (over: Partial<StatusSnapshot['tasks'][number]>): StatusSnapshot['tasks'][number] => ({
  id: 1,
  taskKey: 'a',
  title: 'A',
  state: 'pending',
  attemptCount: 0,
  prNumber: null,
  priority: 3,
  planIndex: 0,
  unmetDeps: 0,
  nextAttemptAt: null,
  held: false,
  ...over,
});
const snapshot = (over: Partial<StatusSnapshot> = {}): StatusSnapshot => ({
  run: {
    id: 7,
    state: 'running',
    issueNumber: 3,
    planError: null,
    holdReason: null,
    budgetWaived: false,
    maxParallel: 1,
    maxCostUsdPerRun: 10,
  },
  tasks: [task({})],
  depsOf: new Map(),
  attempts: [],
  pulls: [],
  spentUsd: 0,
  inflight: { repository: 0, global: 0 },
  globalLimit: Number.POSITIVE_INFINITY,
  now: NOW,
  ...over,
});

/** docs/status-comment.md: what the status comment says, decided from one snapshot. */
describe('statusViewOf', () => {
  it('checks the PRs’ files against the tasks’ files: within a bound, and says how many it did not', () => {
    // An agent's PR with GitHub's 3000 files of long names, against a planner's 100 globs that
    // each read every name to its end: unbounded, one render took seconds per such task.
    const globs = Array.from({ length: 100 }, (_, g) => `**/${'*?'.repeat(40)}${g}{a,b}`);
    const changedFiles = Array.from({ length: 3_000 }, (_, i) => `src/${'x'.repeat(200)}${i}.ts`);
    const view = statusViewOf(
      snapshot({
        tasks: [
          task({ state: 'in_review', prNumber: 1, files: globs, changedFiles }),
          task({
            id: 2,
            taskKey: 'b',
            state: 'in_review',
            prNumber: 2,
            files: ['src/**'],
            changedFiles: ['src/a.ts', 'lib/b.ts'],
          }),
        ],
      }),
    );
    const [hostile, ordinary] = view.tasks;
    expect(hostile!.outsideUnchecked).toBeGreaterThan(2_900);
    expect(hostile!.outsideFiles!.length + hostile!.outsideUnchecked!).toBe(3_000);
    // The steps ran out on the first task: the next one's files are not checked either.
    expect(ordinary).toMatchObject({ outsideFiles: [], outsideUnchecked: 2 });
  });

  it('says why a run ended when core named a reason (the App removed from the repository)', () => {
    const ended = (endReason: string | null) =>
      statusViewOf(
        snapshot({ run: { ...snapshot().run, state: 'cancelled', endReason }, tasks: [] }),
      ).notes;
    expect(ended('the App was removed from this repository')).toEqual([
      'Ended: the App was removed from this repository.',
    ]);
    expect(ended(null)).toEqual([]);
  });

  it('says why a ready task waits: the repository has no free worker', () => {
    const view = statusViewOf(
      snapshot({
        tasks: [task({}), task({ id: 2, taskKey: 'b', planIndex: 1 })],
        inflight: { repository: 1, global: 1 },
      }),
    );
    expect(view.tasks.map((t) => t.waiting)).toEqual([
      'waiting: 1/1 workers busy in this repository',
      'waiting: 1/1 workers busy in this repository',
    ]);
  });

  it('says why a ready task waits: its installation has its share of the coordinator’s capacity', () => {
    const view = statusViewOf(
      snapshot({
        run: { ...snapshot().run, maxParallel: 10 },
        tasks: [task({}), task({ id: 2, taskKey: 'b', planIndex: 1 })],
        inflight: { repository: 2, global: 3 },
        globalLimit: 4,
        // Another installation waits for the one slot left (src/core/scheduler/fair-share.ts).
        installation: { room: 0, running: 2, ceiling: 2 },
      }),
    );
    expect(view.tasks.map((t) => t.waiting)).toEqual([
      "waiting: the coordinator's capacity is shared with other installations (2/2 workers busy for this one)",
      "waiting: the coordinator's capacity is shared with other installations (2/2 workers busy for this one)",
    ]);
  });

  it('says "stacked on" for a task stacked on its one unmerged dependency, in review or pending', () => {
    const view = statusViewOf(
      snapshot({
        tasks: [
          task({ state: 'in_review', prNumber: 12 }),
          task({
            id: 2,
            taskKey: 'b',
            planIndex: 1,
            state: 'in_review',
            prNumber: 13,
            unmetDeps: 1,
            stackParent: 'a',
            stackParentPr: 12,
          }),
          task({ id: 3, taskKey: 'c', planIndex: 2, unmetDeps: 1 }),
        ],
        depsOf: new Map([
          ['b', ['a']],
          ['c', ['b']],
        ]),
      }),
    );
    expect(view.tasks.map((t) => t.waiting)).toEqual([
      undefined,
      'stacked on a (#12)',
      'waiting for b (#13)',
    ]);
  });

  it("shows a failed task's latest failure, a re-run of flaky checks, and the cost of its attempts", () => {
    const view = statusViewOf(
      snapshot({
        tasks: [
          task({ state: 'failed', attemptCount: 2 }),
          task({ id: 2, taskKey: 'b', state: 'in_review', prNumber: 12, attemptCount: 1 }),
        ],
        attempts: [
          { taskId: 1, attempt: 1, costUsd: 0.5, failureReason: 'timed_out' },
          { taskId: 1, attempt: 2, costUsd: 0.25, failureReason: 'no_changes' },
        ],
        pulls: [
          {
            taskId: 2,
            number: 12,
            headSha: 'abc',
            checksRerunning: 'test',
            checksRerunSha: 'abc',
            agentConfigChanged: ['CLAUDE.md'],
          },
        ],
      }),
    );
    expect(view.tasks[0]).toMatchObject({ waiting: 'no_changes', costUsd: 0.75 });
    expect(view.tasks[1]).toMatchObject({
      waiting: 're-running test (flaky?)',
      agentConfigChanged: ['CLAUDE.md'],
    });
  });

  it('shows a PR GitHub refused the App an update at, while that is its head and the task goes on', () => {
    const refused: StatusSnapshot['pulls'][number] = {
      taskId: 2,
      number: 12,
      headSha: 'abc',
      checksRerunning: null,
      checksRerunSha: null,
      agentConfigChanged: [],
      baseRef: 'main',
      updateRefusedSha: 'abc',
      updateRefusedMessage: 'refusing to allow a GitHub App to create or update workflow x.yml',
    };
    const viewOf = (pull: typeof refused, state: StatusSnapshot['tasks'][number]['state']) =>
      statusViewOf(
        snapshot({
          tasks: [task({ id: 2, taskKey: 'b', state, prNumber: 12 })],
          pulls: [pull],
        }),
      ).tasks[0]!.updateRefused;
    expect(viewOf(refused, 'in_review')).toEqual({
      base: 'main',
      message: 'refusing to allow a GitHub App to create or update workflow x.yml',
    });
    // A person's push moved the head: the refusal is over.
    expect(viewOf({ ...refused, headSha: 'def' }, 'in_review')).toBeUndefined();
    expect(viewOf(refused, 'merged')).toBeUndefined();
    expect(
      viewOf({ ...refused, updateRefusedSha: null, updateRefusedMessage: null }, 'in_review'),
    ).toBeUndefined();
  });

  it("shows an approved PR someone retargeted off the run's base waiting to be retargeted back", () => {
    const pull: StatusSnapshot['pulls'][number] = {
      taskId: 2,
      number: 12,
      headSha: 'abc',
      checksRerunning: null,
      checksRerunSha: null,
      agentConfigChanged: [],
      baseRef: 'release',
    };
    const waitingOf = (
      baseBranch: string | null,
      state: StatusSnapshot['tasks'][number]['state'],
      baseRef = 'release',
    ) =>
      statusViewOf(
        snapshot({
          run: { ...snapshot().run, baseBranch },
          tasks: [task({ id: 2, taskKey: 'b', state, prNumber: 12 })],
          pulls: [{ ...pull, baseRef }],
        }),
      ).tasks[0]!.waiting;
    const off = "targets release, not the run's base main: retarget it to main to merge";
    expect(waitingOf('main', 'approved')).toBe(off);
    expect(waitingOf('main', 'in_review')).toBe(off);
    expect(waitingOf('main', 'approved', 'main')).toBeUndefined();
    expect(waitingOf('main', 'rejected')).toBeUndefined();
    // A run recorded before its base was merges into whatever its PRs target.
    expect(waitingOf(null, 'approved')).toBeUndefined();
  });

  it("notes the run's phase, the write budget, and a hold's reason", () => {
    const planning = statusViewOf(snapshot({ run: { ...snapshot().run, state: 'planning' } }));
    expect(planning.notes).toEqual(['Planning: waiting for the planner job to post a plan.']);
    const held = statusViewOf(
      snapshot({
        run: { ...snapshot().run, state: 'held', holdReason: 'budget reached' },
        nextWriteInSeconds: 4,
      }),
    );
    expect(held.notes).toEqual(['GitHub write budget: next write in 4 s']);
    expect(held.holdReason).toBe('budget reached');
    expect(held.updatedAt).toBe('2026-12-03T12:00:00.000Z');
  });
});
