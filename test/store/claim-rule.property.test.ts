import fc from 'fast-check';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runs, tasks } from '../../db/schema.js';
import {
  candidateKey,
  type Candidate,
  decideOverlapWaits,
  selectDispatches,
  RepoTree,
  taskPaths,
  type PathHolder,
  type TaskPaths,
} from '../../src/core/scheduler/index.js';
import { isDispatchReady } from '../../src/core/stack/index.js';
import { INFLIGHT_TASK_STATES, type TaskState } from '../../src/core/states.js';
import type { DatabaseHandle } from '../../src/store/database.js';
import { createStore, type Store } from '../../src/store/index.js';
import { ENGINES } from '../helpers/engines.js';
import { planOf, plannedRun, taskSpec } from '../helpers/planned-run.js';

const NOW = new Date('2026-12-03T12:00:00Z');
const STATES: TaskState[] = [
  'pending',
  'pending',
  'pending',
  'dispatched',
  'running',
  'in_review',
  'merged',
];

const taskArb = fc.record({
  state: fc.constantFrom(...STATES),
  unmetDeps: fc.constantFrom(0, 0, 1, 2),
  // dispatch.stack: permitted to start on its one unmerged dependency (tasks.stack_parent).
  stacked: fc.boolean(),
  priority: fc.integer({ min: 1, max: 5 }),
  backoff: fc.constantFrom('none', 'past', 'future'),
  // files: (docs/tasks-block.md), none for most tasks; changed files for some in flight.
  files: fc.constantFrom(null, null, ['src/a/**'], ['src/a/x.ts'], ['src/b/**'], ['src/new/**']),
  changedFiles: fc.constantFrom(null, null, null, ['src/b/y.ts']),
});
const LISTING = { paths: ['src/a/x.ts', 'src/a/z.ts', 'src/b/y.ts'], truncated: false };
const TREE = new RepoTree(LISTING);
const caseArb = fc.record({
  runs: fc.array(
    fc.record({
      state: fc.constantFrom('running', 'running', 'held'),
      tasks: fc.array(taskArb, { minLength: 1, maxLength: 4 }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  repoLimit: fc.integer({ min: 0, max: 6 }),
  // The installation's share of the global cap (src/core/scheduler/fair-share.ts): what it may
  // start now, when others share the cap.
  installationRoom: fc.option(fc.integer({ min: 0, max: 2 })),
});

/** A cap that never binds here, so that the claim takes the global lock the share is read under. */
const CAP = 1_000_000;

/**
 * The dispatch claim (`claim_dispatches`, docs/database.md) repeats core's choice of what to
 * dispatch — the ready set and its order within the repository's room and the installation's
 * share — because it must take it under its lock. Over generated repositories it must claim
 * exactly what core's `selectDispatches` would dispatch, in the same order.
 */
describe.each(ENGINES)("the dispatch claim makes core's choice on $name", (engine) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let store: Store;
  let nextRepository = 800;

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    store = createStore(handle);
  });
  afterAll(() => dispose());

  it('claims what selectDispatches dispatches, in its order, overlaps and the installation’s share included', async () => {
    let overlapCases = 0;
    let shareCases = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async (generated) => {
        const repositoryId = nextRepository++;
        // An installation of its own: what it has in flight is this repository's.
        await store.repositories.ensureRepository(repositoryId, {
          id: repositoryId,
          owner: 'acme',
          name: `r${repositoryId}`,
        });
        const candidates: Candidate[] = [];
        const holders: PathHolder[] = [];
        const claims = new Map<string, TaskPaths>();
        let inflight = 0;
        for (const [r, spec] of generated.runs.entries()) {
          const keys = spec.tasks.map((_, i) => `t${i}`);
          const run = await plannedRun(
            store,
            repositoryId,
            r + 1,
            planOf(...keys.map((k) => taskSpec(k))),
          );
          await handle.db
            .update(runs)
            .set({ state: spec.state as never })
            .where(eq(runs.id, run.id));
          const rows = await handle.db.select().from(tasks).where(eq(tasks.runId, run.id));
          for (const [i, t] of spec.tasks.entries()) {
            const row = rows.find((x) => x.taskKey === keys[i])!;
            const nextAttemptAt =
              t.backoff === 'none'
                ? null
                : new Date(NOW.getTime() + (t.backoff === 'past' ? -60_000 : 60_000));
            await handle.db
              .update(tasks)
              .set({
                state: t.state,
                unmetDeps: t.unmetDeps,
                priority: t.priority,
                nextAttemptAt,
                files: t.files && [...t.files],
                changedFiles: t.changedFiles && [...t.changedFiles],
                stackParent: t.stacked ? 'x' : null,
              })
              .where(eq(tasks.id, row.id));
            if (INFLIGHT_TASK_STATES.has(t.state)) inflight++;
            const paths = taskPaths({ base: 'main', ...t }, TREE);
            // The tasks that hold paths (docs/lifecycle.md, "Overlapping files"): in flight or
            // with a PR waiting on merge (merged ones hold nothing; no pending task has a PR here).
            if (paths && ['dispatched', 'running', 'in_review'].includes(t.state))
              holders.push({ runId: String(run.id), taskId: keys[i]!, paths });
            if (paths) claims.set(candidateKey(String(run.id), keys[i]!), paths);
            // Core's ready rule (docs/lifecycle.md step 4), as the status comment applies it.
            if (
              spec.state === 'running' &&
              t.state === 'pending' &&
              isDispatchReady({ unmetDeps: t.unmetDeps, stackParent: t.stacked ? 'x' : null })
            )
              candidates.push({
                runId: String(run.id),
                taskId: keys[i]!,
                priority: t.priority,
                // Oldest run first, then plan order: runs are created in this loop's order.
                order: r * 1_000_000 + row.planIndex,
                backoffUntil: nextAttemptAt?.getTime(),
              });
          }
        }
        const share =
          generated.installationRoom === null
            ? undefined
            : {
                room: generated.installationRoom,
                running: inflight,
                ceiling: inflight + generated.installationRoom,
              };
        const decide = (installation: typeof share) =>
          selectDispatches({
            now: NOW.getTime(),
            candidates,
            repoInflight: inflight,
            repoLimit: generated.repoLimit,
            globalInflight: 0,
            globalLimit: Number.POSITIVE_INFINITY,
            ...(installation === undefined ? {} : { installation }),
            heldRuns: new Set(),
            budgetExhaustedRuns: new Set(),
            overlap: { holders, paths: claims },
          }).dispatch.map((c) => `${c.runId}/${c.taskId}`);
        const expected = decide(share);
        if (expected.length < decide(undefined).length) shareCases++;
        // The claim decides the overlap under its lock on its own read (engine/overlap.ts).
        const claimed = await store.attempts.claimDispatches(
          repositoryId,
          {
            repoLimit: generated.repoLimit,
            globalLimit: CAP,
            installationLimit: share?.ceiling,
            now: NOW,
          },
          (claimants) => {
            const { blocked } = decideOverlapWaits(
              claimants.map((c) => ({ ...c, base: c.base ?? 'main' })),
              // A tree per decision, as per base head: it keeps claims by task id, and the
              // engines' databases number their tasks alike.
              new Map([['main', new RepoTree(LISTING)]]),
              NOW.getTime(),
            );
            if (blocked.length > 0) overlapCases++;
            return blocked;
          },
        );
        expect(claimed.map((c) => `${c.run.id}/${c.task.taskKey}`)).toEqual(expected);
      }),
      // A share that binds takes ready tasks beyond it: about one case in twenty, so enough runs
      // that some always come.
      { numRuns: 150 },
    );
    // The generated repositories did make tasks wait on overlaps.
    expect(overlapCases).toBeGreaterThan(0);
    // ...and the installation's share held some back.
    expect(shareCases).toBeGreaterThan(0);
  });
});
