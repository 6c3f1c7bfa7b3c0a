import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';

// Templates ship next to package.json; code runs from src/ (tsx) or dist/src/ (built),
// so paths are resolved from the package root, not from this file.
export async function readTemplate(
  name: 'agent-worker.yml' | 'agent-coordinator.yml',
): Promise<string> {
  return readFile(join(packageRoot(), 'templates', name), 'utf8');
}

export async function packageVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(join(packageRoot(), 'package.json'), 'utf8')) as {
    version?: string;
  };
  return pkg.version ?? 'latest';
}

/** The copied workflow runs the worker version that wrote it, not whatever `latest` is later. */
export function pinWorkerVersion(workflow: string, version: string): string {
  return workflow.replace(
    /^([ \t]*AGENT_COORDINATOR_VERSION:[ \t]*)latest[ \t]*$/m,
    `$1${version}`,
  );
}
