import { describe, expect, it } from 'vitest';
import {
  assignmentRequestSchema,
  buildDispatchInputs,
  DISPATCH_INPUT_NAMES,
  type DispatchIdentity,
} from '../../src/protocol/assignment.js';
import { taskBranch } from '../../src/protocol/branch.js';
import {
  inputVariable,
  readActionContext,
  workerEnvFrom,
  type ActionContext,
} from '../../src/worker/env.js';

const identity = (overrides: Partial<DispatchIdentity> = {}): DispatchIdentity => ({
  taskKey: 'task_002',
  issueNumber: 7,
  attempt: 2,
  mode: 'fix',
  coordinatorUrl: 'https://coordinator.example',
  ...overrides,
});

/** The job's environment for a dispatch with these inputs, as the runner sets it for the action. */
function jobEnv(inputs: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...Object.fromEntries(Object.entries(inputs).map(([name, v]) => [inputVariable(name), v])),
    INPUT_STEP: 'agent',
    GITHUB_REPOSITORY: 'acme/widgets',
    GITHUB_RUN_ID: '42',
  };
}

describe('dispatch inputs (docs/worker.md, "Dispatch inputs")', () => {
  it('are the identifiers only, all strings', () => {
    const inputs = buildDispatchInputs(identity());
    expect(inputs).toEqual({
      task_id: 'task_002',
      issue: '7',
      attempt: '2',
      mode: 'fix',
      coordinator_url: 'https://coordinator.example',
    });
    expect(Object.keys(inputs).sort()).toEqual([...DISPATCH_INPUT_NAMES].sort());
    for (const value of Object.values(inputs)) expect(typeof value).toBe('string');
  });

  it.each([
    identity(),
    identity({ taskKey: 'plan', issueNumber: 1, attempt: 1, mode: 'plan' }),
    identity({ taskKey: 'x'.repeat(40), issueNumber: 9_999_999_999, attempt: 9999, mode: 'work' }),
  ])('reach the worker as they were sent: %j', (sent) => {
    const context: ActionContext = readActionContext(jobEnv(buildDispatchInputs(sent)));
    expect({
      taskKey: context.taskId,
      issueNumber: context.issue,
      attempt: context.attempt,
      mode: context.mode,
      coordinatorUrl: context.coordinatorUrl,
    }).toEqual(sent);
    // The worker asks with the strings it was dispatched with, and the coordinator accepts them.
    expect(assignmentRequestSchema.parse(context.request)).toEqual({
      task_id: sent.taskKey,
      issue: String(sent.issueNumber),
      attempt: String(sent.attempt),
    });
    // And it works on the branch the coordinator dispatched it on.
    const env = workerEnvFrom(context, {
      ...context.request,
      mode: sent.mode,
      title: null,
      prompt: null,
      feedback: null,
      base: null,
      model: null,
      max_turns: null,
      timeout_minutes: null,
    });
    expect(env.branch).toBe(taskBranch(sent.issueNumber, sent.taskKey));
  });

  it.each([
    ['task_id', 'Task'],
    ['task_id', 'x'.repeat(41)],
    ['issue', '0'],
    ['issue', '10000000000'],
    ['attempt', '0'],
    ['attempt', '10000'],
  ])('a %s of %j is refused by both sides', (name, value) => {
    const inputs = { ...buildDispatchInputs(identity()), [name]: value };
    expect(() => readActionContext(jobEnv(inputs))).toThrow(inputVariable(name));
    const { task_id, issue, attempt } = inputs;
    expect(assignmentRequestSchema.safeParse({ task_id, issue, attempt }).success).toBe(false);
  });
});
