import {
  APPROVABLE_TASK_STATES,
  dependentsToBlock,
  dependentsToUnblock,
  NO_APPROVAL,
} from '../lifecycle/index.js';
import { INFLIGHT_TASK_STATES, type TaskState } from '../states.js';
import { canMoveTask } from '../transitions.js';
import type {
  CommandDecision,
  CommandEffect,
  CommandSnapshot,
  CommandTarget,
  CommandTask,
} from './command-effects.js';
import { helpText } from './help-text.js';
import type { Command } from './types.js';

// A person can still stop these from landing: /cancel and /veto.

/** Why a task is in no state for the command; the same words whenever a task is refused. */
export function taskInState(taskKey: string, state: TaskState): string {
  return `task \`${taskKey}\` is ${state}`;
}

/**
 * The rules of docs/commands.md: what one accepted command does to the run, or why it does
 * nothing (the reply). Pure: it decides from the snapshot, and the engine carries the effects
 * out with guarded writes.
 */
export function decideCommand(
  snapshot: CommandSnapshot,
  command: Command,
  target: CommandTarget,
): CommandDecision {
  if (command.name === 'help')
    return accept({
      kind: 'reply',
      text: helpText(target.taskKey === undefined ? 'issue' : 'pull_request'),
    });
  const byKey = new Map(snapshot.tasks.map((t) => [t.taskKey, t]));
  let own: CommandTask | undefined;
  if (target.taskKey !== undefined) {
    own = byKey.get(target.taskKey);
    // The plan was replaced since the PR was read: it belongs to no task of this run now.
    if (!own) return refuse('this pull request is not an agent task');
  }
  const resolve = (taskKey: string | undefined): CommandTask | string => {
    if (own) return own;
    if (!taskKey) return 'name the task, e.g. `/retry task_001`';
    return byKey.get(taskKey) ?? `there is no task \`${taskKey}\` in this run`;
  };

  switch (command.name) {
    case 'status':
      return accept({ kind: 'refreshStatus' });

    case 'plan':
      return decidePlan(snapshot, command.body);

    case 'cancel':
      if (!own)
        return accept({
          kind: 'cancelRun',
          why: `/cancel by @${target.actor}`,
          otherwise: 'the run has already finished',
        });
      return accept(
        {
          kind: 'transition',
          task: own.taskKey,
          move: 'cancelled',
          otherwise: taskInState(own.taskKey, own.state),
        },
        { kind: 'cancelAttempt', task: own.taskKey, why: `/cancel by @${target.actor}` },
        ...block(snapshot, own.taskKey),
        { kind: 'requestStatus' },
        { kind: 'schedule' },
        // Its PR stays open: an order check that passed on its approved head must stop passing.
        { kind: 'advance' },
      );

    case 'hold':
    case 'unhold': {
      const hold = command.name === 'hold';
      if (own)
        // Held or not, its head's order check says so at once (docs/lifecycle.md, step 7).
        return accept(
          { kind: 'updateTask', task: own.taskKey, whileIn: own.state, values: { held: hold } },
          { kind: 'advance' },
        );
      return decideRunHold(snapshot, hold, target.actor);
    }

    case 'approve': {
      if (!own && !command.taskId) return decidePlanApproval(snapshot);
      const task = resolve(command.taskId);
      if (typeof task === 'string') return refuse(task);
      if (!APPROVABLE_TASK_STATES.has(task.state))
        return refuse(taskInState(task.taskKey, task.state));
      return accept(
        {
          kind: 'approve',
          task: task.taskKey,
          otherwise: `task \`${task.taskKey}\` has no pull request yet`,
          writtenAt: target.writtenAt,
          by: target.actor,
          ...(command.sha === undefined ? {} : { named: command.sha }),
        },
        { kind: 'advance' },
      );
    }

    case 'veto': {
      const task = resolve(command.taskId);
      if (typeof task === 'string') return refuse(task);
      return accept(
        {
          kind: 'transition',
          task: task.taskKey,
          move: 'vetoed',
          values: {
            vetoReason: command.reason ?? `vetoed by @${target.actor}`,
            ...NO_APPROVAL,
          },
          otherwise: taskInState(task.taskKey, task.state),
        },
        ...block(snapshot, task.taskKey),
        { kind: 'advance' },
      );
    }

    case 'retry': {
      const task = resolve(command.taskId);
      if (typeof task === 'string') return refuse(task);
      return decideRetry(snapshot, task, command.feedback, target.actor);
    }
  }
}

function decidePlan(snapshot: CommandSnapshot, body: string): CommandDecision {
  if (snapshot.run.finishedAt)
    return refuse('the run has finished; add the label again to start a new one');
  if (snapshot.tasks.some((t) => t.state === 'merged'))
    return refuse('a task has already been merged: the plan can no longer be replaced');
  const inflight = snapshot.tasks.filter((t) => INFLIGHT_TASK_STATES.has(t.state));
  if (inflight.length > 0)
    return refuse(
      `workers are running (${inflight.map((t) => t.taskKey).join(', ')}): \`/hold\` and wait for them, then send the plan again`,
    );
  return accept({
    kind: 'applyPlan',
    body,
    otherwise: 'the plan is invalid; the status comment lists the errors',
  });
}

function decideRunHold(snapshot: CommandSnapshot, hold: boolean, actor: string): CommandDecision {
  const { run } = snapshot;
  if (run.finishedAt) return refuse('the run has finished');
  if (hold) {
    if (run.state !== 'running' && run.state !== 'held') return refuse(`the run is ${run.state}`);
    return accept(
      {
        kind: 'moveRun',
        move: 'held',
        values: { held: true, holdReason: `/hold by @${actor}` },
        otherwise: `the run is no longer ${run.state}`,
      },
      { kind: 'advance' },
    );
  }
  if (run.state !== 'held') return refuse('the run is not held');
  return accept(
    {
      kind: 'moveRun',
      move: 'unheld',
      otherwise: 'the run is no longer held',
      values: {
        held: false,
        holdReason: null,
        // Lifting a budget hold waives the budget for this run (docs/configuration.md).
        ...(run.holdReason?.startsWith('budget') ? { budgetWaived: true } : {}),
      },
    },
    { kind: 'schedule' },
    { kind: 'advance' },
  );
}

function decidePlanApproval(snapshot: CommandSnapshot): CommandDecision {
  const { run } = snapshot;
  if (run.state !== 'awaiting_approval')
    return refuse(`there is no plan waiting for approval (the run is ${run.state})`);
  return accept(
    {
      kind: 'moveRun',
      move: { event: 'plan approved', to: run.held ? 'held' : 'running' },
      values: { planApproved: true },
      otherwise: 'the plan is no longer waiting for approval',
    },
    { kind: 'schedule' },
  );
}

function decideRetry(
  snapshot: CommandSnapshot,
  task: CommandTask,
  extra: string | undefined,
  actor: string,
): CommandDecision {
  if (!canMoveTask(task.state, 'retried'))
    return refuse(`${taskInState(task.taskKey, task.state)}: it is already running or merged`);
  // The veto's reason is feedback for the worker too: it says what was wrong. One that opens with
  // a quote starts a line of its own, where vetting sees the quote (src/core/quoted-text.ts).
  const reason = task.state === 'vetoed' ? (task.vetoReason ?? '') : '';
  const feedback = [
    reason ? `Veto:${reason.startsWith('>') ? '\n' : ' '}${reason}` : '',
    extra ?? '',
  ]
    .filter(Boolean)
    .join('\n\n');
  return accept(
    // A finished run's spend may have reached the budget meanwhile (a cancelled attempt is charged
    // when its workflow run ends): it is checked before the retry can go out.
    ...(snapshot.run.finishedAt
      ? ([
          { kind: 'reopenRun', otherwise: 'another run of this issue is active' },
          { kind: 'enforceBudget' },
        ] as const)
      : []),
    {
      kind: 'transition',
      task: task.taskKey,
      move: 'retried',
      feedbackFrom: actor,
      values: {
        nextMode: task.prNumber === null ? 'work' : 'fix',
        pendingFeedback: feedback || null,
        nextAttemptAt: null,
        vetoReason: null,
        ...NO_APPROVAL,
      },
    },
    ...dependentsToUnblock(snapshot, task.taskKey).map((key): CommandEffect => ({
      kind: 'transition',
      task: key,
      move: 'unblocked',
    })),
    // Its PR stays open while the task is redone: an order check that passed on its approved
    // head must stop passing, or anyone who may merge lands it (docs/security.md).
    ...(task.prNumber === null ? [] : [{ kind: 'advance' } as const]),
    { kind: 'schedule' },
  );
}

function block(snapshot: CommandSnapshot, taskKey: string): CommandEffect[] {
  return dependentsToBlock(snapshot, taskKey).map((key) => ({
    kind: 'transition',
    task: key,
    move: 'blocked',
  }));
}

function accept(...effects: CommandEffect[]): CommandDecision {
  return { ok: true, effects };
}

function refuse(reason: string): CommandDecision {
  return { ok: false, reason };
}
