import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decideMerges,
  type MergeCheck,
  type MergePull,
  type MergeSnapshot,
  type MergeTask,
} from '../../../src/core/merge/index.js';
import { TASK_STATES } from '../../../src/core/states.js';

const SHAS = ['aaa1111', 'bbb2222'];
const ACTS = new Set(['merge', 'enqueue', 'update_branch']);

/** `usual` most of the time, anything from `rest` otherwise: keeps the ready path well visited. */
function mostly<T>(usual: fc.Arbitrary<T>, rest: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.oneof({ arbitrary: usual, weight: 4 }, { arbitrary: rest, weight: 1 });
}

const checkArb: fc.Arbitrary<MergeCheck> = mostly(
  fc.record({
    name: fc.constantFrom('ci/test', 'lint'),
    status: fc.constant('completed' as const),
    conclusion: fc.constant('success'),
  }),
  fc.record({
    name: fc.constantFrom('ci/test', 'lint', 'docs'),
    status: fc.constantFrom(
      'queued',
      'in_progress',
      'completed',
      'pending',
      'waiting',
      'requested',
    ),
    conclusion: fc.constantFrom(null, 'success', 'neutral', 'skipped', 'failure', 'cancelled'),
  }),
);

const rarely = (arb: fc.Arbitrary<unknown>) =>
  mostly(
    fc.constant(undefined),
    arb.map((v) => v as never),
  ) as fc.Arbitrary<never>;
const rareTrue = mostly(fc.constant(false), fc.constant(true));

const pullArb = fc.record({
  headSha: fc.constantFrom(...SHAS),
  baseRef: fc.constantFrom('main', 'main', 'release'),
  mergeableState: mostly(
    fc.constantFrom('clean', 'behind'),
    fc.constantFrom('dirty', 'blocked', 'unstable', 'has_hooks', 'unknown', 'draft', 'odd'),
  ),
  mergeable: mostly(fc.constant(true), fc.constantFrom(false, null)),
  draft: rareTrue,
  checks: fc.array(checkArb, { maxLength: 3 }),
  inMergeQueue: rareTrue,
  updatedByCoordinatorFrom: rarely(fc.constantFrom(...SHAS)) as fc.Arbitrary<string | undefined>,
  sentBackForSha: rarely(fc.constantFrom(...SHAS)) as fc.Arbitrary<string | undefined>,
});

/** A random run: a DAG (deps only on earlier tasks), any states, PRs for some tasks. */
const snapshotArb: fc.Arbitrary<MergeSnapshot> = fc
  .integer({ min: 1, max: 9 })
  .chain((n) =>
    fc.record({
      tasks: fc.tuple(
        ...Array.from({ length: n }, (_, i) =>
          fc.record({
            taskId: fc.constant(`t${i}`),
            deps: fc.subarray(Array.from({ length: i }, (_, j) => `t${j}`)),
            state: mostly(
              fc.constantFrom('in_review', 'approved', 'merged'),
              fc.constantFrom(...TASK_STATES),
            ),
            held: rareTrue,
            vetoReason: rarely(fc.constant('no')) as fc.Arbitrary<string | undefined>,
            approvedSha: mostly(fc.constantFrom(...SHAS), fc.constant(undefined)),
          }),
        ),
      ),
      // Most tasks have a PR; numbers are shuffled so PR order and dep order disagree.
      pulls: fc
        .tuple(
          fc.shuffledSubarray(
            Array.from({ length: 40 }, (_, i) => i + 1),
            { minLength: n + 1, maxLength: n + 1 },
          ),
          fc.array(mostly(fc.constant(true), fc.constant(false)), {
            minLength: n + 1,
            maxLength: n + 1,
          }),
          fc.array(pullArb, { minLength: n + 1, maxLength: n + 1 }),
          // Now and then a second PR for a task, or one for a task the run does not have.
          fc.array(fc.integer({ min: 0, max: n }), { maxLength: 1 }),
        )
        .map(([numbers, present, pulls, extra]) => [
          ...pulls.flatMap((pull, i) =>
            i < n && present[i] ? [{ ...pull, taskId: `t${i}`, number: numbers[i] as number }] : [],
          ),
          ...extra.map((i) => ({
            ...(pulls[n] as (typeof pulls)[number]),
            taskId: `t${i}`,
            number: numbers[n] as number,
          })),
        ]),
      runBase: fc.constantFrom('main', 'release'),
      runHeld: rareTrue,
      requireApproval: fc.boolean(),
      mergeQueue: fc.boolean(),
      mergeMethod: fc.constantFrom('merge' as const, 'squash' as const, 'rebase' as const),
      inFlightPrs: fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 1 }),
    }),
  )
  .map((s) => {
    const tasks = s.tasks as MergeTask[];
    const merged = new Set(tasks.filter((t) => t.state === 'merged').map((t) => t.taskId));
    // A merged task's PR is closed; keep a few open ones (webhook lag) to cover that too.
    const pulls = (s.pulls as MergePull[]).filter(
      (p) => !merged.has(p.taskId) || p.number % 5 === 0,
    );
    return { ...s, tasks, pulls };
  });

const PROPERTY_RUNS = { numRuns: 1000 };

describe('decideMerges properties', () => {
  it('gives exactly one decision per open PR', () => {
    fc.assert(
      fc.property(snapshotArb, (snap) => {
        const decisions = decideMerges(snap);
        expect(decisions.map((d) => d.pr).sort((a, b) => a - b)).toEqual(
          snap.pulls.map((p) => p.number).sort((a, b) => a - b),
        );
      }),
      PROPERTY_RUNS,
    );
  });

  it('never merges, enqueues or updates a PR with an unmerged dep', () => {
    fc.assert(
      fc.property(snapshotArb, (snap) => {
        const byId = new Map(snap.tasks.map((t) => [t.taskId, t]));
        for (const d of decideMerges(snap)) {
          if (!ACTS.has(d.kind)) continue;
          const task = byId.get(d.taskId);
          expect(task).toBeDefined();
          for (const dep of task?.deps ?? []) expect(byId.get(dep)?.state).toBe('merged');
        }
      }),
      PROPERTY_RUNS,
    );
  });

  it("acts only on an approved, green, unheld, unvetoed PR into the run's base that is not already merging", () => {
    fc.assert(
      fc.property(snapshotArb, (snap) => {
        const byId = new Map(snap.tasks.map((t) => [t.taskId, t]));
        const pulls = new Map(snap.pulls.map((p) => [p.number, p]));
        for (const d of decideMerges(snap)) {
          if (!ACTS.has(d.kind)) continue;
          const task = byId.get(d.taskId) as MergeTask;
          const pull = pulls.get(d.pr) as MergePull;
          expect(['in_review', 'approved']).toContain(task.state);
          expect(pull.baseRef).toBe(snap.runBase);
          expect(task.held || snap.runHeld || task.vetoReason !== undefined).toBe(false);
          expect(pull.inMergeQueue || pull.draft).toBe(false);
          expect(snap.inFlightPrs).not.toContain(d.pr);
          expect(pull.checks.every((c) => c.status === 'completed')).toBe(true);
          expect(
            pull.checks.every((c) =>
              ['success', 'neutral', 'skipped'].includes(c.conclusion ?? ''),
            ),
          ).toBe(true);
          if (snap.requireApproval) {
            expect(task.approvedSha).toBe(pull.headSha);
          }
          expect(d.kind === 'enqueue').toBe(snap.mergeQueue);
          if (d.kind === 'merge') expect(d.sha).toBe(pull.headSha);
        }
      }),
      PROPERTY_RUNS,
    );
  });

  it('takes at most one merge or update per base branch, none while a merge is in flight', () => {
    fc.assert(
      fc.property(snapshotArb, (snap) => {
        const pulls = new Map(snap.pulls.map((p) => [p.number, p]));
        const decisions = decideMerges(snap);
        const byBase = new Map<string, number>();
        for (const d of decisions) {
          if (d.kind !== 'merge' && d.kind !== 'update_branch') continue;
          const base = pulls.get(d.pr)?.baseRef ?? '';
          byBase.set(base, (byBase.get(base) ?? 0) + 1);
        }
        for (const count of byBase.values()) expect(count).toBeLessThanOrEqual(1);
        for (const d of decisions) {
          if (d.kind !== 'wait' || d.reason !== 'merging') continue;
          const base = pulls.get(d.pr)?.baseRef;
          expect(byBase.get(base ?? '') ?? 0).toBe(0);
        }
      }),
      PROPERTY_RUNS,
    );
  });

  it('sends a head back at most once and dequeues only queued PRs', () => {
    fc.assert(
      fc.property(snapshotArb, (snap) => {
        const pulls = new Map(snap.pulls.map((p) => [p.number, p]));
        for (const d of decideMerges(snap)) {
          const pull = pulls.get(d.pr) as MergePull;
          if (d.kind === 'send_back_to_worker') expect(pull.sentBackForSha).not.toBe(pull.headSha);
          if (d.kind === 'dequeue') expect(pull.inMergeQueue).toBe(true);
        }
      }),
      PROPERTY_RUNS,
    );
  });

  it('answers a dep before its dependents', () => {
    fc.assert(
      fc.property(snapshotArb, (snap) => {
        const position = new Map<string, number>();
        decideMerges(snap).forEach((d, i) => {
          if (!position.has(d.taskId)) position.set(d.taskId, i);
        });
        for (const task of snap.tasks) {
          const mine = position.get(task.taskId);
          if (mine === undefined) continue;
          for (const dep of task.deps) {
            const theirs = position.get(dep);
            if (theirs !== undefined) expect(theirs).toBeLessThan(mine);
          }
        }
      }),
      PROPERTY_RUNS,
    );
  });
});
