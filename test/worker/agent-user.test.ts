import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgentUser, type AgentUser } from '../../src/worker/agent-user.js';

/**
 * The agent's user (docs/worker.md, "The agent's user"), made for real: these tests run as root,
 * as the worker does in a container job (on a GitHub-hosted runner it uses sudo instead).
 */

let root: string;
let workspace: string;
let user: AgentUser | undefined;
let stray: ChildProcess | undefined;
let leftover: string | undefined;
beforeEach(() => {
  // mkdtemp's mode, 0700: the agent may pass through only because the worker allows it.
  root = mkdtempSync(join(tmpdir(), 'agent-user-'));
  workspace = join(root, 'workspace');
  mkdirSync(workspace);
});
afterEach(async () => {
  if (stray) {
    stray.kill('SIGKILL');
    await once(stray, 'exit');
  }
  stray = undefined;
  // The user a failed finish() could not delete while the stray process ran.
  if (leftover) spawnSync('userdel', [leftover]);
  leftover = undefined;
  if (user) await user.finish().catch(() => {});
  user = undefined;
  rmSync(root, { recursive: true, force: true });
});

/** Live processes whose real uid is `uid` (a zombie is dead). */
function liveProcessesOf(uid: number): string[] {
  const status = (pid: string) => {
    try {
      return readFileSync(`/proc/${pid}/status`, 'utf8');
    } catch {
      return ''; // gone since the listing
    }
  };
  return readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    const text = status(pid);
    return new RegExp(`^Uid:\\s+${uid}\\s`, 'm').test(text) && !/^State:\s+[ZX]/m.test(text);
  });
}

const SECRET = 'sk-ant-api03-it\'s "secret"\n$HOME `id`';

describe('the agent user', () => {
  it('gets its environment through a file of its own, never on a command line', async () => {
    user = (await createAgentUser(workspace))!;
    expect(user).toBeDefined();
    const script =
      'process.stdout.write(JSON.stringify({ uid: process.getuid(), key: process.env.ANTHROPIC_API_KEY, names: Object.keys(process.env).sort() }))';
    const argv = await user.wrap([process.execPath, '-e', script], {
      ANTHROPIC_API_KEY: SECRET,
      PATH: process.env.PATH,
      'NOT-A-NAME': 'x',
    });
    // Every process on the way (sudo, setpriv, env, sh) shows its argv to anyone.
    expect(argv.join(' ')).not.toContain('sk-ant');
    const file = argv.find((a) => a.endsWith('env.sh'))!;
    expect(statSync(file).uid).toBe(user.uid);
    expect(statSync(file).mode & 0o077).toBe(0);

    const ran = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', cwd: workspace });
    expect(ran.stderr).toBe('');
    const seen = JSON.parse(ran.stdout) as { uid: number; key: string; names: string[] };
    expect(seen.uid).toBe(user.uid);
    expect(seen.key).toBe(SECRET);
    expect(seen.names).toContain('PATH');
    expect(seen.names).not.toContain('NOT-A-NAME');
    // Read once, then gone.
    expect(existsSync(file)).toBe(false);

    // Whatever PATH the agent is given.
    const bare = await user.wrap([process.execPath, '-e', script], { PATH: '/nowhere' });
    const ranBare = spawnSync(bare[0]!, bare.slice(1), { encoding: 'utf8', cwd: workspace });
    expect(ranBare.stderr).toBe('');
    expect(JSON.parse(ranBare.stdout)).toMatchObject({ uid: user.uid });
    expect(existsSync(bare.find((a) => a.endsWith('env.sh'))!)).toBe(false);
  });

  // The worker's environment holds the API key (and on a runner the job's tokens). A command
  // the worker runs as the agent's user (the kill that stops its processes) had it as its own
  // environment, which any process the agent left behind may read (/proc/<pid>/environ) in the
  // moment before the kill reaches it: the hostile agent's daemon did, about one run in four.
  it("runs its own commands as the user without the worker's environment", async () => {
    const bin = mkdtempSync(join(tmpdir(), 'agent-user-bin-'));
    const seen = mkdtempSync(join(tmpdir(), 'agent-user-seen-'));
    chmodSync(bin, 0o755);
    chmodSync(seen, 0o755);
    // A `kill` that records who ran it and with what environment, in a file of root's: the
    // agent's own files in the temporary folders go with it (agent-leftovers.test.ts).
    const record = join(seen, 'kills');
    writeFileSync(record, '', { mode: 0o666 });
    chmodSync(record, 0o666);
    writeFileSync(join(bin, 'kill'), `#!/bin/sh\n{ echo '-- kill'; id -u; env; } >> ${record}\n`, {
      mode: 0o755,
    });
    const saved = { key: process.env.ANTHROPIC_API_KEY, path: process.env.PATH };
    process.env.ANTHROPIC_API_KEY = SECRET;
    process.env.PATH = `${bin}:${saved.path}`;
    try {
      user = (await createAgentUser(workspace))!;
      const uid = user.uid;
      await user.signal('SIGTERM');
      await user.finish();
      user = undefined;
      const runs = readFileSync(record, 'utf8').split('-- kill\n').slice(1);
      expect(runs.length).toBeGreaterThanOrEqual(2);
      for (const text of runs) {
        expect(text.split('\n')[0]).toBe(String(uid));
        expect(text).not.toContain('sk-ant');
      }
    } finally {
      process.env.PATH = saved.path;
      if (saved.key === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved.key;
      rmSync(bin, { recursive: true, force: true });
      rmSync(seen, { recursive: true, force: true });
    }
  });

  // cron and at start a job at their own moment: one that fired after the kill and before its
  // entry was removed would run on, as the agent's user, once the network rules are gone.
  it('kills what a scheduled job started before the job was removed', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'agent-user-bin-'));
    chmodSync(bin, 0o755);
    // A `crontab` whose removal comes as the user's job fires: it starts a process of the user.
    writeFileSync(
      join(bin, 'crontab'),
      '#!/bin/sh\nu=$(id -u "$3"); g=$(id -g "$3")\n' +
        'setpriv --reuid=$u --regid=$g --clear-groups sleep 300 </dev/null >/dev/null 2>&1 &\n' +
        'echo $! > "$(dirname "$0")/job-pid"\n',
      { mode: 0o755 },
    );
    const saved = process.env.PATH;
    process.env.PATH = `${bin}:${saved}`;
    try {
      user = (await createAgentUser(workspace))!;
      const uid = user.uid;
      await user.finish();
      user = undefined;
      const job = Number(readFileSync(join(bin, 'job-pid'), 'utf8'));
      expect(job).toBeGreaterThan(0);
      expect(liveProcessesOf(uid)).toEqual([]);
    } finally {
      process.env.PATH = saved;
      // A job the kill missed (without the fix this test checks) is not left running.
      const pidFile = join(bin, 'job-pid');
      if (existsSync(pidFile)) spawnSync('kill', ['-KILL', readFileSync(pidFile, 'utf8').trim()]);
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it('takes back the traversal right it gave to the workspace parents', async () => {
    expect(statSync(root).mode & 0o777).toBe(0o700);
    user = (await createAgentUser(workspace))!;
    expect(statSync(root).mode & 0o001).toBe(0o001);
    await user.finish();
    user = undefined;
    expect(statSync(root).mode & 0o777).toBe(0o700);
  });

  it('fails, naming them, when processes of the user survive the kill', async () => {
    chmodSync(root, 0o755);
    user = (await createAgentUser(workspace))!;
    // A process counted as the user's that the user's kill cannot reach (real and saved uid
    // root, effective uid the agent's), as a process stuck in the kernel would survive it.
    stray = spawn(
      process.execPath,
      ['-e', `process.seteuid(${user.uid}); console.log('ready'); setInterval(() => {}, 1000);`],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await once(stray.stdout!, 'data');
    const finished = user.finish();
    leftover = user.name;
    user = undefined;
    await expect(finished).rejects.toThrow(new RegExp(`survived SIGKILL \\(pids ${stray.pid}\\)`));
  });
});
