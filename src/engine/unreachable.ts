import {
  decideUnreachableRun,
  unreachableBecause,
  type Unreachable,
} from '../core/lifecycle/index.js';
import type { AttemptRow } from '../store/attempt-row.js';
import type { RunRow, TaskRow } from '../store/runs.js';
import type { Engine } from './context.js';
import { scheduleRepository } from './dispatch.js';
import { completePlannerAttempt, isPlannerTask } from './planner.js';

/** An attempt not completed, with its task and run, as `attempts.open` reads it. */
export interface OpenAttempt {
  attempt: AttemptRow;
  task: TaskRow;
  run: RunRow;
}

/**
 * The App can no longer reach these repositories (docs/running.md, "Removing the App"): each one's
 * runs end, and the slots their tasks held go at once to the repositories waiting for them. Only
 * the database is written: GitHub would refuse anything for them. A repository given back to the
 * App meanwhile is left as it is.
 */
export async function endUnreachableRepositories(
  engine: Engine,
  repositoryIds: readonly number[],
): Promise<void> {
  for (const repositoryId of repositoryIds) {
    const repository = await engine.store.repositories.getRepository(repositoryId);
    const why = repository && unreachableBecause(repository);
    if (!why) continue;
    const open = await engine.store.attempts.open(repositoryId);
    const runs = new Map((await engine.store.runs.activeRuns(repositoryId)).map((r) => [r.id, r]));
    // A run that ended before with an attempt still out (a cancel cut short) finishes too.
    for (const o of open) runs.set(o.run.id, o.run);
    for (const run of runs.values())
      await endUnreachableRun(
        engine,
        run,
        open.filter((o) => o.run.id === run.id),
        why,
      );
    // Its pass claims nothing (the repository is unreachable): it hands what the ended runs freed
    // to other repositories' waiting tasks (src/core/scheduler/fair-share.ts).
    await scheduleRepository(engine, repositoryId, repository);
  }
}

/**
 * One run of an unreachable repository, as core's `decideUnreachableRun` decides; true when it
 * ended here.
 */
export async function endUnreachableRun(
  engine: Engine,
  run: RunRow,
  /** The run's attempts not completed. */
  open: readonly OpenAttempt[],
  why: Unreachable,
): Promise<boolean> {
  const tasks = await engine.store.runs.tasksOf(run.id);
  const effects = decideUnreachableRun(
    {
      run: { state: run.state, finished: run.finishedAt !== null },
      tasks: tasks.map((t) => ({ key: t.taskKey, state: t.state })),
      openAttempts: open.map((o) => ({ id: o.attempt.id, planner: isPlannerTask(o.task) })),
    },
    why,
  );
  const log = engine.log.child({ run: run.id, issue: run.issueNumber, why });
  let ended = false;
  for (const effect of effects) {
    switch (effect.kind) {
      case 'none':
        log.debug({ reason: effect.reason }, 'unreachable repository: nothing to end');
        break;
      case 'endRun':
        ended = await engine.store.runs.finishRun(run.id, effect.move, {
          endReason: effect.reason,
        });
        if (ended) log.info('run ended: the App can no longer reach its repository');
        break;
      case 'cancelTask': {
        const task = tasks.find((t) => t.taskKey === effect.task);
        // decideUnreachableRun only names tasks it was shown.
        if (!task) throw new Error(`no task ${effect.task} in run ${run.id}`);
        await engine.store.runs.transitionTask(task.id, 'cancelled');
        break;
      }
      case 'completeAttempt': {
        const out = open.find((o) => o.attempt.id === effect.attempt);
        // decideUnreachableRun only names attempts it was shown.
        if (!out) throw new Error(`no open attempt ${effect.attempt} in run ${run.id}`);
        const { attempt, task } = out;
        if (effect.planner) await completePlannerAttempt(engine, task, attempt, 'cancelled');
        else
          await engine.store.attempts.complete(attempt.id, {
            conclusion: 'cancelled',
            failureReason: effect.failureReason,
          });
        break;
      }
    }
  }
  return ended;
}
