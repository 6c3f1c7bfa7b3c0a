import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createWithFreshId } from './agent-ids.js';
import { removeLeftovers } from './agent-leftovers.js';
import { fail } from './outcome.js';
import { must, privilege, run } from './root-commands.js';

/**
 * The agent runs as a user of its own when the runner allows it (docs/worker.md, "The agent's
 * user"): the worker is root (a container job) or may use `sudo` without a password
 * (GitHub-hosted runners). That user cannot read the worker's /proc/<pid>/environ or memory,
 * cannot change the runner's files or the actions a later step runs, cannot use sudo, and
 * every process it leaves behind is killed when the agent ends, whatever process group it
 * moved to.
 */
export interface AgentUser {
  name: string;
  uid: number;
  /** Its home, made for this run. */
  home: string;
  /** What runs a command as root for the worker: nothing when it is root, else `sudo -n`. */
  root: string[];
  /**
   * The argv that runs `argv` as this user with exactly `env`. The environment travels in a
   * file only this user may read, never on a command line (/proc/<pid>/cmdline is anyone's to
   * read, and sudo's lasts as long as the agent).
   */
  wrap(argv: string[], env: NodeJS.ProcessEnv): Promise<string[]>;
  /** Sends `signal` to every process of the user. */
  signal(signal: NodeJS.Signals): Promise<void>;
  /**
   * Kills every process of the user, removes its cron and at jobs, takes back the traversal
   * right given to the workspace's parents, gives the workspace back to the worker, removes what
   * the user left in the machine's shared folders and SysV IPC (src/worker/agent-leftovers.ts)
   * and the user; then fails, naming them, if any process of the user survived. Returns what of
   * the user's could not be removed.
   */
  finish(): Promise<string[]>;
}

/**
 * A user for this agent run, owning `workspace`; undefined when the worker cannot switch users
 * (then the agent runs as the worker, and the log says what that leaves it).
 */
export async function createAgentUser(workspace: string): Promise<AgentUser | undefined> {
  const sudo = await privilege();
  if (!sudo) return undefined;
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  const name = `agent-${randomBytes(4).toString('hex')}`;
  // A group of its own with the same number (GID_MIN and GID_MAX say which), no lastlog or
  // faillog entry (their files grow to the uid's offset).
  const agentUid = await createWithFreshId((id) => [
    ...sudo,
    'useradd',
    ...['--uid', String(id), '--user-group', '-K', `GID_MIN=${id}`, '-K', `GID_MAX=${id}`],
    ...['--no-log-init', '--no-create-home', '--shell', '/usr/sbin/nologin', name],
  ]);
  const agentGid = agentUid;
  const home = await mkdtemp(join(tmpdir(), 'agent-home-'));
  await must([...sudo, 'chown', '-R', `${agentUid}:${agentGid}`, home, workspace], 'chown');
  const opened = await allowTraversal(sudo, workspace);
  const envDirs: string[] = [];

  const asAgent = (argv: string[]) => [
    ...sudo,
    'setpriv',
    `--reuid=${agentUid}`,
    `--regid=${agentGid}`,
    '--clear-groups',
    '--',
    ...argv,
  ];
  return {
    name,
    uid: agentUid,
    home,
    root: sudo,
    async wrap(argv, env) {
      const dir = await mkdtemp(join(tmpdir(), 'agent-env-'));
      envDirs.push(dir);
      const file = join(dir, 'env.sh');
      await writeFile(file, shellAssignments(env), { mode: 0o600 });
      await must([...sudo, 'chown', '-R', `${agentUid}:${agentGid}`, dir], 'chown');
      return asAgent(['env', '-i', '/bin/sh', '-c', LOAD_ENV, 'sh', file, ...argv]);
    },
    async signal(signal) {
      await run(asAgent(['kill', `-${signal.replace(/^SIG/, '')}`, '-1']));
    },
    async finish() {
      // kill(-1) as the agent's uid reaches every process of that uid, daemons included; a
      // process dies a moment after its SIGKILL, so look again a few times before giving up.
      const killAll = async (): Promise<number[]> => {
        let survivors: number[] = [];
        for (let round = 0; round < KILL_ROUNDS; round++) {
          await run(asAgent(['kill', '-KILL', '-1']));
          survivors = await processesOf(agentUid);
          if (survivors.length === 0) break;
          await delay(KILL_ROUND_MS);
        }
        return survivors;
      };
      // The agent first, so that it adds no job after they are removed; then the jobs; then
      // whatever a job started in between (cron or at firing before its entry went), which
      // would otherwise outlive the kill, and the network rules (agent-network.ts).
      await killAll();
      await removeScheduledJobs(sudo, name);
      const survivors = await killAll();
      for (const dir of opened) await run([...sudo, 'chmod', 'o-x', dir]);
      await must([...sudo, 'chown', '-R', `${uid}:${gid}`, workspace], 'chown');
      await run([...sudo, 'rm', '-rf', home, ...envDirs]);
      const leftovers = await removeLeftovers(sudo, agentUid);
      await run([...sudo, 'userdel', name]);
      // userdel leaves the group where USERGROUPS_ENAB is off.
      await run([...sudo, 'groupdel', name]);
      if (survivors.length > 0)
        fail(
          'agent_failed',
          `processes of the agent's user ${name} survived SIGKILL (pids ${survivors.join(', ')}): its change is not read while they may still write`,
        );
      return leftovers;
    },
  };
}

const KILL_ROUNDS = 20;
const KILL_ROUND_MS = 100;

/**
 * Reads the environment file (`K='v'` lines), removes it, and runs the agent: no command line
 * holds a value. `command -p` finds rm whatever PATH the file sets.
 */
const LOAD_ENV = 'set -a && . "$1" && command -p rm -rf "${1%/*}" && shift && exec "$@"';

/** `env` as lines /bin/sh reads back exactly; a name the shell cannot hold is left out. */
function shellAssignments(env: NodeJS.ProcessEnv): string {
  return Object.entries(env)
    .filter((e): e is [string, string] => e[1] !== undefined && /^[A-Za-z_]\w*$/.test(e[0]))
    .map(([k, v]) => `${k}='${v.replaceAll("'", "'\\''")}'\n`)
    .join('');
}

/** Live processes whose real or effective uid is `uid` (a zombie is dead: it runs nothing). */
async function processesOf(uid: number): Promise<number[]> {
  const pids: number[] = [];
  for (const pid of (await readdir('/proc')).filter((d) => /^\d+$/.test(d))) {
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const uids = /^Uid:\s+(\d+)\s+(\d+)/m.exec(status);
    if (!uids || (Number(uids[1]) !== uid && Number(uids[2]) !== uid)) continue;
    if (/^State:\s+[ZX]/m.test(status)) continue;
    pids.push(Number(pid));
  }
  return pids;
}

/**
 * A cron or at job of the agent's user would run after the agent is gone (at runs it by uid,
 * which a later user given that uid would inherit). Where cron or at is not installed there is
 * none.
 */
async function removeScheduledJobs(sudo: string[], name: string): Promise<void> {
  await run([...sudo, 'crontab', '-r', '-u', name]);
  const queue = await run([...sudo, 'atq']);
  if (queue.code !== 0) return;
  const jobs = queue.stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields.length > 1 && fields.at(-1) === name)
    .map((fields) => fields[0]!);
  if (jobs.length > 0) await run([...sudo, 'atrm', ...jobs]);
}

/**
 * The agent must reach the workspace through its parents (a runner's work directory, a
 * temporary directory): give "others" the right to pass through them, not to list or read.
 * Returns the folders changed, for finish() to change back.
 */
async function allowTraversal(sudo: string[], workspace: string): Promise<string[]> {
  const opened: string[] = [];
  for (let dir = dirname(workspace); dir !== dirname(dir); dir = dirname(dir)) {
    const mode = (await stat(dir)).mode;
    if ((mode & 0o001) !== 0) continue;
    await must([...sudo, 'chmod', 'o+x', dir], 'chmod');
    opened.push(dir);
  }
  return opened;
}
