import { describe, expect, it } from 'vitest';
import { readWorkerEnv, WorkerEnvError } from '../../src/worker/env.js';

const base: NodeJS.ProcessEnv = {
  AC_TASK_ID: 'task_001',
  AC_ISSUE: '7',
  AC_ATTEMPT: '1',
  AC_MODE: 'work',
  GITHUB_REPOSITORY: 'acme/widgets',
  GITHUB_RUN_ID: '42',
  GH_TOKEN: 'ghs_x',
};

function problems(env: NodeJS.ProcessEnv): string[] {
  try {
    readWorkerEnv(env);
  } catch (error) {
    if (error instanceof WorkerEnvError) return error.problems;
    throw error;
  }
  return [];
}

describe('readWorkerEnv', () => {
  it('fills defaults, treating the empty strings GitHub sends for absent inputs as unset', () => {
    const env = readWorkerEnv({
      ...base,
      AC_TITLE: '',
      AC_BASE: '',
      AC_MODEL: '',
      AC_MAX_TURNS: '',
      AC_TIMEOUT_MINUTES: '',
      AGENT_COMMAND: '',
    });
    expect(env).toMatchObject({
      taskId: 'task_001',
      issue: 7,
      attempt: 1,
      mode: 'work',
      title: '',
      base: undefined,
      timeoutMinutes: 30,
      maxTasks: 50,
      model: undefined,
      maxTurns: undefined,
      agentCommand: undefined,
      owner: 'acme',
      repo: 'widgets',
      apiUrl: 'https://api.github.com',
      serverUrl: 'https://github.com',
      branch: 'agent/7/task_001',
      token: 'ghs_x',
    });
  });

  it('reads every limit', () => {
    const env = readWorkerEnv({
      ...base,
      AC_BASE: 'release/1.x',
      AC_TIMEOUT_MINUTES: '15',
      AC_MODEL: 'claude-haiku-4-5',
      AC_MAX_TURNS: '40',
      AC_MAX_TASKS: '12',
      GITHUB_API_URL: 'https://ghe.example.com/api/v3/',
    });
    expect(env).toMatchObject({
      base: 'release/1.x',
      timeoutMinutes: 15,
      model: 'claude-haiku-4-5',
      maxTurns: 40,
      maxTasks: 12,
      apiUrl: 'https://ghe.example.com/api/v3',
    });
  });

  it('names each bad variable', () => {
    const found = problems({
      ...base,
      AC_TASK_ID: '--upload-pack=evil',
      AC_ISSUE: '0',
      AC_MODE: 'deploy',
      AC_BASE: '-x',
      AC_MAX_TURNS: 'many',
      GH_TOKEN: '',
      GITHUB_TOKEN: undefined,
    });
    for (const name of [
      'AC_TASK_ID',
      'AC_ISSUE',
      'AC_MODE',
      'AC_BASE',
      'AC_MAX_TURNS',
      'GH_TOKEN',
    ]) {
      expect(
        found.some((p) => p.startsWith(`${name}:`)),
        name,
      ).toBe(true);
    }
    expect(found.join('\n')).not.toContain('evil');
  });

  it('accepts GITHUB_TOKEN when GH_TOKEN is unset', () => {
    expect(readWorkerEnv({ ...base, GH_TOKEN: undefined, GITHUB_TOKEN: 'ghs_y' }).token).toBe(
      'ghs_y',
    );
  });
});
