import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import {
  attemptJobEnv,
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
  async function agentJob(agentEnv: NodeJS.ProcessEnv) {
    fx = createGitFixture('agent/7/task_001');
    const agent = join(fx.root, 'read-only-git-agent.cjs');
    writeFileSync(agent, READ_ONLY_GIT_AGENT);
    const traps = mkdtempSync(join(fx.root, 'traps-'));
    chmodSync(traps, 0o777);
    const trap = join(traps, 'fsmonitor-ran');
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
    };
    const temps = [0, 1].map(() => mkdtempSync(join(fx!.root, 'runner-temp-')));
    await runAssignmentJob(env, fx.workspace, coordinator.url, temps);
    const runner = withoutPrivilege();
    const { uid, gid } = statSync(fx.root);
    chownAll(fx.root, '65534:65534', runner.prefix);
    try {
      const step = await runBundle(
        { ...env, INPUT_STEP: 'agent', RUNNER_TEMP: temps[1] },
        fx.workspace,
        runner.prefix,
      );
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
});
