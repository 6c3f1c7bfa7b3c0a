import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import type { AssignmentResponse } from '../../../src/protocol/assignment.js';
import type { Coordinator } from '../../../src/worker/coordinator.js';
import { runWorker, type WorkerResult } from '../../../src/worker/run-worker.js';
import type { WorkerClock } from '../../../src/worker/clock.js';
import type { SignalSource } from '../../../src/worker/cancellation.js';
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
  anthropicApiKey: string | null;
  anthropicBaseUrl: string | null;
  inputs: string[];
  isSandbox: string | null;
  /** FAKE_AGENT_LOOK's files as the agent found them (null: missing). */
  seen: Record<string, string | null> | null;
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
  /**
   * Between the agent job and the publish job (a person pushing meanwhile), given the folder
   * of the agent job's artifact (a test may forge the result).
   */
  beforePublish?: (resultDir: string) => void;
  /** Where the agent job hears the runner's signals (a cancelled run); none reach it otherwise. */
  signals?: SignalSource;
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
  'run_base',
  'stack_parent_pr',
  'app_login',
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
    app_login: 'agent-coordinator[bot]',
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
  /** A folder anyone may write: the agent runs as a user of its own. */
  shared: string;
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
  // The agent runs as a user of its own: it writes its record where anyone may.
  const records = join(fx.root, 'records');
  mkdirSync(records);
  chmodSync(records, 0o777);
  const recordPath = join(records, 'agent-record.json');
  // What GitHub hands every step: the agent job reads the default branch from it.
  const eventPath = join(fx.root, 'event.json');
  writeFileSync(eventPath, JSON.stringify({ repository: { default_branch: 'main' } }));
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
      GITHUB_EVENT_PATH: eventPath,
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
    shared: records,
    assignmentRequests: () => requests,
    async run(overrides = {}, cwd = fx.workspace, extras = {}) {
      const { clock, onOutput, beforePublish, signals, ...structured } = extras;
      let log = '';
      const write = (t: string) => {
        log += t;
        onOutput?.(t);
      };
      const io = { out: write, err: write };
      const { env } = setup(overrides);
      // Each run's agent is a new user: an earlier one's record is not its to overwrite.
      rmSync(recordPath, { force: true });
      // Each job asks on its own; within one, a second ask is a renewal with a new token.
      const coordinator = (): Coordinator => {
        let asked = 0;
        return {
          async requestAssignment() {
            requests++;
            const assignment = { ...setup(overrides).assignment, ...structured };
            const n = asked++;
            return n === 0 ? assignment : { ...assignment, token: `${assignment.token}_${n}` };
          },
        };
      };
      // The three jobs of templates/agent-worker.yml, each on a machine of its own: a
      // RUNNER_TEMP each, the artifacts copied between them, the publish job in a fresh clone.
      const job = async (step: string, from: string | undefined, workspace: string) => {
        const temp = mkdtempSync(join(fx.root, `runner-temp-${step}-`));
        if (from)
          cpSync(join(from, 'agent-coordinator'), join(temp, 'agent-coordinator'), {
            recursive: true,
          });
        const result = await runWorker({
          env: { ...env, INPUT_STEP: env.INPUT_STEP ?? step, RUNNER_TEMP: temp },
          cwd: workspace,
          io,
          coordinator: coordinator(),
          graceMs: 500,
          clock,
          // Never the test process's own: a test sends the runner's signals itself.
          signals: signals ?? new EventEmitter(),
        });
        return { result, temp };
      };
      const assignment = await job('assignment', undefined, cwd);
      if (assignment.result.exitCode !== 0) return { ...assignment.result, log };
      const agent = await job('agent', assignment.temp, cwd);
      if (agent.result.exitCode !== 0) return { ...agent.result, log };
      beforePublish?.(join(agent.temp, 'agent-coordinator', 'result'));
      const publish = await job('publish', agent.temp, fx.freshWorkspace(branch));
      return { ...publish.result, log };
    },
    record() {
      return existsSync(recordPath)
        ? (JSON.parse(readFileSync(recordPath, 'utf8')) as AgentRecord)
        : undefined;
    },
  };
}
