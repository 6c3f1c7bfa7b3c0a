import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runWorker, type WorkerResult } from '../../../src/worker/index.js';
import { writeFakeAgent } from './fake-agent.js';
import { createGitFixture, isolatedEnv, type GitFixture } from './git-fixture.js';

export interface AgentRecord {
  stdin: string;
  promptFile: string | null;
  promptFileInCwd: boolean | null;
  cwd: string;
  ghToken: string | null;
  githubToken: string | null;
  githubEnv: string | null;
}

export interface Harness {
  fx: GitFixture;
  env(overrides?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  run(overrides?: NodeJS.ProcessEnv, cwd?: string): Promise<WorkerResult & { log: string }>;
  record(): AgentRecord | undefined;
  recordPath: string;
}

export function createHarness(branch = 'agent/7/task_001'): Harness {
  const fx = createGitFixture(branch);
  const agent = writeFakeAgent(fx.root);
  const recordPath = join(fx.root, 'agent-record.json');
  const taskId = branch.split('/')[2]!;

  const env = (overrides: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    ...isolatedEnv,
    AC_TASK_ID: taskId,
    AC_ISSUE: '7',
    AC_ATTEMPT: '1',
    AC_MODE: 'work',
    AC_TITLE: 'Add the feature file',
    AC_PROMPT: 'Create feature.txt.',
    AC_FEEDBACK: '',
    AC_BASE: 'main',
    AC_TIMEOUT_MINUTES: '1',
    AC_MODEL: '',
    AC_MAX_TURNS: '',
    GITHUB_REPOSITORY: 'acme/widgets',
    GITHUB_RUN_ID: '987654321',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: 'https://api.github.com',
    GH_TOKEN: 'ghs_app_token_for_tests',
    GITHUB_TOKEN: 'ghs_app_token_for_tests',
    AGENT_COMMAND: agent.command,
    FAKE_AGENT: 'write',
    FAKE_AGENT_RECORD: recordPath,
    ...overrides,
  });

  return {
    fx,
    env,
    recordPath,
    async run(overrides = {}, cwd = fx.workspace) {
      let log = '';
      const io = { out: (t: string) => void (log += t), err: (t: string) => void (log += t) };
      const result = await runWorker({ env: env(overrides), cwd, io, graceMs: 500 });
      return { ...result, log };
    },
    record() {
      return existsSync(recordPath)
        ? (JSON.parse(readFileSync(recordPath, 'utf8')) as AgentRecord)
        : undefined;
    },
  };
}
