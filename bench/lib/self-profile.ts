import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Session } from 'node:inspector/promises';

/**
 * A V8 CPU profile of this process (the bench itself: in the fleet, the GitHub double and its
 * workers), written to `dir` as `<name>-<time>.cpuprofile` when stopped; with `dir` undefined
 * it does nothing.
 */
export async function profileSelf(dir: string | undefined, name: string) {
  if (!dir) return { stop: async () => undefined };
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop(): Promise<string> {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      mkdirSync(dir, { recursive: true });
      const path = join(dir, `${name}-${Date.now()}.cpuprofile`);
      writeFileSync(path, JSON.stringify(profile));
      return path;
    },
  };
}

/** The directory of `--cpu-prof-dir=<dir>` among node arguments, if there is one. */
export function profileDirOf(nodeArgs: readonly string[] | undefined): string | undefined {
  const arg = nodeArgs?.find((a) => a.startsWith('--cpu-prof-dir='));
  return arg?.slice('--cpu-prof-dir='.length);
}
