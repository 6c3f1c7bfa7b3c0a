import { constants } from 'node:fs';
import { chmod, lstat, open, readdir, rm, unlink } from 'node:fs/promises';
import { join, relative } from 'node:path';

/**
 * Reading what the agent left without blocking (docs/worker.md, "Threat model"). Opening a
 * FIFO for reading waits until something writes to it, so a FIFO the agent planted where the
 * worker (or git, for the worker) reads a file would hold the job until its time limit.
 */

/**
 * Removes every FIFO, socket and device under `root` (its `.git/` and nested repositories
 * included; links are not followed) and returns their paths relative to `root`. Git records
 * none of them: an untracked one it skips, but one named `.gitignore`, `.gitattributes` or a
 * nested repository's `HEAD` it opens, and waits on.
 */
export async function removeSpecialFiles(root: string): Promise<string[]> {
  const removed: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (!entry.isFile() && !entry.isSymbolicLink()) {
        await unlink(path);
        removed.push(relative(root, path));
      }
    }
  };
  await walk(root);
  return removed.sort();
}

/**
 * The text of `path` when it is a regular file (never through a link), at most `maxBytes`;
 * undefined when it is missing or anything else.
 */
export async function readRegularFile(
  path: string,
  maxBytes = 1 << 20,
): Promise<string | undefined> {
  // O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer.
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;
  const file = await open(path, flags).catch(() => undefined);
  if (!file) return undefined;
  try {
    if (!(await file.stat()).isFile()) return undefined;
    const buffer = Buffer.alloc(maxBytes);
    const { bytesRead } = await file.read(buffer, 0, maxBytes, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await file.close();
  }
}

/**
 * Gives every folder under `root` (`root` too) its owner's rights back, links not followed. The
 * worker owns what the agent left once the checkout is handed back, but with the modes the agent
 * set, and unless the worker is root (on GitHub's runners it is the runner's user, with sudo)
 * those bind it too: a folder without read permission hid a FIFO from removeSpecialFiles while
 * git, which opens a `.gitattributes` by its path, waited on it; one without write permission kept
 * its files from being unlinked (docs/worker.md, "Threat model").
 */
export async function takeBackFolders(root: string): Promise<void> {
  const stats = await lstat(root).catch(() => undefined);
  if (!stats?.isDirectory()) return;
  if ((stats.mode & 0o700) !== 0o700) await chmod(root, stats.mode | 0o700).catch(() => {});
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  for (const entry of entries)
    if (entry.isDirectory()) await takeBackFolders(join(root, entry.name));
}

/**
 * Removes `root` (the checkout's `.git/`, which the agent owned) whatever modes the agent left in
 * it: a `.git/` it left without write permission kept `.git/config`, where actions/checkout's post
 * step ran git as the runner's user, the agent's `core.fsmonitor` with it.
 */
export async function removeAgentTree(root: string): Promise<void> {
  await takeBackFolders(root);
  await rm(root, { recursive: true, force: true });
}
