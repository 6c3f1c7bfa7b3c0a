import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attempts, tasks } from '../../db/schema.js';
import { NO_APPROVAL } from '../../src/core/lifecycle/index.js';
import type { TaskSpec } from '../../src/core/plan/index.js';
import type { TaskState } from '../../src/core/states.js';
import type { DatabaseHandle } from '../../src/store/database.js';
import { createStore, type Store } from '../../src/store/index.js';
import { countStatements } from '../../src/store/statement-count.js';
import { ENGINES } from '../helpers/engines.js';
import { planOf, plannedRun, taskSpec } from '../helpers/planned-run.js';

/**
 * Task writes that say, in the same statement, what the caller needs next: a guarded update
 * bumps its run's status version, a merge's recount returns the run's progress, a successful
 * attempt's completion returns the run's spend.
 */
describe.each(ENGINES)('task transitions on $name', (engine) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let store: Store;

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    store = createStore(handle);
    await store.repositories.ensureRepository(9, { id: 601, owner: 'acme', name: 'widgets' });
  });
  afterAll(() => dispose());

  const spec = (id: string, deps: string[] = []) => taskSpec(id, { deps });
  /** Dispatch what is ready in the repository, within limits no test here reaches. */
  const claimReady = () =>
    store.attempts.claimDispatches(601, { repoLimit: 10, globalLimit: 10, now: new Date() });
  const runWith = (issueNumber: number, specs: TaskSpec[]) =>
    plannedRun(store, 601, issueNumber, planOf(...specs));

  it('moves a task from an expected state and bumps its run, in one statement', async () => {
    const run = await runWith(1, [spec('a')]);
    const [row] = await store.runs.tasksOf(run.id);
    const version = async () => (await store.runs.getRun(run.id))!.statusVersionWanted;
    const before = await version();

    const later = new Date(Date.now() + 60_000);
    const moved = await countStatements(() =>
      store.runs.transitionTask(row!.id, 'dispatched', { nextAttemptAt: later }),
    );
    expect(moved.statements).toBe(1);
    expect(moved.value).toMatchObject({ id: row!.id, state: 'dispatched', nextAttemptAt: later });
    expect(await version()).toBe(before + 1);

    const refused = await countStatements(() => store.runs.transitionTask(row!.id, 'unblocked'));
    expect(refused).toMatchObject({ value: undefined, statements: 1 });
    expect(await version()).toBe(before + 1);

    const review = await store.runs.enterReview(row!.id, 7, 'abc');
    expect(review).toMatchObject({ state: 'in_review', prNumber: 7 });
    expect(await version()).toBe(before + 2);
  });

  it('withdraws an approval only while the task holds the one read (its commit and author)', async () => {
    const run = await runWith(21, [spec('a')]);
    const [row] = await store.runs.tasksOf(run.id);
    await handle.db
      .update(tasks)
      .set({ state: 'approved', approvedSha: 'abc', approvedBy: 'dave' })
      .where(eq(tasks.id, row!.id));
    const withdrawCarols = () =>
      store.runs.transitionTask(row!.id, 'approval withdrawn', NO_APPROVAL, {
        expected: 'approved',
        approval: { sha: 'abc', by: 'carol' },
      });
    // Dave approved since carol's approval was read: his stands.
    expect(await withdrawCarols()).toBeUndefined();
    expect(await store.runs.taskById(row!.id)).toMatchObject({
      state: 'approved',
      approvedSha: 'abc',
      approvedBy: 'dave',
    });

    await handle.db.update(tasks).set({ approvedBy: 'carol' }).where(eq(tasks.id, row!.id));
    expect(await withdrawCarols()).toMatchObject({
      state: 'in_review',
      approvedSha: null,
      approvedBy: null,
      approvedAt: null,
    });
  });

  it('withdraws an approval recorded with no author only while it still has none', async () => {
    const run = await runWith(22, [spec('a')]);
    const [row] = await store.runs.tasksOf(run.id);
    const place = (approvedBy: string | null) =>
      handle.db
        .update(tasks)
        .set({ state: 'approved', approvedSha: 'abc', approvedBy })
        .where(eq(tasks.id, row!.id));
    const withdrawUnattributed = () =>
      store.runs.transitionTask(row!.id, 'approval withdrawn', NO_APPROVAL, {
        expected: 'approved',
        approval: { sha: 'abc', by: null },
      });
    // Dave approved the same commit since the unattributed approval was read: his stands.
    await place('dave');
    expect(await withdrawUnattributed()).toBeUndefined();
    expect(await store.runs.taskById(row!.id)).toMatchObject({
      state: 'approved',
      approvedBy: 'dave',
    });

    await place(null);
    expect(await withdrawUnattributed()).toMatchObject({
      state: 'in_review',
      approvedSha: null,
      approvedBy: null,
    });
  });

  it('recounts only the merged task’s dependents, idempotently', async () => {
    const run = await runWith(11, [spec('a'), spec('b', ['a']), spec('c', ['a', 'b'])]);
    const place = async (key: string, state: TaskState) =>
      handle.db
        .update(tasks)
        .set({ state })
        .where(eq(tasks.id, (await store.runs.task(run.id, key))!.id));
    const unmet = async () =>
      Object.fromEntries((await store.runs.tasksOf(run.id)).map((t) => [t.taskKey, t.unmetDeps]));
    expect(await unmet()).toEqual({ a: 0, b: 1, c: 2 });

    await place('a', 'merged');
    expect(await store.runs.decrementDependents(run.id, 'a')).toBe(2);
    expect(await unmet()).toEqual({ a: 0, b: 0, c: 1 });
    // A retried merge event frees them again: nothing changes.
    expect(await store.runs.decrementDependents(run.id, 'a')).toBe(2);
    expect(await unmet()).toEqual({ a: 0, b: 0, c: 1 });

    await place('b', 'merged');
    expect(await store.runs.decrementDependents(run.id, 'b')).toBe(1);
    expect(await unmet()).toEqual({ a: 0, b: 0, c: 0 });
    // A task nothing depends on frees nothing. (Merged, it is not ready for the next test's claim.)
    await place('c', 'merged');
    expect(await store.runs.decrementDependents(run.id, 'c')).toBe(0);
  });

  it('completes a successful attempt once, with what its run has spent, this attempt included', async () => {
    const run = await runWith(12, [spec('a'), spec('b')]);
    const [a, b] = await claimReady();
    const usage = (costUsd: number) => ({
      spend: { kind: 'own' as const, usage: { costUsd, inputTokens: 10, outputTokens: 5 } },
    });
    const first = await store.attempts.completeSucceeded(a!.attempt.id, a!.task, usage(1.25));
    expect(first).toMatchObject({ phase: 'completed', costUsd: 1.25, runSpentUsd: 1.25 });
    expect(
      await store.attempts.completeSucceeded(a!.attempt.id, a!.task, usage(9)),
    ).toBeUndefined();
    const second = await store.attempts.completeSucceeded(b!.attempt.id, b!.task, usage(0.5));
    expect(second!.runSpentUsd).toBe(1.75);
    expect(await store.attempts.spentByRun(run.id)).toBe(1.75);
    // Another run's spend is not this one's.
    const other = await runWith(13, [spec('x')]);
    const [x] = await claimReady();
    expect(x!.run.id).toBe(other.id);
    expect((await store.attempts.completeSucceeded(x!.attempt.id, x!.task, {}))!.runSpentUsd).toBe(
      0,
    );
  });

  it("charges a failed attempt's spend beside a share of the PR marker's total, which never held it", async () => {
    const run = await runWith(16, [spec('a')]);
    const [a] = await claimReady();
    // Attempt 1 spent and published nothing: the worker's annotation said what it spent.
    await store.attempts.complete(a!.attempt.id, {
      conclusion: 'failure',
      failureReason: 'no_changes',
      costUsd: 0.4,
      inputTokens: 40,
      outputTokens: 4,
    });
    // Attempt 2 publishes: its PR's marker holds its own spend, the task's first marker.
    const [second] = await handle.db
      .insert(attempts)
      .values({ taskId: a!.task.id, attempt: 2, mode: 'work' })
      .returning();
    const done = await store.attempts.completeSucceeded(second!.id, a!.task, {
      spend: { kind: 'markerTotal', total: { costUsd: 0.3, inputTokens: 30, outputTokens: 3 } },
    });
    expect(done).toMatchObject({ costUsd: 0.3, inputTokens: 30, outputTokens: 3 });
    expect(done!.runSpentUsd).toBeCloseTo(0.7, 9);
    expect(await store.attempts.spentByRun(run.id)).toBeCloseTo(0.7, 9);
  });

  it("charges a succeeded attempt what its agent job said, whatever the task's earlier attempts took", async () => {
    const run = await runWith(17, [spec('a')]);
    const [a] = await claimReady();
    const said = (costUsd: number) => ({
      spend: { kind: 'own' as const, usage: { costUsd, inputTokens: 10, outputTokens: 1 } },
    });
    expect(await store.attempts.completeSucceeded(a!.attempt.id, a!.task, said(2))).toMatchObject({
      costUsd: 2,
    });
    // A later attempt spent less than the first: its share of a marker would be nothing.
    const [second] = await handle.db
      .insert(attempts)
      .values({ taskId: a!.task.id, attempt: 2, mode: 'fix' })
      .returning();
    const done = await store.attempts.completeSucceeded(second!.id, a!.task, said(0.5));
    expect(done).toMatchObject({ costUsd: 0.5, inputTokens: 10, outputTokens: 1 });
    expect(await store.attempts.spentByRun(run.id)).toBeCloseTo(2.5, 9);
  });

  it('completes an attempt, records its PR and moves the task into review in one statement, once', async () => {
    const run = await runWith(14, [spec('a'), spec('b')]);
    const [a, b] = await claimReady();
    const pull = (number: number, headSha: string) => ({
      repositoryId: 601,
      number,
      nodeId: `PR_${number}`,
      headRef: `agent/14/${number}`,
      headSha,
      baseRef: 'main',
      state: 'open',
      merged: false,
    });
    const head = 'c'.repeat(40);
    const done = await countStatements(() =>
      store.runs.completeIntoReview({
        attemptId: a!.attempt.id,
        task: a!.task,
        spend: { kind: 'own', usage: { costUsd: 0.75, inputTokens: 100, outputTokens: 20 } },
        pull: pull(41, head),
      }),
    );
    expect(done.statements).toBe(1);
    expect(done.value!.attempt).toMatchObject({
      id: a!.attempt.id,
      phase: 'completed',
      conclusion: 'success',
      costUsd: 0.75,
      inputTokens: 100,
      runSpentUsd: 0.75,
    });
    expect(done.value!.attempt.completedAt).toBeInstanceOf(Date);
    expect(done.value!.task).toMatchObject({ id: a!.task.id, state: 'in_review', prNumber: 41 });
    expect(await store.pulls.withTask(601, 41)).toMatchObject({
      pull: { headSha: head, taskId: a!.task.id, state: 'open' },
    });

    // A redelivery of the same completion completes nothing and moves nothing, and says so; the
    // PR's row takes what GitHub shows now, as any sighting of the PR does.
    expect(
      await store.runs.completeIntoReview({
        attemptId: a!.attempt.id,
        task: a!.task,
        spend: { kind: 'own', usage: { costUsd: 5, inputTokens: 1, outputTokens: 1 } },
        pull: pull(41, 'd'.repeat(40)),
      }),
    ).toBeUndefined();
    expect((await store.pulls.withTask(601, 41))!.pull.headSha).toBe('d'.repeat(40));
    expect(await store.attempts.spentByRun(run.id)).toBe(0.75);
    expect((await store.runs.task(run.id, 'a'))!.state).toBe('in_review');

    // An approval already given for this head stands: the task goes to approved at once.
    await store.runs.updateTaskFields(b!.task.id, { approvedSha: head });
    const approved = await store.runs.completeIntoReview({
      attemptId: b!.attempt.id,
      task: b!.task,
      spend: undefined,
      pull: pull(42, head),
    });
    expect(approved!.task).toMatchObject({ state: 'approved', prNumber: 42 });
    expect(approved!.attempt.costUsd).toBeNull();
  });

  it('completes the attempt but leaves a task that moved meanwhile where it is', async () => {
    await runWith(15, [spec('a')]);
    const [a] = await claimReady();
    expect(await store.runs.transitionTask(a!.task.id, 'cancelled')).toBeDefined();
    const done = await store.runs.completeIntoReview({
      attemptId: a!.attempt.id,
      task: a!.task,
      spend: undefined,
      pull: {
        repositoryId: 601,
        number: 51,
        nodeId: 'PR_51',
        headRef: 'agent/15/a',
        headSha: 'e'.repeat(40),
        baseRef: 'main',
        state: 'open',
        merged: false,
      },
    });
    expect(done!.attempt.phase).toBe('completed');
    expect(done!.task).toBeUndefined();
    const [row] = await handle.db.select().from(tasks).where(eq(tasks.id, a!.task.id));
    expect(row!.state).toBe('cancelled');
  });

  it('adopts a run found by its name only while the attempt is as it was read', async () => {
    await runWith(40, [spec('a')]);
    const [a] = await claimReady();
    const read = (await store.attempts.byTaskAttempt(a!.task.id, 1))!;
    const run = { dispatchedAt: new Date(), workflowRunUrl: 'https://github.test/run/7' };
    // Cancelled between the read and the adoption: the adoption does not reopen it.
    await store.attempts.complete(read.id, { conclusion: 'cancelled', failureReason: '/cancel' });
    expect(
      await store.attempts.adoptRun(read, { ...run, phase: 'dispatched', workflowRunId: 7 }),
    ).toBe(false);
    const [kept] = await handle.db.select().from(attempts).where(eq(attempts.id, read.id));
    expect(kept).toMatchObject({ phase: 'completed', workflowRunId: null });
    // Read again, it is adopted as it now is: the run is recorded, the attempt stays completed.
    const again = (await store.attempts.byTaskAttempt(a!.task.id, 1))!;
    expect(
      await store.attempts.adoptRun(again, { ...run, phase: again.phase, workflowRunId: 7 }),
    ).toBe(true);
    const [adopted] = await handle.db.select().from(attempts).where(eq(attempts.id, read.id));
    expect(adopted).toMatchObject({ phase: 'completed', workflowRunId: 7 });
    // A run once recorded is not replaced by another found by its name.
    expect(
      await store.attempts.adoptRun(again, { ...run, phase: again.phase, workflowRunId: 8 }),
    ).toBe(false);
  });

  it('records a PR’s order check with its merge claim, in the claim’s statement, moved or not', async () => {
    await runWith(16, [spec('a')]);
    const [a] = await claimReady();
    const head = 'f'.repeat(40);
    const pull = {
      repositoryId: 601,
      number: 61,
      nodeId: 'PR_61',
      headRef: 'agent/16/a',
      headSha: head,
      baseRef: 'main',
      state: 'open',
      merged: false,
    };
    await store.runs.completeIntoReview({
      attemptId: a!.attempt.id,
      task: a!.task,
      spend: undefined,
      pull,
    });
    const row = (await store.pulls.withTask(601, 61))!.pull;
    const check = (checkRunId: number, conclusion: string) => ({
      pullId: row.id,
      checkRunId,
      sha: head,
      conclusion,
    });
    const claimed = await countStatements(() =>
      store.runs.transitionTask(a!.task.id, 'merge claimed', {}, { orderCheck: check(7, 'ok') }),
    );
    expect(claimed.statements).toBe(1);
    expect(claimed.value).toMatchObject({ state: 'merging' });
    expect((await store.pulls.withTask(601, 61))!.pull).toMatchObject({
      orderCheckRunId: 7,
      orderCheckSha: head,
      orderCheckConclusion: 'ok',
    });
    // A claim refused (the task is merging already) still records what GitHub now shows.
    expect(
      await store.runs.transitionTask(
        a!.task.id,
        'merge claimed',
        {},
        { orderCheck: check(8, 'again') },
      ),
    ).toBeUndefined();
    expect((await store.pulls.withTask(601, 61))!.pull).toMatchObject({
      orderCheckRunId: 8,
      orderCheckConclusion: 'again',
    });
  });
});
