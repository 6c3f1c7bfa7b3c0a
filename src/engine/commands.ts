import {
  decideCommand,
  taskInState,
  type Command,
  type CommandEffect,
} from '../core/commands/index.js';
import { commandApproval } from '../core/lifecycle/index.js';
import { runTransition } from '../core/transitions.js';
import type { RunGraph, TaskRow } from '../store/runs.js';
import type { Engine, RunScope } from './context.js';
import { scheduleRepository, schedulingOnce } from './dispatch.js';
import { cancelRun } from './cancel.js';
import { cancelLatestAttempt } from './cancel-attempt.js';
import { enforceBudget } from './budget.js';
import { recordApproval } from './approval.js';
import { advanceRun } from './merge/index.js';
import { applyPlan } from './start-run.js';
import { refreshStatus } from './status.js';
import { currentPullOf } from './track.js';
import { reviewFeedbackOf, type StoredFeedback } from './feedback.js';

export type CommandOutcome = { ok: true; reply?: string } | { ok: false; reason: string };

export interface CommandTarget {
  scope: RunScope;
  /**
   * Set when the comment is on the task's agent PR. Only its key is used: the task's state is
   * read with the rest of the run.
   */
  task?: TaskRow;
  actor: string;
  /** The comment's `created_at`. */
  writtenAt: Date;
}

/**
 * Carry out one command: read the run once, let core decide (`decideCommand`, with every "no"
 * saying why, for the reply), then apply its effects in order.
 */
export function executeCommand(
  engine: Engine,
  target: CommandTarget,
  command: Command,
): Promise<CommandOutcome> {
  return schedulingOnce(engine, () => carryOut(engine, target, command));
}

async function carryOut(
  engine: Engine,
  target: CommandTarget,
  command: Command,
): Promise<CommandOutcome> {
  const graph = await engine.store.runs.graphOf(target.scope.run.id);
  const decision = decideCommand(
    { run: target.scope.run, tasks: graph.tasks, deps: graph.depsOf },
    command,
    { taskKey: target.task?.taskKey, actor: target.actor, writtenAt: target.writtenAt },
  );
  if (!decision.ok) return decision;
  let scope = target.scope;
  let reply: string | undefined;
  for (const effect of decision.effects) {
    if (effect.kind === 'reply') {
      reply = effect.text;
      continue;
    }
    if (effect.kind === 'moveRun') {
      const moved = await engine.store.runs.transitionRun(scope.run.id, effect.move, effect.values);
      if (!moved) return { ok: false, reason: effect.otherwise };
      const state = runTransition(effect.move).to;
      scope = { ...scope, run: { ...scope.run, ...effect.values, state } };
      continue;
    }
    if (effect.kind === 'reopenRun') {
      if (!(await engine.store.runs.reopenRun(scope.run.id)))
        return { ok: false, reason: effect.otherwise };
      const state = runTransition('reopened').to;
      scope = { ...scope, run: { ...scope.run, state, finishedAt: null } };
      continue;
    }
    const refusal = await apply(engine, scope, graph, effect);
    if (refusal !== undefined) return { ok: false, reason: refusal };
  }
  return reply === undefined ? { ok: true } : { ok: true, reply };
}

/** One effect; returns the refusal when a guarded one did not take. */
async function apply(
  engine: Engine,
  scope: RunScope,
  graph: RunGraph,
  effect: Exclude<CommandEffect, { kind: 'reply' | 'moveRun' | 'reopenRun' }>,
): Promise<string | undefined> {
  const { runs } = engine.store;
  const taskOf = (key: string): TaskRow => {
    const task = graph.byKey.get(key);
    // decideCommand only names tasks of the snapshot.
    if (!task) throw new Error(`no task ${key} in run ${scope.run.id}`);
    return task;
  };
  switch (effect.kind) {
    case 'refreshStatus':
      await runs.bumpStatus(scope.run.id);
      // `/status` changes nothing first: the graph read for the decision is the run's now, and
      // the scope is the run's, with the run as the refresh reads it under its lock.
      await refreshStatus(engine, scope.run.id, {
        scopeOf: async (run) => ({ ...scope, run }),
        graph,
      });
      return undefined;

    case 'applyPlan':
      return (await applyPlan(engine, scope, effect.body, 'command'))
        ? undefined
        : effect.otherwise;

    case 'cancelRun':
      return (await cancelRun(engine, scope, effect.why)) ? undefined : effect.otherwise;

    case 'enforceBudget':
      await enforceBudget(engine, scope);
      return undefined;

    case 'transition': {
      const task = taskOf(effect.task);
      const values =
        effect.feedbackFrom === undefined
          ? effect.values
          : {
              ...effect.values,
              ...(await retryFeedbackOf(
                engine,
                scope,
                task.prNumber,
                effect.feedbackFrom,
                effect.values?.pendingFeedback,
              )),
            };
      const moved = await runs.transitionTask(task.id, effect.move, values);
      return moved || effect.otherwise === undefined ? undefined : effect.otherwise;
    }

    case 'updateTask':
      await runs.updateTaskFields(taskOf(effect.task).id, effect.values, {
        expected: effect.whileIn,
      });
      return undefined;

    case 'cancelAttempt':
      await cancelLatestAttempt(engine, scope, taskOf(effect.task), effect.why);
      return undefined;

    case 'approve': {
      // The head as GitHub shows it now: the PR may be newer than anything handled so far.
      const current = await currentPullOf(engine, scope, taskOf(effect.task));
      if (!current) return effect.otherwise;
      const { pull, task, workPushedAt, deliveredHead, update } = current;
      const decided = commandApproval({
        named: effect.named,
        head: pull.headSha,
        deliveredHead,
        update,
        writtenAt: effect.writtenAt,
        workPushedAt,
        by: effect.by,
      });
      if (!decided.ok) return decided.reason;
      const approved = await recordApproval(engine, task, decided.approval);
      return approved ? undefined : taskInState(task.taskKey, task.state);
    }

    case 'requestStatus':
      engine.requestStatus(scope.run.id);
      return undefined;

    case 'schedule':
      await scheduleRepository(engine, scope.repositoryId, scope.repository);
      return undefined;

    case 'advance':
      await advanceRun(engine, scope);
      return undefined;
  }
}

/**
 * A `/retry`'s feedback, vetted (docs/lifecycle.md, "Vetted feedback"), and the unresolved review
 * threads of the task's PR when it has one, for the next attempt (read before the task moves, so
 * the scheduler never dispatches it without them).
 */
async function retryFeedbackOf(
  engine: Engine,
  scope: RunScope,
  prNumber: number | null,
  actor: string,
  feedback: string | null | undefined,
): Promise<{ pendingReview?: StoredFeedback; pendingFeedback?: string }> {
  const pull = prNumber === null ? null : await scope.port.pull(scope.repo, prNumber);
  const { review, text: vetted } = await reviewFeedbackOf(
    engine,
    scope,
    prNumber,
    { reviewer: actor, body: '', url: pull?.htmlUrl ?? '' },
    feedback ?? '',
  );
  const text = feedback ? { pendingFeedback: vetted } : {};
  // Threads left out are still said to the worker: how many, never their words.
  if (review.threads.length === 0 && review.omittedThreads === 0 && !review.omittedComments)
    return text;
  return { pendingReview: { review }, ...text };
}
