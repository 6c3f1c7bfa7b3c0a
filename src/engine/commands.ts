import type { Command } from '../core/commands/index.js';
import { helpText } from '../core/commands/index.js';
import { DependencyIndex } from '../core/scheduler/index.js';
import type { TaskState } from '../core/states.js';
import { canMoveTask } from '../core/transitions.js';
import type { TaskRow } from '../store/runs.js';
import type { Engine, RunScope } from './context.js';
import { scheduleRepository } from './dispatch.js';
import { blockDependents } from './failures.js';
import { cancelRun } from './finish.js';
import { APPROVABLE, recordApproval } from './approval.js';
import { advanceRun } from './merge.js';
import { applyPlan } from './start-run.js';
import { refreshStatus } from './status.js';
import { currentPullOf } from './track.js';

export type CommandOutcome = { ok: true; reply?: string } | { ok: false; reason: string };

export interface CommandTarget {
  scope: RunScope;
  /** Set when the comment is on the task's agent PR. */
  task?: TaskRow;
  actor: string;
}

/** Carry out one accepted command. Every "no" says why, for the reply. */
export async function executeCommand(
  engine: Engine,
  target: CommandTarget,
  command: Command,
): Promise<CommandOutcome> {
  const { scope } = target;
  const { runs } = engine.store;
  const run = scope.run;
  const resolveTask = async (taskId: string | undefined): Promise<TaskRow | { error: string }> => {
    if (target.task) return target.task;
    if (!taskId) return { error: 'name the task, e.g. `/retry task_001`' };
    const task = await runs.task(run.id, taskId);
    return task ?? { error: `there is no task \`${taskId}\` in this run` };
  };

  switch (command.name) {
    case 'help':
      return { ok: true, reply: helpText(target.task ? 'pull_request' : 'issue') };

    case 'status':
      await runs.bumpStatus(run.id);
      await refreshStatus(engine, run.id);
      return { ok: true };

    case 'plan': {
      if (run.finishedAt)
        return {
          ok: false,
          reason: 'the run has finished; add the label again to start a new one',
        };
      const merged = (await runs.tasksOf(run.id)).some((t) => t.state === 'merged');
      if (merged)
        return {
          ok: false,
          reason: 'a task has already been merged: the plan can no longer be replaced',
        };
      const inflight = (await runs.tasksOf(run.id)).filter(
        (t) => t.state === 'dispatched' || t.state === 'running',
      );
      if (inflight.length > 0) {
        return {
          ok: false,
          reason: `workers are running (${inflight.map((t) => t.taskKey).join(', ')}): \`/hold\` and wait for them, then send the plan again`,
        };
      }
      const accepted = await applyPlan(engine, scope, command.body, 'command');
      return accepted
        ? { ok: true }
        : { ok: false, reason: 'the plan is invalid; the status comment lists the errors' };
    }

    case 'cancel': {
      if (!target.task) {
        const done = await cancelRun(engine, scope, `/cancel by @${target.actor}`);
        return done ? { ok: true } : { ok: false, reason: 'the run has already finished' };
      }
      const task = target.task;
      const cancelled = await runs.transitionTask(task.id, 'cancelled');
      if (!cancelled) return { ok: false, reason: `task \`${task.taskKey}\` is ${task.state}` };
      const latest = await engine.store.attempts.latestOf(task.id);
      if (latest && latest.phase !== 'completed' && latest.workflowRunId !== null) {
        await scope.port.cancelWorkflowRun(scope.repo, latest.workflowRunId);
        await engine.store.attempts.complete(latest.id, {
          conclusion: 'cancelled',
          failureReason: `/cancel by @${target.actor}`,
        });
      }
      await blockDependents(engine, run.id, task.taskKey);
      engine.requestStatus(run.id);
      await scheduleRepository(engine, scope.repositoryId);
      return { ok: true };
    }

    case 'hold':
    case 'unhold': {
      const hold = command.name === 'hold';
      if (target.task) {
        await runs.updateTaskFields(
          target.task.id,
          { held: hold },
          { expected: target.task.state },
        );
        if (!hold) await advanceRun(engine, scope);
        return { ok: true };
      }
      if (run.finishedAt) return { ok: false, reason: 'the run has finished' };
      if (hold && run.state !== 'running' && run.state !== 'held')
        return { ok: false, reason: `the run is ${run.state}` };
      if (!hold && run.state !== 'held') return { ok: false, reason: 'the run is not held' };
      const moved = await runs.transitionRun(run.id, hold ? 'held' : 'unheld', {
        held: hold,
        holdReason: hold ? `/hold by @${target.actor}` : null,
        // Lifting a budget hold waives the budget for this run (docs/configuration.md).
        ...(!hold && run.holdReason?.startsWith('budget') ? { budgetWaived: true } : {}),
      });
      if (!moved) return { ok: false, reason: `the run is no longer ${run.state}` };
      if (!hold) {
        await scheduleRepository(engine, scope.repositoryId);
        await advanceRun(engine, { ...scope, run: (await runs.getRun(run.id)) ?? run });
      }
      return { ok: true };
    }

    case 'approve': {
      if (!target.task && !command.taskId) {
        if (run.state !== 'awaiting_approval')
          return {
            ok: false,
            reason: `there is no plan waiting for approval (the run is ${run.state})`,
          };
        const approved = await runs.transitionRun(
          run.id,
          { event: 'plan approved', to: run.held ? 'held' : 'running' },
          { planApproved: true },
        );
        if (!approved) return { ok: false, reason: 'the plan is no longer waiting for approval' };
        await scheduleRepository(engine, scope.repositoryId);
        return { ok: true };
      }
      const task = await resolveTask(command.taskId);
      if ('error' in task) return { ok: false, reason: task.error };
      if (!APPROVABLE.includes(task.state))
        return { ok: false, reason: `task \`${task.taskKey}\` is ${task.state}` };
      // The head as GitHub shows it now: the PR may be newer than anything handled so far.
      const pull = await currentPullOf(engine, scope, task);
      if (!pull) return { ok: false, reason: `task \`${task.taskKey}\` has no pull request yet` };
      const fresh = (await runs.taskById(task.id)) ?? task;
      const approved = await recordApproval(engine, fresh, {
        sha: pull.headSha,
        by: target.actor,
        currentHead: pull.headSha,
      });
      if (!approved) return { ok: false, reason: `task \`${task.taskKey}\` is ${fresh.state}` };
      await advanceRun(engine, { ...scope, run: (await runs.getRun(run.id)) ?? run });
      return { ok: true };
    }

    case 'veto': {
      const task = await resolveTask(command.taskId);
      if ('error' in task) return { ok: false, reason: task.error };
      const vetoed = await runs.transitionTask(task.id, 'vetoed', {
        vetoReason: command.reason ?? `vetoed by @${target.actor}`,
        approvedSha: null,
      });
      if (!vetoed) return { ok: false, reason: `task \`${task.taskKey}\` is ${task.state}` };
      await blockDependents(engine, run.id, task.taskKey);
      await advanceRun(engine, scope);
      return { ok: true };
    }

    case 'retry': {
      const task = await resolveTask(command.taskId);
      if ('error' in task) return { ok: false, reason: task.error };
      if (!canMoveTask(task.state, 'retried'))
        return {
          ok: false,
          reason: `task \`${task.taskKey}\` is ${task.state}: it is already running or merged`,
        };
      const feedback = [
        task.state === 'vetoed' && task.vetoReason ? `Veto: ${task.vetoReason}` : '',
        command.feedback ?? '',
      ]
        .filter(Boolean)
        .join('\n\n');
      if (run.finishedAt) {
        const reopened = await engine.store.runs.reopenRun(run.id);
        if (!reopened) return { ok: false, reason: 'another run of this issue is active' };
      }
      await runs.transitionTask(task.id, 'retried', {
        nextMode: task.prNumber === null ? 'work' : 'fix',
        pendingFeedback: feedback || null,
        nextAttemptAt: null,
        vetoReason: null,
        approvedSha: null,
      });
      await unblockDependents(engine, run.id, task.taskKey);
      await scheduleRepository(engine, scope.repositoryId);
      return { ok: true };
    }
  }
}

/** Tasks blocked only because of `taskKey` become pending again once it is retried. */
async function unblockDependents(engine: Engine, runId: number, taskKey: string): Promise<void> {
  const { depsOf: deps, byKey } = await engine.store.runs.graphOf(runId);
  const index = new DependencyIndex([...deps].map(([id, d]) => ({ id, deps: d })));
  const dead = new Set<TaskState>(['failed', 'vetoed', 'rejected', 'cancelled']);
  for (const key of index.transitiveDependents(taskKey)) {
    const task = byKey.get(key);
    if (!task || task.state !== 'blocked') continue;
    const stillDead = (deps.get(key) ?? []).some(
      (d) => d !== taskKey && dead.has(byKey.get(d)?.state ?? 'pending'),
    );
    if (!stillDead) await engine.store.runs.transitionTask(task.id, 'unblocked');
  }
}
