import { chmodSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where a test keeps what an agent running as a user of its own (src/worker/agent-user.ts) writes
 * for the test to read after it. Once the agent is done the worker removes everything of that
 * user's in the machine's shared temporary folders, the worker's tmpdir() among them
 * (src/worker/agent-leftovers.ts): so when the worker can make that user (these tests run as
 * root) the test's folders are made outside them.
 */
export function agentScratchBase(): string {
  if (process.getuid?.() !== 0) return tmpdir();
  mkdirSync(OUTSIDE_SWEEP, { recursive: true, mode: 0o755 });
  return OUTSIDE_SWEEP;
}

const OUTSIDE_SWEEP = '/var/lib/agent-coordinator-tests';

/** A folder anyone may write, for the agent and the test to meet in; the test removes it. */
export function agentSharedFolder(prefix: string): string {
  const dir = mkdtempSync(join(agentScratchBase(), prefix));
  chmodSync(dir, 0o777);
  return dir;
}
