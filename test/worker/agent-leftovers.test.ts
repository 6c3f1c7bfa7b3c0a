import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgentUser, type AgentUser } from '../../src/worker/agent-user.js';

/**
 * What an agent leaves outside the checkout (docs/worker.md, "The agent's user"): a reused runner
 * (a self-hosted one that is not ephemeral) runs later jobs, of this repository or another, and
 * later agents, on the same machine. These tests run as root, as the worker does in a container
 * job (on a GitHub-hosted runner it uses sudo instead).
 */

let root: string;
let workspace: string;
const users: AgentUser[] = [];
const planted: string[] = [];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'agent-leftovers-'));
  workspace = join(root, 'workspace');
  mkdirSync(workspace);
});
afterEach(async () => {
  for (const user of users.splice(0)) await user.finish().catch(() => {});
  for (const path of planted.splice(0)) rmSync(path, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
});

async function newUser(): Promise<AgentUser> {
  const user = await createAgentUser(workspace);
  expect(user).toBeDefined();
  users.push(user!);
  return user!;
}

/** Finishes `user`; what of its own it could not remove. */
async function finish(user: AgentUser): Promise<string[]> {
  users.splice(users.indexOf(user), 1);
  return user.finish();
}

async function runAs(user: AgentUser, argv: string[]): Promise<number | null> {
  const wrapped = await user.wrap(argv, { PATH: process.env.PATH });
  const child = spawn(wrapped[0]!, wrapped.slice(1), { stdio: 'ignore', cwd: workspace });
  const [code] = (await once(child, 'exit')) as [number | null];
  return code;
}

const node = (script: string) => [process.execPath, '-e', script];

/** SysV IPC objects (shared memory, semaphores, message queues) owned or made by `uid`. */
function ipcObjectsOf(uid: number): string[] {
  const found: string[] = [];
  for (const kind of ['shm', 'sem', 'msg']) {
    const [header, ...rows] = readFileSync(`/proc/sysvipc/${kind}`, 'utf8').trim().split('\n');
    const names = header!.trim().split(/\s+/);
    for (const row of rows) {
      const fields = row.trim().split(/\s+/);
      const of = (name: string) => Number(fields[names.indexOf(name)]);
      if (of('uid') === uid || of('cuid') === uid) found.push(`${kind} ${fields[1]}`);
    }
  }
  return found;
}

// Each test makes and removes agent users, sweeping the machine's temporary folders each time.
describe('what the agent leaves outside the checkout', { timeout: 60_000 }, () => {
  it("leaves nothing of its own in the machine's shared temporary folders", async () => {
    const shared = ['/dev/shm', '/var/tmp', '/tmp'].map((dir) =>
      join(dir, `agent-stash-${process.pid}`),
    );
    const outside = join(root, 'outside.txt');
    writeFileSync(outside, "the worker's");
    planted.push(...shared);
    const user = await newUser();
    // A file in each, a folder with files in it, and a link to a file of the worker's: the link
    // goes, what it names stays.
    const script = `const fs = require('node:fs');
      for (const p of ${JSON.stringify(shared)}) fs.writeFileSync(p, 'the private repository\\'s code', { mode: 0o600 });
      const dir = ${JSON.stringify(join('/tmp', `agent-stash-dir-${process.pid}`))};
      fs.mkdirSync(dir + '/deep/er', { recursive: true });
      fs.writeFileSync(dir + '/deep/er/code.ts', 'code');
      fs.symlinkSync(${JSON.stringify(outside)}, dir + '/link');
      fs.chmodSync(dir + '/deep', 0o500);`;
    planted.push(join('/tmp', `agent-stash-dir-${process.pid}`));
    expect(await runAs(user, node(script))).toBe(0);
    const left = await finish(user);
    // A later job (any repository's workflow on this runner) or the next agent finds them.
    expect([...planted].filter((p) => existsSync(p))).toEqual([]);
    expect(readFileSync(outside, 'utf8')).toBe("the worker's");
    expect(left).toEqual([]);
  });

  it('leaves no SysV shared memory, semaphore or message queue of its own', async () => {
    const user = await newUser();
    for (const kind of ['-M', '-S', '-Q']) {
      const args = kind === '-M' ? [kind, '4096'] : kind === '-S' ? [kind, '1'] : [kind];
      expect(await runAs(user, ['ipcmk', ...args])).toBe(0);
    }
    expect(ipcObjectsOf(user.uid)).toHaveLength(3);
    const left = await finish(user);
    expect(ipcObjectsOf(user.uid)).toEqual([]);
    expect(left).toEqual([]);
  });

  it("gives the next agent no uid of an earlier one's, whose files it would own", async () => {
    // A folder every user may write that the worker does not sweep (a runner may have any).
    const elsewhere = mkdtempSync(join('/var/lib', 'agent-leftovers-'));
    chmodSync(elsewhere, 0o1777);
    planted.push(elsewhere);
    const stash = join(elsewhere, 'stash');
    const first = await newUser();
    const write = `require('node:fs').writeFileSync(${JSON.stringify(stash)}, 'secret', { mode: 0o600 })`;
    expect(await runAs(first, node(write))).toBe(0);
    await finish(first);
    const next = await newUser();
    expect(next.uid).not.toBe(first.uid);
    const read = `require('node:fs').readFileSync(${JSON.stringify(stash)}, 'utf8')`;
    expect(await runAs(next, node(read))).not.toBe(0);
  });

  it('says what of its own it could not remove', async () => {
    const dir = join('/tmp', `agent-open-dir-${process.pid}`);
    planted.push(dir);
    const user = await newUser();
    expect(
      await runAs(
        user,
        node(
          `require('node:fs').mkdirSync(${JSON.stringify(dir)}, { mode: 0o777 }); require('node:fs').chmodSync(${JSON.stringify(dir)}, 0o777)`,
        ),
      ),
    ).toBe(0);
    // Another user's file in the agent's folder: not the agent's to remove, and the folder stays.
    writeFileSync(join(dir, 'someone-else'), 'theirs');
    expect(await finish(user)).toEqual([expect.stringContaining(JSON.stringify(dir))]);
    expect(readFileSync(join(dir, 'someone-else'), 'utf8')).toBe('theirs');
  });
});
