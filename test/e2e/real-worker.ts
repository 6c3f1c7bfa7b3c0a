import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  runWorkflow,
  type JobRun,
  type WorkflowResult,
} from '../github-double/worker/actions-runner.js';
import { startScenario, type Scenario } from './harness.js';

/**
 * The worker as users run it: the committed action bundle, started from the real workflow
 * file the way a GitHub-hosted runner starts a JavaScript action, against the GitHub double.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const TEMPLATE = join(ROOT, 'templates/agent-worker.yml');
const ACTION_DIR = join(ROOT, 'actions/worker');

/** The workflow file users copy, for the repository's `.github/workflows/agent-worker.yml`. */
export const WORKER_WORKFLOW = readFileSync(TEMPLATE, 'utf8');

/** What a test does on GitHub between two jobs of a worker run (a merge while the agent works). */
export interface RealWorkerHooks {
  beforeJob?: (run: JobRun, job: string) => Promise<void>;
}

/**
 * Every dispatched worker run of the scenario is run by the real bundle in the three jobs of
 * the real workflow file, with `agent` (a CommonJS file run by this Node) standing in for
 * Claude Code. The runs' results, in order.
 */
/** The repository's `ANTHROPIC_API_KEY` secret in these runs: no agent may ever see it. */
export const REAL_WORKER_API_KEY = 'sk-ant-api03-repository-secret-for-the-real-worker';

export function useRealWorker(
  s: Scenario,
  agent: string,
  env: Record<string, string> = {},
  hooks: RealWorkerHooks = {},
): WorkflowResult[] {
  const runs: WorkflowResult[] = [];
  s.double.setWorker((run) => ({
    kind: 'job',
    run: async () => {
      const jobRun = {
        id: run.id,
        headBranch: run.branch,
        repoFullName: run.repo,
        inputs: run.inputs,
      };
      const result = await runWorkflow(s.double, jobRun, {
        workflowFile: TEMPLATE,
        actionDir: ACTION_DIR,
        actionPath: 'actions/worker',
        vars: { AGENT_COMMAND: `"${process.execPath}" "${agent}"` },
        // No App key, no App id: the only secret the template reads is the agent's API key,
        // which the worker keeps from the agent (src/worker/api-key-proxy.ts).
        secrets: { ANTHROPIC_API_KEY: REAL_WORKER_API_KEY },
        env: { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', ...env },
        beforeJob: async (job) => hooks.beforeJob?.(jobRun, job),
      });
      runs.push(result);
      return result.conclusion;
    },
  }));
  return runs;
}

export interface RealWorkerScenario {
  s: Scenario;
  runs: WorkflowResult[];
  /** Set by the test: called before each job of every worker run. */
  hooks: RealWorkerHooks;
  /** Checks the double saw no request GitHub would refuse, then stops everything. */
  close(): Promise<void>;
}

/**
 * A private repository holding the worker workflow, its PUBLIC_URL worked out from the App's
 * webhook URL (GET /app/hook/config) as on a fresh install, every worker run by the real
 * bundle with `agentSource` written to a file as the agent.
 */
export async function startRealWorkerScenario(
  agentSource: string,
  options: { env?: Record<string, string>; config?: string; files?: Record<string, string> } = {},
): Promise<RealWorkerScenario> {
  const dir = await mkdtemp(join(tmpdir(), 'fake-agent-'));
  // The agent runs as a user of its own: it must be able to read its own script.
  await chmod(dir, 0o755);
  const removeDir = () => rm(dir, { recursive: true, force: true });
  try {
    const agent = join(dir, 'agent.cjs');
    await writeFile(agent, agentSource);
    const s = await startScenario({
      private: true,
      env: { PUBLIC_URL: '' },
      config: options.config,
      files: { ...options.files, '.github/workflows/agent-worker.yml': WORKER_WORKFLOW },
    });
    const hooks: RealWorkerHooks = {};
    return {
      s,
      hooks,
      runs: useRealWorker(s, agent, options.env, hooks),
      async close() {
        try {
          s.double.assertNoViolations();
        } finally {
          await s.close();
          await removeDir();
        }
      },
    };
  } catch (error) {
    await removeDir();
    throw error;
  }
}
