import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runs, tasks } from '../../db/schema.js';
import { DEFAULT_CONFIG } from '../../src/config/schema.js';
import type { Plan } from '../../src/core/plan/index.js';
import { RUN_STATES, TASK_STATES, type RunState, type TaskState } from '../../src/core/states.js';
import {
  canMoveRun,
  canMoveTask,
  RUN_TRANSITIONS,
  TASK_TRANSITIONS,
  type AnyRunMove,
  type RunEvent,
  type RunFinishEvent,
  type RunMove,
  type TaskEvent,
  type TaskMove,
} from '../../src/core/transitions.js';
import { rowsOf, type DatabaseHandle } from '../../src/store/database.js';
import { AttemptStore } from '../../src/store/attempts.js';
import { RepositoryStore } from '../../src/store/repositories.js';
import { RunStore, type RunRow, type TaskRow } from '../../src/store/runs.js';
import { ENGINES } from '../helpers/engines.js';

const INSTALLATION = 2 ** 33 + 7;
const REPOSITORY = 2 ** 32 + 7;
const HEAD = 'a'.repeat(40);

/** Every move of a table: each event alone, or with each of its targets. */
function movesOf<E extends string>(table: Record<E, { to: readonly string[] }>) {
  return (Object.keys(table) as E[]).flatMap((event) =>
    table[event].to.length === 1
      ? [{ move: event as unknown, to: table[event].to[0] as string, name: event as string }]
      : table[event].to.map((to) => ({
          move: { event, to } as unknown,
          to,
          name: `${event} → ${to}`,
        })),
  );
}
const TASK_MOVES = movesOf<TaskEvent>(TASK_TRANSITIONS) as Array<{
  move: TaskMove;
  to: TaskState;
  name: string;
}>;
const RUN_MOVES = movesOf<RunEvent>(RUN_TRANSITIONS) as Array<{
  move: AnyRunMove;
  to: RunState;
  name: string;
}>;

const plan = (...ids: string[]): Plan => ({
  tasks: ids.map((id) => ({ id, title: id, type: 'default', deps: [], priority: 3 })),
  order: ids,
});

describe.each(ENGINES)('state writes on $name', (engine) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let store: RunStore;
  let issues = 0;

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    store = new RunStore(handle.db);
    const repositories = new RepositoryStore(handle.db);
    await repositories.upsertInstallation(INSTALLATION);
    await repositories.upsertRepository(INSTALLATION, { id: REPOSITORY, owner: 'octo', name: 'r' });
  });
  afterAll(() => dispose());

  /** A fresh active run of its own issue, with one pending task `t`. */
  async function freshRun(): Promise<{ run: RunRow; task: TaskRow }> {
    const { run } = await store.createRun({
      repositoryId: REPOSITORY,
      issueNumber: ++issues,
      config: DEFAULT_CONFIG,
      startedBy: 'octocat',
      issueTitle: 'title',
      issueBody: '',
    });
    expect(await store.setPlan(run.id, plan('t'), 'issue', false)).toBe(true);
    const task = await store.task(run.id, 't');
    return { run: (await store.getRun(run.id))!, task: task! };
  }

  /** Put a row in a state directly, as a fixture: the API under test refuses to. */
  const placeTask = (id: number, state: TaskState) =>
    handle.db
      .update(tasks)
      .set({ state, vetoReason: null, prNumber: null })
      .where(eq(tasks.id, id));
  const placeRun = (id: number, state: RunState, finished: boolean) =>
    handle.db
      .update(runs)
      .set({ state, finishedAt: finished ? new Date() : null })
      .where(eq(runs.id, id));

  describe('tasks', () => {
    it.each(TASK_MOVES)(
      '$name writes from exactly the states the table allows',
      async ({ move, to }) => {
        const { run, task } = await freshRun();
        for (const from of TASK_STATES) {
          await placeTask(task.id, from);
          const before = (await store.getRun(run.id))!.statusVersionWanted;
          const moved = await store.transitionTask(task.id, move, { vetoReason: `from ${from}` });
          const after = (await store.taskById(task.id))!;
          if (canMoveTask(from, move)) {
            expect(moved, `${from} → ${to}`).toMatchObject({
              state: to,
              vetoReason: `from ${from}`,
            });
            expect(after.state).toBe(to);
            expect((await store.getRun(run.id))!.statusVersionWanted).toBe(before + 1);
          } else {
            expect(moved, `${from} refused`).toBeUndefined();
            // Nothing of a refused transition is written, not even its other columns.
            expect(after).toMatchObject({ state: from, vetoReason: null });
            expect((await store.getRun(run.id))!.statusVersionWanted).toBe(before);
          }
        }
      },
    );

    it('a transition with an expected state writes only while the task is still in it', async () => {
      const { task } = await freshRun();
      await placeTask(task.id, 'in_review');
      expect(
        await store.transitionTask(
          task.id,
          'approved',
          { approvedSha: HEAD },
          { expected: 'approved' },
        ),
      ).toBeUndefined();
      expect((await store.taskById(task.id))!).toMatchObject({
        state: 'in_review',
        approvedSha: null,
      });
      expect(
        await store.transitionTask(
          task.id,
          'approved',
          { approvedSha: HEAD },
          { expected: 'in_review' },
        ),
      ).toMatchObject({ state: 'approved', approvedSha: HEAD });
    });

    it('enterReview goes to approved for an approved head, in_review otherwise, and only from its sources', async () => {
      const { task } = await freshRun();
      await placeTask(task.id, 'running');
      await store.updateTaskFields(task.id, { approvedSha: HEAD });
      expect(await store.enterReview(task.id, 7, HEAD)).toMatchObject({
        state: 'approved',
        prNumber: 7,
      });

      await placeTask(task.id, 'dispatched');
      expect(await store.enterReview(task.id, 8, 'b'.repeat(40))).toMatchObject({
        state: 'in_review',
        prNumber: 8,
      });

      await store.updateTaskFields(task.id, { approvedSha: null });
      for (const from of TASK_STATES) {
        await placeTask(task.id, from);
        const moved = await store.enterReview(task.id, 9, HEAD);
        if (canMoveTask(from, { event: 'attempt succeeded', to: 'in_review' }))
          expect(moved?.state).toBe('in_review');
        else {
          expect(moved, from).toBeUndefined();
          expect((await store.taskById(task.id))!).toMatchObject({ state: from, prNumber: null });
        }
      }
    });

    it('a field update writes its columns and never the state', async () => {
      const { task } = await freshRun();
      await placeTask(task.id, 'running');
      expect(await store.updateTaskFields(task.id, { held: true })).toMatchObject({
        state: 'running',
        held: true,
      });
      // Skipped once the task has moved on from the state the caller read.
      expect(
        await store.updateTaskFields(task.id, { prNumber: 3 }, { expected: 'in_review' }),
      ).toBeUndefined();
      expect((await store.taskById(task.id))!.prNumber).toBeNull();
      await expect(
        // @ts-expect-error a state is not a field: it changes by a transition only
        store.updateTaskFields(task.id, { state: 'merged' }),
      ).rejects.toThrow('state changes by a transition only');
      expect((await store.taskById(task.id))!.state).toBe('running');
    });

    it('the dispatch claim moves a ready task only from the sources of `dispatched`', async () => {
      const attempts = new AttemptStore(handle.db);
      // Earlier tests leave tasks of this repository in every state: the limit is no limit here.
      const limits = { repoLimit: 1_000_000, globalLimit: Infinity, now: new Date() };
      for (const from of TASK_STATES) {
        const { task: t } = await freshRun();
        await placeTask(t.id, from);
        const claimed = await attempts.claimDispatches(REPOSITORY, limits);
        const after = (await store.taskById(t.id))!;
        if (canMoveTask(from, 'dispatched')) {
          expect(
            claimed.map((i) => i.task.id),
            from,
          ).toContain(t.id);
          expect(after).toMatchObject({ state: 'dispatched', attemptCount: 1 });
        } else {
          expect(
            claimed.map((i) => i.task.id),
            from,
          ).not.toContain(t.id);
          expect(after.state, from).toBe(from);
        }
        // Leave nothing ready or in flight for the next state's claim.
        await placeTask(t.id, 'merged');
      }
    });

    it('the claim’s write is guarded by the sources it is given, not by its read alone', async () => {
      const { task: t } = await freshRun();
      // A ready task, but a table in which `dispatched` starts only from `running`: the read
      // picks it and the guarded write refuses it, as it refuses a task moved since the read.
      const claimed = await handle.db.execute(sql`
        select claim_dispatches(${REPOSITORY}::bigint, 1::bigint, 1000000, 2::bigint, null,
          now(), '{running}'::text[], 'dispatched', '{}'::bigint[], null) as id`);
      expect(rowsOf(claimed)).toEqual([]);
      expect((await store.taskById(t.id))!).toMatchObject({ state: 'pending', attemptCount: 0 });
      // With the table's own sources it is claimed: the refusal above was the guard's.
      const limits = { repoLimit: 1_000_000, globalLimit: Infinity, now: new Date() };
      const intents = await new AttemptStore(handle.db).claimDispatches(REPOSITORY, limits);
      expect(intents.map((i) => i.task.id)).toContain(t.id);
    });
  });

  describe('runs', () => {
    const activeMoves = RUN_MOVES.filter(({ move }) => {
      const event = typeof move === 'string' ? move : move.event;
      const row = RUN_TRANSITIONS[event] as { finishes?: true; reopens?: true };
      return !row.finishes && !row.reopens;
    });

    it.each(activeMoves)(
      '$name writes from exactly the states the table allows',
      async ({ move, to }) => {
        const { run } = await freshRun();
        for (const from of RUN_STATES) {
          await placeRun(run.id, from, false);
          const moved = await store.transitionRun(run.id, move as RunMove, { holdReason: from });
          const after = (await store.getRun(run.id))!;
          if (canMoveRun(from, move)) {
            expect(moved, `${from} → ${to}`).toBe(true);
            expect(after).toMatchObject({ state: to, holdReason: from, finishedAt: null });
          } else {
            expect(moved, `${from} refused`).toBe(false);
            expect(after.state).toBe(from);
            expect(after.holdReason).not.toBe(from);
          }
        }
        // A finished run never moves by an active transition.
        await placeRun(run.id, 'running', true);
        expect(await store.transitionRun(run.id, move as RunMove)).toBe(false);
      },
    );

    it.each(['closed out', 'failed', 'cancelled', 'repository unreachable'] as RunFinishEvent[])(
      'finishRun(%s) finishes from exactly the states the table allows, once',
      async (event) => {
        const { run } = await freshRun();
        const to = RUN_TRANSITIONS[event].to[0];
        for (const from of RUN_STATES) {
          await placeRun(run.id, from, false);
          const finished = await store.finishRun(run.id, event);
          const after = (await store.getRun(run.id))!;
          if (canMoveRun(from, event)) {
            expect(finished, `${from} → ${to}`).toBe(true);
            expect(after.state).toBe(to);
            expect(after.finishedAt).not.toBeNull();
            expect(await store.finishRun(run.id, event)).toBe(false);
          } else {
            expect(finished, `${from} refused`).toBe(false);
            expect(after).toMatchObject({ state: from, finishedAt: null });
          }
        }
      },
    );

    it('reopenRun brings back only a failed or cancelled run', async () => {
      const { run } = await freshRun();
      for (const from of RUN_STATES) {
        await placeRun(run.id, from, true);
        const reopened = await store.reopenRun(run.id);
        const after = (await store.getRun(run.id))!;
        if (canMoveRun(from, 'reopened')) {
          expect(reopened, from).toBe(true);
          expect(after).toMatchObject({ state: 'running', finishedAt: null });
        } else {
          expect(reopened, from).toBe(false);
          expect(after.state).toBe(from);
          expect(after.finishedAt).not.toBeNull();
        }
      }
    });

    it('setPlan and setPlanInvalid write only from the states the table allows', async () => {
      const { run } = await freshRun();
      for (const from of RUN_STATES) {
        await placeRun(run.id, from, false);
        const stored = await store.setPlan(run.id, plan('t', 'u'), 'command', false);
        expect(stored, from).toBe(canMoveRun(from, { event: 'plan stored', to: 'running' }));
        const after = (await store.getRun(run.id))!;
        expect(after.state).toBe(stored ? 'running' : from);
        if (!stored) expect(after.planSource, from).toBe('issue');

        await placeRun(run.id, from, false);
        const invalid = await store.setPlanInvalid(run.id, '- bad', 'command');
        expect(invalid, from).toBe(canMoveRun(from, 'plan invalid'));
        expect((await store.getRun(run.id))!.state).toBe(invalid ? 'plan_invalid' : from);
        await handle.db
          .update(runs)
          .set({ planSource: 'issue', planError: null })
          .where(eq(runs.id, run.id));
      }
    });

    it('setPlan waits for approval when asked, keeps a hold, and refuses a finished run', async () => {
      const { run } = await freshRun();
      await placeRun(run.id, 'planning', false);
      expect(await store.setPlan(run.id, plan('t'), 'issue', true)).toBe(true);
      expect((await store.getRun(run.id))!.state).toBe('awaiting_approval');
      await store.updateRun(run.id, { held: true });
      await placeRun(run.id, 'running', false);
      expect(await store.setPlan(run.id, plan('t'), 'command', false)).toBe(true);
      expect((await store.getRun(run.id))!.state).toBe('held');
      await placeRun(run.id, 'failed', true);
      expect(await store.setPlan(run.id, plan('t'), 'command', false)).toBe(false);
      await expect(
        // @ts-expect-error a run's state changes by a transition only
        store.updateRun(run.id, { state: 'running' }),
      ).rejects.toThrow('state changes by a transition only');
      expect((await store.getRun(run.id))!.state).toBe('failed');
    });
  });
});
