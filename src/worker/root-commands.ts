import { execFile } from 'node:child_process';

/** How a command the worker ran for the agent's user or network ended. */
export interface Exec {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a setup command with no environment but PATH. Some run as the agent's user (the kill),
 * and a process's environment is readable by any process of its user: the worker's holds the
 * API key and the job's tokens, and a process the agent left behind is still there to read it
 * until the kill reaches it. A command that is not installed ends with 127, as in a shell.
 */
export function run(argv: string[], input?: string): Promise<Exec> {
  const [command, ...args] = argv;
  const env = { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' };
  return new Promise((resolve) => {
    const child = execFile(command!, args, { encoding: 'utf8', env }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 127) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
    // A command that is missing, or exits before reading it all, closes its stdin: the callback
    // above says how it ended.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input ?? '');
  });
}

/** How the worker becomes root for the few commands that set the agent up, if it can. */
export async function privilege(): Promise<string[] | undefined> {
  if (process.getuid?.() === 0) return [];
  const sudo = await run(['sudo', '-n', 'true']);
  return sudo.code === 0 ? ['sudo', '-n'] : undefined;
}

export async function must(argv: string[], what: string): Promise<string> {
  const result = await run(argv);
  if (result.code !== 0)
    throw new Error(
      `${what}: ${argv.join(' ')} exited with ${result.code}: ${result.stderr.trim()}`,
    );
  return result.stdout.trim();
}
