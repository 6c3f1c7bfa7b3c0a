import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import {
  attemptJobEnv,
  BUNDLE,
  type BundleRun,
  chownAll,
  runAssignmentJob,
  runBundle,
  startCoordinator,
  withoutPrivilege,
} from './helpers/bundle.js';
import { createGitFixture, isolatedEnv, type GitFixture } from './helpers/git-fixture.js';
import { assignmentFixture } from './helpers/harness.js';

/**
 * An agent that plants a `core.fsmonitor` in the checkout's `.git/config`, then takes the write
 * permission off `.git/`, so that a worker that is not root cannot unlink what is in it.
 */
const READ_ONLY_GIT_AGENT = String.raw`
const fs = require('node:fs');
const cp = require('node:child_process');
fs.readFileSync(0);
// Git appends its arguments to the command: the comment keeps them out of the redirection.
cp.spawnSync('git', ['config', 'core.fsmonitor', 'echo ran >> ' + JSON.stringify(process.env.TRAP) + ' #']);
fs.writeFileSync('feature.txt', 'done\n');
fs.chmodSync('.git', 0o555);
// A FIFO where git reads after the agent, in a folder the worker may not list (the checkout).
if (process.env.HIDDEN_FIFO) {
  cp.spawnSync('mkfifo', ['.gitattributes']);
  fs.chmodSync('.', 0o311);
}
// A nested repository whose branch leads to a FIFO outside the checkout: git, recording it as a
// submodule, waits there until its timeout (docs/worker.md, "What the agent job hands over").
if (process.env.HOLD) {
  fs.mkdirSync('nested/.git/objects', { recursive: true });
  fs.mkdirSync('nested/.git/refs/heads', { recursive: true });
  fs.writeFileSync('nested/.git/HEAD', 'ref: refs/heads/main\n');
  fs.symlinkSync(process.env.HOLD, 'nested/.git/refs/heads/main');
}
console.log(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'Done.', total_cost_usd: 0, usage: { input_tokens: 1, output_tokens: 1 } }));
`;

/**
 * The agent owns the checkout's `.git/` while it runs; once it is done the worker removes it,
 * since actions/checkout's post step runs git there as the runner's user (docs/worker.md,
 * "Threat model"). On GitHub's own runners the worker is not root: the runner's user, with
 * password-free sudo, who gets the checkout back from the agent's user with every mode the
 * agent left. A `.git/` without write permission then kept its entries from being unlinked,
 * `.git/config` among them, and the post step ran the agent's `core.fsmonitor` as a user with
 * sudo, on a machine whose runner holds the job's secrets, its network open again. Run here by
 * the committed bundle as a user with neither root nor sudo (the agent then shares the worker's
 * user, which owns what it left as on GitHub's runners after the hand-back).
 */
describe("the agent job's cleanup of .git/", () => {
  let fx: GitFixture | undefined;
  let server: Server | undefined;
  afterEach(() => {
    server?.close();
    fx?.cleanup();
  });

  /** The assignment job, then the agent job as a user without privilege, with `agentEnv`. */
  async function agentJob(agentEnv: NodeJS.ProcessEnv, during?: AgentJobHook) {
    fx = createGitFixture('agent/7/task_001');
    const agent = join(fx.root, 'read-only-git-agent.cjs');
    writeFileSync(agent, READ_ONLY_GIT_AGENT);
    const traps = mkdtempSync(join(fx.root, 'traps-'));
    chmodSync(traps, 0o777);
    const trap = join(traps, 'fsmonitor-ran');
    // Where a nested repository's HEAD leads (the agent's HOLD): a FIFO outside the checkout.
    const hold = join(traps, 'head');
    spawnSync('mkfifo', ['-m', '666', hold]);
    const coordinator = await startCoordinator(() => ({
      status: 200,
      body: assignmentFixture('ghs_unused'),
    }));
    server = coordinator.server;
    const env = {
      ...attemptJobEnv(coordinator.url, fx.workspace),
      AGENT_COMMAND: `"${process.execPath}" "${agent}"`,
      TRAP: trap,
      ...agentEnv,
      ...(agentEnv.HOLD && { HOLD: hold }),
    };
    const temps = [0, 1].map(() => mkdtempSync(join(fx!.root, 'runner-temp-')));
    await runAssignmentJob(env, fx.workspace, coordinator.url, temps);
    const runner = withoutPrivilege();
    const { uid, gid } = statSync(fx.root);
    chownAll(fx.root, '65534:65534', runner.prefix);
    try {
      const jobEnv = { ...env, INPUT_STEP: 'agent', RUNNER_TEMP: temps[1] };
      const step = during
        ? await runBundleWith(jobEnv, fx.workspace, runner.prefix, (child) => during(child, hold))
        : await runBundle(jobEnv, fx.workspace, runner.prefix);
      return { step, workspace: fx.workspace, trap };
    } finally {
      chownAll(fx.root, `${uid}:${gid}`, runner.prefix);
    }
  }

  it('removes a .git/ the agent left without write permission, so no post step runs its git', async () => {
    const { step, workspace, trap } = await agentJob({});
    expect(step.code, step.stdout).toBe(0);
    // What actions/checkout's post step looks for before it runs git in the workspace.
    expect(existsSync(join(workspace, '.git', 'config'))).toBe(false);
    // And what it runs there, which would read the index and start the fsmonitor.
    spawnSync('git', ['submodule', 'foreach', '--recursive', 'true'], {
      cwd: workspace,
      env: isolatedEnv,
    });
    expect(existsSync(trap) ? readFileSync(trap, 'utf8') : '').toBe('');
  });

  // Held, the snapshot's git waited on the FIFO until its timeout, the agent's deadline.
  it('removes a FIFO in a folder the agent left unreadable before git reads there', async () => {
    const { step } = await agentJob({ HIDDEN_FIFO: '1' });
    expect(step.code, step.stdout).toBe(0);
    expect(step.stdout).toContain(
      'removed what git cannot record (FIFOs, sockets): .gitattributes',
    );
  });

  // The run's cancel (at its deadline, which the time the worker spends reading what the agent
  // left can reach) or anything else that ends the worker there skips its last step: the
  // agent's .git/ must already be out of the post step's way.
  it('takes .git/ out of the checkout before it reads what the agent left, so a cancel meanwhile leaves none', async () => {
    const { step, workspace, trap } = await agentJob({ HOLD: '1' }, async (child, hold) => {
      // Opening the FIFO to write returns once git has opened it to read: the worker is reading
      // what the agent left. Then the runner's SIGINT, as for a cancelled run.
      const writer = await open(hold, 'w');
      child.kill('SIGINT');
      await once(child, 'exit');
      await writer.close();
    });
    // Killed by the signal, as a step is that has stopped listening for it.
    expect(step.code, step.stdout).toBeNull();
    expect(existsSync(join(workspace, '.git', 'config'))).toBe(false);
    spawnSync('git', ['submodule', 'foreach', '--recursive', 'true'], {
      cwd: workspace,
      env: isolatedEnv,
    });
    expect(existsSync(trap) ? readFileSync(trap, 'utf8') : '').toBe('');
  });
});

/** What happens while the agent job runs, given its process and the FIFO a held git waits on. */
type AgentJobHook = (child: ChildProcess, hold: string) => Promise<void>;

/** runBundle, with `during` given the step's process while it runs (a runner's signal). */
async function runBundleWith(
  env: NodeJS.ProcessEnv,
  cwd: string,
  as: string[],
  during: (child: ChildProcess) => Promise<void>,
): Promise<BundleRun> {
  const [command, ...args] = [...as, process.execPath, BUNDLE];
  const child = spawn(command!, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  const closed = once(child, 'close') as Promise<[number | null]>;
  await during(child);
  const [code] = await closed;
  return { code, stdout, stderr };
}
