import { describe, expect, it } from 'vitest';
import {
  inputVariable,
  readActionContext,
  workerEnvFrom,
  WorkerEnvError,
} from '../../src/worker/env.js';
import type { AssignmentResponse } from '../../src/protocol/assignment.js';

const base: NodeJS.ProcessEnv = {
  INPUT_STEP: 'agent',
  INPUT_TASK_ID: 'task_001',
  INPUT_ISSUE: '7',
  INPUT_ATTEMPT: '1',
  INPUT_MODE: 'work',
  INPUT_COORDINATOR_URL: 'https://coordinator.example.com/',
  GITHUB_REPOSITORY: 'acme/widgets',
  GITHUB_RUN_ID: '42',
};

const assignment: AssignmentResponse = {
  token: 'ghs_x',
  expires_at: '2030-01-01T00:00:00Z',
  task_id: 'task_001',
  issue: '7',
  attempt: '1',
  mode: 'work',
  title: 'Add it',
  prompt: 'Do it.',
  feedback: null,
  base: null,
  model: null,
  max_turns: null,
  timeout_minutes: null,
};

function problems(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof WorkerEnvError) return error.problems;
    throw error;
  }
  return [];
}

describe('inputVariable', () => {
  it('names variables as GitHub sets them for action inputs', () => {
    expect(inputVariable('task_id')).toBe('INPUT_TASK_ID');
    expect(inputVariable('agent-command')).toBe('INPUT_AGENT-COMMAND');
    expect(inputVariable('some input')).toBe('INPUT_SOME_INPUT');
  });
});

describe('readActionContext', () => {
  it('reads the inputs and the job, and keeps the request strings as dispatched', () => {
    expect(
      readActionContext({
        ...base,
        INPUT_ISSUE: ' 7 ',
        GITHUB_API_URL: 'https://ghe.example/api/v3/',
      }),
    ).toMatchObject({
      step: 'agent',
      taskId: 'task_001',
      issue: 7,
      attempt: 1,
      mode: 'work',
      coordinatorUrl: 'https://coordinator.example.com',
      owner: 'acme',
      repo: 'widgets',
      runId: '42',
      serverUrl: 'https://github.com',
      apiUrl: 'https://ghe.example/api/v3',
      agentCommand: undefined,
      request: { task_id: 'task_001', issue: '7', attempt: '1' },
    });
  });

  it('takes the agent command from the input, else from AGENT_COMMAND', () => {
    expect(readActionContext({ ...base, AGENT_COMMAND: 'aider' }).agentCommand).toBe('aider');
    expect(
      readActionContext({ ...base, AGENT_COMMAND: 'aider', 'INPUT_AGENT-COMMAND': 'codex' })
        .agentCommand,
    ).toBe('codex');
    expect(readActionContext({ ...base, AGENT_COMMAND: '' }).agentCommand).toBeUndefined();
  });

  it('names each bad variable without echoing its value', () => {
    const found = problems(() =>
      readActionContext({
        INPUT_TASK_ID: '--upload-pack=evil',
        INPUT_ISSUE: '0',
        INPUT_ATTEMPT: 'many',
        INPUT_MODE: 'deploy',
        INPUT_STEP: 'push',
        INPUT_COORDINATOR_URL: 'file:///etc/passwd',
        GITHUB_RUN_ID: 'x',
      }),
    );
    for (const name of [
      'INPUT_TASK_ID',
      'INPUT_ISSUE',
      'INPUT_ATTEMPT',
      'INPUT_MODE',
      'INPUT_STEP',
      'INPUT_COORDINATOR_URL',
      'GITHUB_REPOSITORY',
      'GITHUB_RUN_ID',
    ]) {
      expect(
        found.some((p) => p.startsWith(`${name}:`)),
        name,
      ).toBe(true);
    }
    expect(found.join('\n')).not.toContain('evil');
    expect(found.join('\n')).not.toContain('passwd');
  });
});

describe('workerEnvFrom', () => {
  const action = readActionContext(base);

  it('fills defaults for the fields the coordinator leaves null', () => {
    expect(workerEnvFrom(action, assignment)).toMatchObject({
      title: 'Add it',
      prompt: 'Do it.',
      feedback: '',
      base: undefined,
      timeoutMinutes: 30,
      model: undefined,
      maxTurns: undefined,
      maxTasks: 50,
      branch: 'agent/7/task_001',
      owner: 'acme',
    });
  });

  it('reads every limit', () => {
    const env = workerEnvFrom(action, {
      ...assignment,
      base: 'release/1.x',
      stack_parent_pr: '12',
      timeout_minutes: '15',
      model: 'claude-haiku-4-5',
      max_turns: '40',
      max_tasks: '12',
      feedback: 'Keep it short.',
    });
    expect(env).toMatchObject({
      base: 'release/1.x',
      stackParentPr: 12,
      timeoutMinutes: 15,
      model: 'claude-haiku-4-5',
      maxTurns: 40,
      maxTasks: 12,
      feedback: 'Keep it short.',
    });
  });

  it('refuses an assignment for another task, or with fields git or the CLI would misread', () => {
    const found = problems(() =>
      workerEnvFrom(action, {
        ...assignment,
        attempt: '2',
        mode: 'fix',
        base: '-x',
        stack_parent_pr: '12; rm',
        model: 'a b',
        max_turns: 'many',
        timeout_minutes: '0',
      }),
    );
    for (const name of [
      'attempt',
      'mode',
      'base',
      'stack_parent_pr',
      'model',
      'max_turns',
      'timeout_minutes',
    ]) {
      expect(
        found.some((p) => p.startsWith(`${name}:`)),
        name,
      ).toBe(true);
    }
  });
});
