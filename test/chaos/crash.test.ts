import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CRASH_POINTS } from '../../src/crash-points.js';
import { CrashRun, DoubleProcess, type CrashScenario, type ScenarioOutcome } from './harness.js';
import { DONE_LABEL, DONE_STATUS } from './shared.js';

/**
 * The crash test: the coordinator (`src/main.ts`, a real process on Postgres) is killed with
 * SIGKILL at one of its own steps (`src/crash-points.ts`) during the docs/tasks-block.md run, while the
 * GitHub double goes on in its own process: its workers keep working and every webhook sent
 * while the coordinator is down fails. After a restart the run must still finish, with each
 * task dispatched once per attempt and merged once, in dependency order.
 *
 * `npm test` runs the `quick` rows; `npm run test:chaos` (CHAOS_FULL=1) runs them all.
 * CHAOS_LOG_DIR=<dir> keeps every coordinator's log and the phases' timings, one file a row.
 */
interface Row extends CrashScenario {
  quick?: boolean;
}

const TASKS = ['task_001', 'task_002', 'task_003', 'task_004'];

const ROWS: Row[] = [
  { crashes: ['ingest.stored#2'], quick: true },
  { crashes: ['processor.claimed#3'] },
  { crashes: ['processor.handled#2'] },
  { crashes: ['start.run-created'] },
  { crashes: ['start.status-written'] },
  { crashes: ['plan.stored'] },
  { crashes: ['dispatch.intent-recorded'], planner: true },
  { crashes: ['dispatch.called'], planner: true, quick: true },
  { crashes: ['dispatch.intent-recorded'] },
  { crashes: ['dispatch.branch-created#2'] },
  { crashes: ['dispatch.called'], quick: true },
  { crashes: ['dispatch.run-recorded#3'] },
  { crashes: ['track.running'] },
  { crashes: ['track.before-complete#2'] },
  { crashes: ['track.attempt-completed'] },
  { crashes: ['track.in-review#3'] },
  // Between reading a PR's changed files and recording them: the delivery reads them again.
  { crashes: ['changed-files.read'], files: true, quick: true },
  { crashes: ['status.claimed#2'] },
  { crashes: ['status.comment-created'] },
  { crashes: ['merge.order-check-created#2'] },
  { crashes: ['merge.claimed'] },
  { crashes: ['merge.called#2'] },
  { crashes: ['merge.dependents-freed'], quick: true },
  { crashes: ['merge.dependents-freed#3'] },
  { crashes: ['merge.enqueued#2'], mergeQueue: true },
  { crashes: ['finish.run-finished'] },
  { crashes: ['finish.labelled'], quick: true },
  // Between a command's claim and its effect: the claiming delivery carries it out after the restart.
  { crashes: ['command.claimed'], command: '/status' },
  // Crashes while recovering from a crash.
  { crashes: ['dispatch.intent-recorded', 'sweep.before-redispatch'] },
  { crashes: ['dispatch.called', 'sweep.before-adopt'], missedEvents: ['workflow_run'] },
  { crashes: ['dispatch.called#2', 'redeliver.requested'] },
  // dispatch.stack: task_002 and task_003 stacked on task_001's PR, which a review round moves
  // (they follow its new head). What a crash left half done is finished by the startup pass and
  // the events that follow, with no periodic sweep after the restart: a delivery the killed
  // process had in hand is taken over at once (its session is gone), not once its claim is stale.
  { crashes: ['stack.permitted'], stack: 'review', periodicSweep: false },
  { crashes: ['stack.restacked'], stack: 'review', periodicSweep: false },
  // Killed between recording a child's restack as asked and asking GitHub, or between GitHub's
  // merge (its push webhook failing while the coordinator is down) and recording its commit: the
  // restart spends the update, takes the push for new work, and restacks the child once.
  { crashes: ['merge.update-asked'], stack: 'review', periodicSweep: false },
  { crashes: ['merge.branch-merged'], stack: 'review', periodicSweep: false },
  { crashes: ['stack.retargeted'], stack: 'review', periodicSweep: false, quick: true },
  // task_001 vetoed while task_002 and task_003 are stacked on it (they are cancelled), then
  // retried (they are dispatched again, stacked on its fix).
  { crashes: ['stack.cancelled'], stack: 'veto', periodicSweep: false },
  { crashes: ['stack.cancelled#2'], stack: 'veto', periodicSweep: false },
  // A workflow file pushed to task_001's branch: GitHub refuses the App the updates of task_002
  // and task_003 (403). Killed after a child's PR was told, before the refusal was recorded: the
  // next event is refused again and finds the comment; a maintainer's merge ends the wait.
  { crashes: ['merge.update-refusal-told'], stack: 'workflow', periodicSweep: false },
  // task_001's branch rewritten by the maintainer (its first head dropped): task_002 and
  // task_003 are told, once each, and brought up to date. Killed after a child was told, before
  // its update: the restart tells no one twice and updates it.
  { crashes: ['stack.parent-rewritten-told'], stack: 'rewrite', periodicSweep: false },
];

/**
 * Attempts per task: a review round adds task_001's fix; a veto then retry adds task_001's fix
 * and a new start of each cancelled child.
 */
function attemptsOf(row: Row, task: string): number {
  if (row.stack === 'review') return task === 'task_001' ? 2 : 1;
  if (row.stack === 'veto') return task === 'task_004' ? 1 : 2;
  return 1;
}

const full = process.env.CHAOS_FULL === '1';
const rows = full ? ROWS : ROWS.filter((row) => row.quick);

function title(row: Row): string {
  const notes = [
    ...(row.planner ? ['planner'] : []),
    ...(row.mergeQueue ? ['merge queue'] : []),
    ...(row.command ? [`command ${row.command}`] : []),
    ...(row.files ? ['files:'] : []),
    ...(row.stack ? [`dispatch.stack, ${row.stack}`] : []),
    ...(row.missedEvents ?? []).map((e) => `no ${e} webhooks`),
    ...(row.periodicSweep === false ? ['no periodic sweep after the restart'] : []),
  ];
  return `${row.crashes.join(' → ')}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
}

function expectCompleted(outcome: ScenarioOutcome, row: Row): void {
  const { report } = outcome;
  expect(report.problems).toEqual([]);

  // The run finished: merged, labelled, closed, one status comment that says so.
  expect(report.issue).toEqual({ state: 'closed', labels: expect.arrayContaining([DONE_LABEL]) });
  expect(outcome.runStates).toEqual(['done']);
  expect(report.statusComments).toHaveLength(1);
  expect(report.statusComments[0]).toContain(DONE_STATUS);

  // Exactly one workflow run per (task, attempt), and no attempt beyond those the scenario asks
  // for (the worker never fails, so another attempt would be a dispatch repeated by mistake).
  // The planner is a task like the others: one run, of its attempt 1, completed.
  const planner = report.runs.filter((r) => r.task === 'plan');
  expect(planner).toHaveLength(row.planner ? 1 : 0);
  if (row.planner)
    expect(outcome.attempts.get('plan')).toEqual([
      { attempt: 1, phase: 'completed', workflowRunId: planner[0]!.id },
    ]);
  const dispatched = report.runs
    .filter((r) => r.task !== 'plan')
    .map((r) => `${r.task}#${r.attempt}`);
  const attempts = (task: string) => Array.from({ length: attemptsOf(row, task) }, (_, i) => i + 1);
  expect(dispatched.sort()).toEqual(TASKS.flatMap((t) => attempts(t).map((a) => `${t}#${a}`)));
  for (const task of TASKS) {
    expect(outcome.attempts.get(task)).toEqual(
      attempts(task).map((attempt) => ({
        attempt,
        phase: 'completed',
        workflowRunId: report.runs.find((r) => r.task === task && r.attempt === String(attempt))!
          .id,
      })),
    );
  }

  // One PR per task, each merged once (by exactly one successful merge call, or by the merge
  // queue with none), in dependency order.
  expect(report.pulls.map((p) => p.task).sort()).toEqual(TASKS);
  expect(report.pulls.every((p) => p.merged)).toBe(true);
  for (const pull of report.pulls)
    expect(report.merges[pull.number]).toBe(row.mergeQueue ? undefined : 1);
  expect(report.mergeOrder).toHaveLength(4);
  expect(new Set(report.mergeOrder).size).toBe(4);
  expect(report.mergeOrder[0]).toBe('task_001');
  expect(report.mergeOrder[3]).toBe('task_004');

  // No webhook that failed while the coordinator was down was lost: each one reached the
  // inbox (redelivered through the App's delivery log, or stored before the crash).
  const lost = report.deliveries.failedGuids.filter((g) => !outcome.storedDeliveries.has(g));
  expect(lost).toEqual([]);
}

describe('crash points', () => {
  it('lists only points the code reaches, and the code uses only listed points', () => {
    const root = resolve(import.meta.dirname, '../../src');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.ts'),
    );
    const used = new Set<string>();
    for (const file of files) {
      for (const m of readFileSync(join(root, file), 'utf8').matchAll(/crashPoint\('([^']+)'\)/g))
        used.add(m[1]!);
    }
    expect([...used].sort()).toEqual([...CRASH_POINTS].sort());
    expect(CRASH_POINTS.length).toBeGreaterThanOrEqual(20);
    // The full table crashes at every point at least once.
    const tried = new Set(ROWS.flatMap((r) => r.crashes.map((c) => c.split('#')[0])));
    expect([...CRASH_POINTS].filter((p) => !tried.has(p))).toEqual([]);
  });
});

describe.concurrent('the docs/tasks-block.md run survives SIGKILL at', () => {
  // One process for the doubles of every scenario (each double has its own port and state).
  let doubles: DoubleProcess;
  // Runs not closed yet: a test that timed out still has its processes stopped.
  const open = new Set<CrashRun>();
  beforeAll(async () => {
    doubles = await DoubleProcess.start();
  });
  afterAll(async () => {
    await Promise.all([...open].map((run) => run.close()));
    await doubles?.close();
  });

  for (const row of rows) {
    it(title(row), { timeout: 240_000 }, async () => {
      const run = new CrashRun(row, doubles, inject('templateDatabase'));
      open.add(run);
      try {
        const outcome = await run.run();
        if (process.env.CHAOS_LOG_DIR) run.saveLogs(process.env.CHAOS_LOG_DIR, title(row));
        expectCompleted(outcome, row);
      } catch (error) {
        // What the coordinator processes said last is what explains a failure.
        if (error instanceof Error) error.message += `\n${run.tail()}`;
        throw error;
      } finally {
        await run.close();
        open.delete(run);
      }
    });
  }
});
