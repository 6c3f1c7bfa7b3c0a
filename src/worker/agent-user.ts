import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

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
  /** The argv that runs `argv` as this user with exactly `env`. */
  wrap(argv: string[], env: NodeJS.ProcessEnv): string[];
  /** Sends `signal` to every process of the user. */
  signal(signal: NodeJS.Signals): Promise<void>;
  /** Kills every process of the user, then gives the workspace back to the worker. */
  finish(): Promise<void>;
}

interface Exec {
  code: number;
  stdout: string;
  stderr: string;
}

function run(argv: string[]): Promise<Exec> {
  const [command, ...args] = argv;
  return new Promise((resolve) => {
    execFile(command!, args, { encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 127) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** How the worker becomes root for the few commands that set the user up, if it can. */
async function privilege(): Promise<string[] | undefined> {
  if (process.getuid?.() === 0) return [];
  const sudo = await run(['sudo', '-n', 'true']);
  return sudo.code === 0 ? ['sudo', '-n'] : undefined;
}

async function must(argv: string[], what: string): Promise<string> {
  const result = await run(argv);
  if (result.code !== 0)
    throw new Error(
      `${what}: ${argv.join(' ')} exited with ${result.code}: ${result.stderr.trim()}`,
    );
  return result.stdout.trim();
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
  await must(
    [...sudo, 'useradd', '--system', '--no-create-home', '--shell', '/usr/sbin/nologin', name],
    'could not create the agent user',
  );
  const agentUid = Number(await must(['id', '-u', name], 'no uid for the agent user'));
  const agentGid = Number(await must(['id', '-g', name], 'no gid for the agent user'));
  const home = await mkdtemp(join(tmpdir(), 'agent-home-'));
  await must([...sudo, 'chown', '-R', `${agentUid}:${agentGid}`, home, workspace], 'chown');
  await allowTraversal(sudo, workspace);

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
    wrap(argv, env) {
      const vars = Object.entries(env)
        .filter((e): e is [string, string] => e[1] !== undefined && !e[0].includes('='))
        .map(([k, v]) => `${k}=${v}`);
      return asAgent(['env', '-i', ...vars, ...argv]);
    },
    async signal(signal) {
      await run(asAgent(['kill', `-${signal.replace(/^SIG/, '')}`, '-1']));
    },
    async finish() {
      // kill(-1) as the agent's uid reaches every process of that uid, daemons included.
      for (let round = 0; round < 10; round++) {
        await run(asAgent(['kill', '-KILL', '-1']));
        if ((await run(['pgrep', '-u', String(agentUid)])).code !== 0) break;
      }
      await must([...sudo, 'chown', '-R', `${uid}:${gid}`, workspace], 'chown');
      await run([...sudo, 'rm', '-rf', home]);
      await run([...sudo, 'userdel', name]);
    },
  };
}

/**
 * The agent must reach the workspace through its parents (a runner's work directory, a
 * temporary directory): give "others" the right to pass through them, not to list or read.
 */
async function allowTraversal(sudo: string[], workspace: string): Promise<void> {
  for (let dir = dirname(workspace); dir !== dirname(dir); dir = dirname(dir)) {
    const mode = (await stat(dir)).mode;
    if ((mode & 0o001) === 0) await must([...sudo, 'chmod', 'o+x', dir], 'chmod');
  }
}
