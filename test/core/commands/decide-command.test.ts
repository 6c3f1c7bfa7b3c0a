import { describe, expect, it } from 'vitest';
import {
  decideCommand,
  helpText,
  type Command,
  type CommandDecision,
  type CommandEffect,
  type CommandSnapshot,
  type CommandTarget,
  type CommandTask,
} from '../../../src/core/commands/index.js';
import type { TaskState } from '../../../src/core/states.js';
import { canMoveTask } from '../../../src/core/transitions.js';

function task(taskKey: string, state: TaskState, more: Partial<CommandTask> = {}): CommandTask {
  return { taskKey, state, prNumber: null, vetoReason: null, ...more };
}

/**
 * A running run of a → b → c (c also on d), d on its own: a in review with PR #1, the rest
 * pending. Rows override the run and the tasks.
 */
function snapshot(
  overrides: { run?: Partial<CommandSnapshot['run']>; states?: Record<string, TaskState> } = {},
  more: Record<string, Partial<CommandTask>> = {},
): CommandSnapshot {
  const states: Record<string, TaskState> = {
    a: 'in_review',
    b: 'pending',
    c: 'pending',
    d: 'pending',
    ...overrides.states,
  };
  return {
    run: { state: 'running', held: false, holdReason: null, finishedAt: null, ...overrides.run },
    tasks: Object.entries(states).map(([key, state]) =>
      task(key, state, { ...(key === 'a' ? { prNumber: 1 } : {}), ...more[key] }),
    ),
    deps: new Map([
      ['a', []],
      ['b', ['a']],
      ['c', ['b', 'd']],
      ['d', []],
    ]),
  };
}

const WRITTEN = new Date('2025-01-02T00:00:00Z');
const onIssue: CommandTarget = { actor: 'octocat', writtenAt: WRITTEN };
const onPr = (taskKey: string): CommandTarget => ({
  taskKey,
  actor: 'octocat',
  writtenAt: WRITTEN,
});
const FINISHED = new Date('2025-01-01T00:00:00Z');

interface Row {
  name: string;
  command: Command;
  target?: CommandTarget;
  snap?: CommandSnapshot;
  expected: CommandDecision;
}

const refused = (reason: string): CommandDecision => ({ ok: false, reason });
const accepted = (...effects: CommandEffect[]): CommandDecision => ({ ok: true, effects });
const block = (key: string): CommandEffect => ({
  kind: 'transition',
  task: key,
  move: 'blocked',
});
const unblock = (key: string): CommandEffect => ({
  kind: 'transition',
  task: key,
  move: 'unblocked',
});

describe('decideCommand', () => {
  it.each<Row>([
    // /help and /status
    {
      name: '/help on the issue lists the issue commands',
      command: { name: 'help' },
      expected: accepted({ kind: 'reply', text: helpText('issue') }),
    },
    {
      name: '/help on a PR lists the PR commands',
      command: { name: 'help' },
      target: onPr('a'),
      expected: accepted({ kind: 'reply', text: helpText('pull_request') }),
    },
    {
      name: '/status rewrites the status comment',
      command: { name: 'status' },
      expected: accepted({ kind: 'refreshStatus' }),
    },
    {
      name: "a PR whose task left the run (plan replaced) is not the run's",
      command: { name: 'approve' },
      target: onPr('gone'),
      expected: refused('this pull request is not an agent task'),
    },

    // /plan
    {
      name: '/plan replaces the plan before any merge',
      command: { name: 'plan', body: 'tasks' },
      snap: snapshot({ states: { a: 'pending' } }),
      expected: accepted({
        kind: 'applyPlan',
        body: 'tasks',
        otherwise: 'the plan is invalid; the status comment lists the errors',
      }),
    },
    {
      name: '/plan on a finished run',
      command: { name: 'plan', body: 'tasks' },
      snap: snapshot({ run: { finishedAt: FINISHED, state: 'failed' } }),
      expected: refused('the run has finished; add the label again to start a new one'),
    },
    {
      name: '/plan after a merge',
      command: { name: 'plan', body: 'tasks' },
      snap: snapshot({ states: { a: 'merged', b: 'running' } }),
      expected: refused('a task has already been merged: the plan can no longer be replaced'),
    },
    {
      name: '/plan while workers run names them',
      command: { name: 'plan', body: 'tasks' },
      snap: snapshot({ states: { a: 'dispatched', d: 'running' } }),
      expected: refused(
        'workers are running (a, d): `/hold` and wait for them, then send the plan again',
      ),
    },

    // /cancel
    {
      name: '/cancel on the issue cancels the run',
      command: { name: 'cancel' },
      expected: accepted({
        kind: 'cancelRun',
        why: '/cancel by @octocat',
        otherwise: 'the run has already finished',
      }),
    },
    {
      name: '/cancel on a PR cancels its task and blocks what waits on it',
      command: { name: 'cancel' },
      target: onPr('a'),
      expected: accepted(
        {
          kind: 'transition',
          task: 'a',
          move: 'cancelled',
          otherwise: 'task `a` is in_review',
        },
        { kind: 'cancelAttempt', task: 'a', why: '/cancel by @octocat' },
        block('b'),
        block('c'),
        { kind: 'requestStatus' },
        { kind: 'schedule' },
        { kind: 'advance' },
      ),
    },
    {
      name: '/cancel blocks only dependents still pending',
      command: { name: 'cancel' },
      target: onPr('a'),
      snap: snapshot({ states: { b: 'running' } }),
      expected: accepted(
        {
          kind: 'transition',
          task: 'a',
          move: 'cancelled',
          otherwise: 'task `a` is in_review',
        },
        { kind: 'cancelAttempt', task: 'a', why: '/cancel by @octocat' },
        block('c'),
        { kind: 'requestStatus' },
        { kind: 'schedule' },
        { kind: 'advance' },
      ),
    },

    // /hold and /unhold
    {
      name: '/hold on a PR holds its task',
      command: { name: 'hold' },
      target: onPr('a'),
      expected: accepted(
        { kind: 'updateTask', task: 'a', whileIn: 'in_review', values: { held: true } },
        { kind: 'advance' },
      ),
    },
    {
      name: '/unhold on a PR resumes merging it',
      command: { name: 'unhold' },
      target: onPr('a'),
      expected: accepted(
        { kind: 'updateTask', task: 'a', whileIn: 'in_review', values: { held: false } },
        { kind: 'advance' },
      ),
    },
    {
      name: '/hold on the issue holds the run',
      command: { name: 'hold' },
      expected: accepted(
        {
          kind: 'moveRun',
          move: 'held',
          values: { held: true, holdReason: '/hold by @octocat' },
          otherwise: 'the run is no longer running',
        },
        { kind: 'advance' },
      ),
    },
    {
      name: '/hold on a held run says who holds it now',
      command: { name: 'hold' },
      snap: snapshot({ run: { state: 'held', held: true, holdReason: 'budget' } }),
      expected: accepted(
        {
          kind: 'moveRun',
          move: 'held',
          values: { held: true, holdReason: '/hold by @octocat' },
          otherwise: 'the run is no longer held',
        },
        { kind: 'advance' },
      ),
    },
    {
      name: '/hold while the plan waits for approval',
      command: { name: 'hold' },
      snap: snapshot({ run: { state: 'awaiting_approval' } }),
      expected: refused('the run is awaiting_approval'),
    },
    {
      name: '/hold on a finished run',
      command: { name: 'hold' },
      snap: snapshot({ run: { state: 'done', finishedAt: FINISHED } }),
      expected: refused('the run has finished'),
    },
    {
      name: '/unhold resumes dispatch and merges',
      command: { name: 'unhold' },
      snap: snapshot({ run: { state: 'held', held: true, holdReason: '/hold by @someone' } }),
      expected: accepted(
        {
          kind: 'moveRun',
          move: 'unheld',
          otherwise: 'the run is no longer held',
          values: { held: false, holdReason: null },
        },
        { kind: 'schedule' },
        { kind: 'advance' },
      ),
    },
    {
      name: '/unhold of a budget hold waives the budget',
      command: { name: 'unhold' },
      snap: snapshot({
        run: { state: 'held', held: true, holdReason: 'budget: $21.00 of $20.00 spent' },
      }),
      expected: accepted(
        {
          kind: 'moveRun',
          move: 'unheld',
          otherwise: 'the run is no longer held',
          values: { held: false, holdReason: null, budgetWaived: true },
        },
        { kind: 'schedule' },
        { kind: 'advance' },
      ),
    },
    {
      name: '/unhold of a run that is not held',
      command: { name: 'unhold' },
      expected: refused('the run is not held'),
    },
    {
      name: '/unhold on a finished run',
      command: { name: 'unhold' },
      snap: snapshot({ run: { state: 'cancelled', finishedAt: FINISHED } }),
      expected: refused('the run has finished'),
    },

    // /approve
    {
      name: '/approve on the issue approves the plan',
      command: { name: 'approve' },
      snap: snapshot({ run: { state: 'awaiting_approval' } }),
      expected: accepted(
        {
          kind: 'moveRun',
          move: { event: 'plan approved', to: 'running' },
          values: { planApproved: true },
          otherwise: 'the plan is no longer waiting for approval',
        },
        { kind: 'schedule' },
      ),
    },
    {
      name: '/approve of the plan of a held run keeps it held',
      command: { name: 'approve' },
      snap: snapshot({ run: { state: 'awaiting_approval', held: true } }),
      expected: accepted(
        {
          kind: 'moveRun',
          move: { event: 'plan approved', to: 'held' },
          values: { planApproved: true },
          otherwise: 'the plan is no longer waiting for approval',
        },
        { kind: 'schedule' },
      ),
    },
    {
      name: '/approve with no plan waiting',
      command: { name: 'approve' },
      expected: refused('there is no plan waiting for approval (the run is running)'),
    },
    {
      name: '/approve on a PR approves its head as GitHub shows it',
      command: { name: 'approve' },
      target: onPr('a'),
      expected: accepted(
        {
          kind: 'approve',
          task: 'a',
          otherwise: 'task `a` has no pull request yet',
          writtenAt: WRITTEN,
          by: 'octocat',
        },
        { kind: 'advance' },
      ),
    },
    {
      name: '/approve <sha> on a PR approves only the head that SHA names',
      command: { name: 'approve', sha: 'abc1234' },
      target: onPr('a'),
      expected: accepted(
        {
          kind: 'approve',
          task: 'a',
          otherwise: 'task `a` has no pull request yet',
          writtenAt: WRITTEN,
          by: 'octocat',
          named: 'abc1234',
        },
        { kind: 'advance' },
      ),
    },
    {
      name: '/approve <task> on the issue, before its worker is done',
      command: { name: 'approve', taskId: 'b' },
      snap: snapshot({ states: { b: 'running' } }),
      expected: accepted(
        {
          kind: 'approve',
          task: 'b',
          otherwise: 'task `b` has no pull request yet',
          writtenAt: WRITTEN,
          by: 'octocat',
        },
        { kind: 'advance' },
      ),
    },
    {
      name: '/approve of an unknown task',
      command: { name: 'approve', taskId: 'zz' },
      expected: refused('there is no task `zz` in this run'),
    },
    ...(['merging', 'merged', 'failed', 'vetoed', 'rejected', 'blocked', 'cancelled'] as const).map(
      (state): Row => ({
        name: `/approve of a task that is ${state}`,
        command: { name: 'approve' },
        target: onPr('a'),
        snap: snapshot({ states: { a: state } }),
        expected: refused(`task \`a\` is ${state}`),
      }),
    ),

    // /veto
    {
      name: '/veto on a PR with a reason',
      command: { name: 'veto', reason: 'wrong approach' },
      target: onPr('a'),
      expected: accepted(
        {
          kind: 'transition',
          task: 'a',
          move: 'vetoed',
          values: {
            vetoReason: 'wrong approach',
            approvedSha: null,
            approvedAt: null,
            approvedBy: null,
            approvalOriginSha: null,
          },
          otherwise: 'task `a` is in_review',
        },
        block('b'),
        block('c'),
        { kind: 'advance' },
      ),
    },
    {
      name: '/veto <task> without a reason names who vetoed',
      command: { name: 'veto', taskId: 'd' },
      expected: accepted(
        {
          kind: 'transition',
          task: 'd',
          move: 'vetoed',
          values: {
            vetoReason: 'vetoed by @octocat',
            approvedSha: null,
            approvedAt: null,
            approvedBy: null,
            approvalOriginSha: null,
          },
          otherwise: 'task `d` is pending',
        },
        block('c'),
        { kind: 'advance' },
      ),
    },
    {
      name: '/veto of an unknown task',
      command: { name: 'veto', taskId: 'zz' },
      expected: refused('there is no task `zz` in this run'),
    },
    {
      name: '/veto on the issue without a task (the parser asks for one first)',
      command: { name: 'veto' },
      expected: refused('name the task, e.g. `/retry task_001`'),
    },

    // /retry
    {
      name: '/retry of a task with a PR is a fix with the feedback',
      command: { name: 'retry', feedback: 'use the helper' },
      target: onPr('a'),
      snap: snapshot({ states: { a: 'failed', b: 'blocked', c: 'blocked' } }),
      expected: accepted(
        {
          kind: 'transition',
          task: 'a',
          move: 'retried',
          // Its feedback is vetted, and the PR's unresolved review threads go with it.
          feedbackFrom: 'octocat',
          values: {
            nextMode: 'fix',
            pendingFeedback: 'use the helper',
            nextAttemptAt: null,
            vetoReason: null,
            approvedSha: null,
            approvedAt: null,
            approvedBy: null,
            approvalOriginSha: null,
          },
        },
        unblock('b'),
        unblock('c'),
        { kind: 'advance' },
        { kind: 'schedule' },
      ),
    },
    {
      name: '/retry of a task with no PR starts over in work mode',
      command: { name: 'retry', taskId: 'd' },
      snap: snapshot({ states: { d: 'failed', c: 'blocked' } }),
      expected: accepted(
        {
          kind: 'transition',
          task: 'd',
          move: 'retried',
          // Its feedback is vetted all the same.
          feedbackFrom: 'octocat',
          values: {
            nextMode: 'work',
            pendingFeedback: null,
            nextAttemptAt: null,
            vetoReason: null,
            approvedSha: null,
            approvedAt: null,
            approvedBy: null,
            approvalOriginSha: null,
          },
        },
        unblock('c'),
        { kind: 'schedule' },
      ),
    },
    {
      name: '/retry leaves blocked a dependent with another dead dep',
      command: { name: 'retry', taskId: 'a' },
      snap: snapshot({ states: { a: 'failed', b: 'blocked', c: 'blocked', d: 'vetoed' } }),
      expected: accepted(
        {
          kind: 'transition',
          task: 'a',
          move: 'retried',
          // Its feedback is vetted, and the PR's unresolved review threads go with it.
          feedbackFrom: 'octocat',
          values: {
            nextMode: 'fix',
            pendingFeedback: null,
            nextAttemptAt: null,
            vetoReason: null,
            approvedSha: null,
            approvedAt: null,
            approvedBy: null,
            approvalOriginSha: null,
          },
        },
        unblock('b'),
        { kind: 'advance' },
        { kind: 'schedule' },
      ),
    },
    {
      name: "/retry of a vetoed task passes the veto's reason on",
      command: { name: 'retry', taskId: 'd', feedback: 'try again' },
      snap: snapshot({ states: { d: 'vetoed' } }, { d: { vetoReason: 'too broad' } }),
      expected: accepted(
        {
          kind: 'transition',
          task: 'd',
          move: 'retried',
          // Its feedback is vetted all the same.
          feedbackFrom: 'octocat',
          values: {
            nextMode: 'work',
            pendingFeedback: 'Veto: too broad\n\ntry again',
            nextAttemptAt: null,
            vetoReason: null,
            approvedSha: null,
            approvedAt: null,
            approvedBy: null,
            approvalOriginSha: null,
          },
        },
        { kind: 'schedule' },
      ),
    },
    {
      name: '/retry of a task vetoed with a quote puts the quote on a line of its own',
      command: { name: 'retry', taskId: 'd' },
      snap: snapshot({ states: { d: 'vetoed' } }, { d: { vetoReason: '> do X\n\nNot X.' } }),
      expected: accepted(
        {
          kind: 'transition',
          task: 'd',
          move: 'retried',
          feedbackFrom: 'octocat',
          values: {
            nextMode: 'work',
            pendingFeedback: 'Veto:\n> do X\n\nNot X.',
            nextAttemptAt: null,
            vetoReason: null,
            approvedSha: null,
            approvedAt: null,
            approvedBy: null,
            approvalOriginSha: null,
          },
        },
        { kind: 'schedule' },
      ),
    },
    {
      name: '/retry on a finished run reopens it and checks its budget first',
      command: { name: 'retry', taskId: 'd' },
      snap: snapshot({ run: { state: 'failed', finishedAt: FINISHED }, states: { d: 'failed' } }),
      expected: accepted(
        { kind: 'reopenRun', otherwise: 'another run of this issue is active' },
        { kind: 'enforceBudget' },
        {
          kind: 'transition',
          task: 'd',
          move: 'retried',
          // Its feedback is vetted all the same.
          feedbackFrom: 'octocat',
          values: {
            nextMode: 'work',
            pendingFeedback: null,
            nextAttemptAt: null,
            vetoReason: null,
            approvedSha: null,
            approvedAt: null,
            approvedBy: null,
            approvalOriginSha: null,
          },
        },
        { kind: 'schedule' },
      ),
    },
    ...(['dispatched', 'running', 'merging', 'merged'] as const).map((state): Row => ({
      name: `/retry of a task that is ${state}`,
      command: { name: 'retry' },
      target: onPr('a'),
      snap: snapshot({ states: { a: state } }),
      expected: refused(`task \`a\` is ${state}: it is already running or merged`),
    })),
    {
      name: '/retry of an unknown task',
      command: { name: 'retry', taskId: 'zz' },
      expected: refused('there is no task `zz` in this run'),
    },
  ])('$name', ({ command, target, snap, expected }) => {
    expect(decideCommand(snap ?? snapshot(), command, target ?? onIssue)).toEqual(expected);
  });

  it('refuses /cancel and /veto of every task that can no longer be stopped, naming its state', () => {
    // The guard is the transition's: the refusal is carried on the effect for the apply step.
    for (const state of [
      'merged',
      'failed',
      'vetoed',
      'rejected',
      'blocked',
      'cancelled',
    ] as const) {
      for (const command of [{ name: 'cancel' }, { name: 'veto' }] as const) {
        const decision = decideCommand(snapshot({ states: { a: state } }), command, onPr('a'));
        const guard = decision.ok ? decision.effects[0] : undefined;
        expect(guard).toMatchObject({
          kind: 'transition',
          task: 'a',
          otherwise: `task \`a\` is ${state}`,
        });
        expect(guard?.kind === 'transition' && canMoveTask(state, guard.move)).toBe(false);
      }
    }
  });
});
