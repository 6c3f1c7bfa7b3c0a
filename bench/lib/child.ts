import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Messages children send their parent over IPC. */
export type ChildMessage = { type: string } & Record<string, unknown>;

const children = new Set<ChildProcess>();
process.once('exit', () => {
  // Only the processes this run forked, by their own handles.
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

/**
 * Forks a TypeScript entry point under tsx, with IPC. `nodeArgs` go to node (e.g. `--cpu-prof`).
 * The child is killed if this process exits first.
 */
export function forkTs(
  script: string,
  options: { env?: NodeJS.ProcessEnv; nodeArgs?: string[]; args?: string[] } = {},
): ChildProcess {
  const child = fork(
    fileURLToPath(new URL(script, new URL('../', import.meta.url))),
    options.args ?? [],
    {
      cwd: PROJECT_ROOT,
      execArgv: ['--import', 'tsx', ...(options.nodeArgs ?? [])],
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** The next IPC message of `type` from `child`; rejects if it exits or takes longer than `timeoutMs`. */
export function nextMessage<T extends ChildMessage>(
  child: ChildProcess,
  type: string,
  timeoutMs = 60_000,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onMessage = (message: ChildMessage) => {
      if (message?.type !== type) return;
      cleanup();
      resolve(message as T);
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`child exited (${code}) before sending "${type}"`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no "${type}" from the child within ${timeoutMs} ms`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Asks the child a question over IPC and waits for the answer of `type`. */
export async function ask<T extends ChildMessage>(
  child: ChildProcess,
  request: ChildMessage,
  answerType: string,
  timeoutMs = 60_000,
): Promise<T> {
  const answer = nextMessage<T>(child, answerType, timeoutMs);
  child.send(request);
  return answer;
}

/** Sends `stop` and waits for the child to exit (killing it after `graceMs`). */
export async function stopChild(child: ChildProcess, graceMs = 30_000): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.send({ type: 'stop' });
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Child side: send a message to the parent (no-op when not forked). */
export function tell(message: ChildMessage): void {
  process.send?.(message);
}
