import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AssignmentResponse } from '../../../src/protocol/assignment.js';
import type { Coordinator } from '../../../src/worker/coordinator.js';
import { runWorker, type WorkerResult } from '../../../src/worker/run-worker.js';
import type { WorkerClock } from '../../../src/worker/clock.js';
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
  idTokenUrl: string | null;
  inputs: string[];
  isSandbox: string | null;
}

/**
 * What a test changes for one run. Lower-case keys are the assignment's fields (and, for
 * task_id, issue, attempt and mode, the action inputs too); upper-case keys are variables of
 * the job's environment.
 */
export type RunOverrides = Partial<Record<AssignmentField, string | null>> & NodeJS.ProcessEnv;

type AssignmentField = Exclude<keyof AssignmentResponse, StructuredField>;
type StructuredField = 'review' | 'checks';

/** What a run gets beside strings: the structured feedback, and a clock to fire deadlines. */
export interface RunExtras extends Partial<Pick<AssignmentResponse, StructuredField>> {
  clock?: WorkerClock;
  /** Sees the job log as it is written (a test fires a deadline on what the agent prints). */
  onOutput?: (text: string) => void;
}

const FIELDS: AssignmentField[] = [
  'token',
  'expires_at',
  'task_id',
  'issue',
  'attempt',
  'mode',
  'title',
  'prompt',
  'feedback',
  'base',
  'model',
  'max_turns',
  'timeout_minutes',
  'max_tasks',
  'deadline_at',
];

export const TEST_TOKEN = 'ghs_app_token_for_tests';

/** The assignment a coordinator hands the worker for attempt 1 of the feature task. */
export function assignmentFixture(token: string, taskId = 'task_001'): AssignmentResponse {
  return {
    token,
    expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    task_id: taskId,
    issue: '7',
    attempt: '1',
    mode: 'work',
    title: 'Add the feature file',
    prompt: 'Create feature.txt.',
    feedback: null,
    base: 'main',
    model: null,
    max_turns: null,
    timeout_minutes: '1',
  };
}

export interface Harness {
  fx: GitFixture;
  /** The assignment and the job environment a run with these overrides gets. */
  setup(overrides?: RunOverrides): { env: NodeJS.ProcessEnv; assignment: AssignmentResponse };
  run(
    overrides?: RunOverrides,
    cwd?: string,
    extras?: RunExtras,
  ): Promise<WorkerResult & { log: string }>;
  record(): AgentRecord | undefined;
  recordPath: string;
  /** How many times the worker asked the coordinator, over all runs. */
  assignmentRequests(): number;
}

/**
 * The worker's modes against a local bare origin, a fake agent, and a coordinator that
 * hands out assignments in memory (the HTTP path is covered by the bundle's own test).
 */
export function createHarness(branch = 'agent/7/task_001'): Harness {
  const fx = createGitFixture(branch);
  const agent = writeFakeAgent(fx.root);
  const recordPath = join(fx.root, 'agent-record.json');
  const taskId = branch.split('/')[2]!;
  let requests = 0;

  const setup = (overrides: RunOverrides = {}) => {
    const fields: Record<string, unknown> = { ...assignmentFixture(TEST_TOKEN, taskId) };
    const env: NodeJS.ProcessEnv = {
      ...isolatedEnv,
      GITHUB_REPOSITORY: 'acme/widgets',
      GITHUB_RUN_ID: '987654321',
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_API_URL: 'https://api.github.com',
      AGENT_COMMAND: agent.command,
      FAKE_AGENT: 'write',
      FAKE_AGENT_RECORD: recordPath,
    };
    for (const [key, value] of Object.entries(overrides)) {
      if ((FIELDS as string[]).includes(key)) fields[key] = value ?? null;
      else env[key] = value ?? undefined;
    }
    env.INPUT_TASK_ID ??= fields.task_id as string;
    env.INPUT_ISSUE ??= fields.issue as string;
    env.INPUT_ATTEMPT ??= fields.attempt as string;
    env.INPUT_MODE ??= fields.mode as string;
    env.INPUT_COORDINATOR_URL ??= 'https://coordinator.example.com';
    return { env, assignment: fields as unknown as AssignmentResponse };
  };

  return {
    fx,
    setup,
    recordPath,
    assignmentRequests: () => requests,
    async run(overrides = {}, cwd = fx.workspace, extras = {}) {
      const { clock, onOutput, ...structured } = extras;
      let log = '';
      const write = (t: string) => {
        log += t;
        onOutput?.(t);
      };
      const io = { out: write, err: write };
      const { env } = setup(overrides);
      let asked = 0;
      const coordinator: Coordinator = {
        async requestAssignment() {
          requests++;
          const assignment = { ...setup(overrides).assignment, ...structured };
          // Asked again within a run (the token was about to expire): a new token, like GitHub's.
          const n = asked++;
          return n === 0 ? assignment : { ...assignment, token: `${assignment.token}_${n}` };
        },
      };
      const result = await runWorker({ env, cwd, io, coordinator, graceMs: 500, clock });
      return { ...result, log };
    },
    record() {
      return existsSync(recordPath)
        ? (JSON.parse(readFileSync(recordPath, 'utf8')) as AgentRecord)
        : undefined;
    },
  };
}
