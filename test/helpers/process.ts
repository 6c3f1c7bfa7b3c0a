import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '../..');
// Absolute, so a process running in another directory (a temp cwd) still finds them.
const tsxLoader = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href;
const mainScript = join(root, 'src/main.ts');

export interface AppProcess {
  child: ChildProcess;
  output: string[];
  /** Resolves with the first output line matching; rejects if the process exits first. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Runs `src/main.ts` as a real process (through tsx), the way `npm start` runs the build, in
 * `cwd` (default: the repository).
 */
export function spawnApp(
  env: Record<string, string | undefined>,
  options: { cwd?: string } = {},
): AppProcess {
  return spawnProcess([process.execPath, '--import', tsxLoader, mainScript], {
    cwd: options.cwd ?? root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  });
}

/** Runs `argv` with exactly `env`, collecting its output lines (stdout and stderr). */
export function spawnProcess(
  argv: string[],
  options: { cwd: string; env: Record<string, string | undefined> },
): AppProcess {
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const listeners = new Set<(line: string) => void>();
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream! }).on('line', (line) => {
      output.push(line);
      for (const listener of listeners) listener(line);
    });
  }
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return {
    child,
    output,
    exited,
    waitForLine(pattern, timeoutMs = 30_000) {
      const seen = output.find((line) => pattern.test(line));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolvePromise, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(listener);
          reject(
            new Error(`no line matching ${pattern} within ${timeoutMs} ms:\n${output.join('\n')}`),
          );
        }, timeoutMs);
        const listener = (line: string) => {
          if (!pattern.test(line)) return;
          clearTimeout(timer);
          listeners.delete(listener);
          resolvePromise(line);
        };
        listeners.add(listener);
        void exited.then((code) => {
          clearTimeout(timer);
          reject(
            new Error(
              `process exited (${code}) before a line matching ${pattern}:\n${output.join('\n')}`,
            ),
          );
        });
      });
    },
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
        await exited;
      }
    },
  };
}
