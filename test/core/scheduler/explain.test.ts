import { describe, expect, it } from 'vitest';
import {
  explainRun,
  explainTask,
  formatWaitReason,
  type ExplainInput,
  type ExplainTaskInput,
  type TaskExplanation,
} from '../../../src/core/scheduler/index.js';
import { candidate } from './builders.js';

function task(overrides: Partial<ExplainTaskInput> = {}): ExplainTaskInput {
  return { id: 'task_001', deps: [], state: 'pending', ...overrides };
}

function run(tasks: ExplainTaskInput[], overrides: Partial<ExplainInput> = {}): ExplainInput {
  return { now: 1_000, runId: 'run1', tasks, runHeld: false, budgetExhausted: false, ...overrides };
}

const specRun = (
  states: Partial<Record<string, ExplainTaskInput['state']>>,
  prs = {} as Record<string, number>,
) =>
  [
    task({ id: 'task_001' }),
    task({ id: 'task_002', deps: ['task_001'] }),
    task({ id: 'task_003', deps: ['task_001'] }),
    task({ id: 'task_004', deps: ['task_002', 'task_003'] }),
  ].map((t) => ({
    ...t,
    state: states[t.id] ?? t.state,
    ...(prs[t.id] === undefined ? {} : { prNumber: prs[t.id] }),
  }));

describe('explainRun', () => {
  it('names unmerged deps and their PRs for pending and in-review tasks', () => {
    const tasks = specRun(
      { task_001: 'merged', task_002: 'in_review', task_003: 'running' },
      { task_001: 10, task_002: 12 },
    );
    expect(Object.fromEntries(explainRun(run(tasks)))).toEqual({
      task_004: {
        kind: 'deps',
        unmerged: [{ taskId: 'task_002', prNumber: 12 }, { taskId: 'task_003' }],
      },
    });
  });

  it.each<{
    name: string;
    t: Partial<ExplainTaskInput>;
    input: Partial<ExplainInput>;
    why?: TaskExplanation;
  }>([
    { name: 'ready and free', t: {}, input: {}, why: undefined },
    { name: 'run held', t: {}, input: { runHeld: true }, why: { kind: 'held' } },
    { name: 'task held', t: { held: true }, input: {}, why: { kind: 'held' } },
    { name: 'budget', t: {}, input: { budgetExhausted: true }, why: { kind: 'budget' } },
    {
      name: 'backoff',
      t: { backoffUntil: 5_000 },
      input: {},
      why: { kind: 'backoff', until: 5_000 },
    },
    { name: 'backoff over', t: { backoffUntil: 1_000 }, input: {}, why: undefined },
    {
      name: 'concurrency from the decision',
      t: {},
      input: {
        decision: {
          dispatch: [],
          waiting: [
            {
              candidate: candidate(),
              reason: { kind: 'concurrency', scope: 'repository', limit: 2, inflight: 2 },
            },
          ],
        },
      },
      why: { kind: 'concurrency', scope: 'repository', limit: 2, inflight: 2 },
    },
    {
      name: 'in review, run held',
      t: { state: 'in_review' },
      input: { runHeld: true },
      why: { kind: 'held' },
    },
    {
      name: 'in review ignores budget',
      t: { state: 'approved' },
      input: { budgetExhausted: true },
      why: undefined,
    },
    {
      name: 'running is not explained',
      t: { state: 'running' },
      input: { runHeld: true },
      why: undefined,
    },
    {
      name: 'terminal is not explained',
      t: { state: 'blocked', deps: ['x'] },
      input: {},
      why: undefined,
    },
  ])('$name', ({ t, input, why }) => {
    const explained = explainRun(run([task(t), task({ id: 'x', state: 'failed' })], input));
    expect(explained.get('task_001')).toEqual(why);
    expect(
      explainTask(run([task(t), task({ id: 'x', state: 'failed' })], input), 'task_001'),
    ).toEqual(why);
  });

  it('puts unmerged deps before holds', () => {
    const tasks = specRun({});
    expect(explainTask(run(tasks, { runHeld: true }), 'task_002')?.kind).toBe('deps');
    expect(explainTask(run(tasks, { runHeld: true }), 'task_001')?.kind).toBe('held');
  });
});

describe('formatWaitReason', () => {
  it.each<{ reason: TaskExplanation; text: string }>([
    {
      reason: { kind: 'deps', unmerged: [{ taskId: 'task_001', prNumber: 12 }] },
      text: 'waiting for task_001 (#12)',
    },
    {
      reason: {
        kind: 'deps',
        unmerged: [{ taskId: 'task_001', prNumber: 12 }, { taskId: 'task_003' }],
      },
      text: 'waiting for task_001 (#12), task_003',
    },
    {
      reason: { kind: 'concurrency', scope: 'repository', limit: 2, inflight: 2 },
      text: 'waiting: 2/2 workers busy in this repository',
    },
    {
      reason: { kind: 'concurrency', scope: 'repository', limit: 2 },
      text: 'waiting: 2/2 workers busy in this repository',
    },
    {
      reason: { kind: 'concurrency', scope: 'global', limit: 20, inflight: 21 },
      text: 'waiting: 21/20 workers busy across all repositories',
    },
    {
      reason: { kind: 'concurrency', scope: 'installation', limit: 3, inflight: 3 },
      text: "waiting: the coordinator's capacity is shared with other installations (3/3 workers busy for this one)",
    },
    { reason: { kind: 'held' }, text: 'held' },
    { reason: { kind: 'budget' }, text: 'budget reached' },
    {
      reason: { kind: 'backoff', until: Date.parse('2025-03-01T12:03:00Z') },
      text: 'retrying after 12:03:00Z',
    },
  ])('$text', ({ reason, text }) => {
    expect(formatWaitReason(reason)).toBe(text);
  });
});
