import { constants } from 'node:fs';
import { chmod, lstat, mkdtemp, open, readdir, rename, rm, unlink } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';

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
 * The checkout's `.git/`, which the agent owned (docs/worker.md, "Threat model"). actions/checkout's
 * post step runs git there as the runner's user (`git submodule foreach`, which starts a
 * `core.fsmonitor`), whatever became of the worker's step: so it leaves the checkout with a rename,
 * which reads nothing of it, as soon as the agent is done and before the worker reads anything the
 * agent left. That reading takes as long, and as much memory, as the agent's tree makes it, and
 * whatever ends the worker meanwhile (the run's cancel at its deadline, the runner's kill) skips
 * the removal at its end.
 */
export interface AgentGitDir {
  /** Where it is: in the checkout, or beside it once moved out. */
  readonly path: string;
  /**
   * Moves it beside the checkout, into a folder of the worker's own; where that cannot be done
   * (nothing there, another file system) it stays for remove(). Call once no process of the
   * agent's is left to make another.
   */
  moveOut(): Promise<void>;
  /** Removes it, wherever it is, whatever modes the agent left in it. */
  remove(): Promise<void>;
}

export function agentGitDir(checkout: string): AgentGitDir {
  const inCheckout = join(checkout, '.git');
  let aside: string | undefined;
  const moveOut = async () => {
    if (aside) return;
    const stats = await lstat(inCheckout).catch(() => undefined);
    if (!stats) return;
    // A rename writes the checkout's entry and a moved folder's `..`: the agent may have left
    // either without write permission.
    await ownerRights(checkout);
    if (stats.isDirectory()) await ownerRights(inCheckout);
    const folder = await mkdtemp(join(dirname(checkout), '.agent-coordinator-git-')).catch(
      () => undefined,
    );
    if (!folder) return;
    try {
      await rename(inCheckout, join(folder, 'git'));
      aside = folder;
    } catch {
      await rm(folder, { recursive: true, force: true });
    }
  };
  return {
    get path() {
      return aside ? join(aside, 'git') : inCheckout;
    },
    moveOut,
    async remove() {
      await moveOut();
      for (const root of aside ? [aside, inCheckout] : [inCheckout]) {
        // A `.git/` left without write permission kept `.git/config` from being unlinked.
        await takeBackFolders(root);
        await rm(root, { recursive: true, force: true });
      }
    },
  };
}

/** Gives the folder `path` (never through a link) its owner's rights, as takeBackFolders does. */
async function ownerRights(path: string): Promise<void> {
  const stats = await lstat(path).catch(() => undefined);
  if (stats?.isDirectory() && (stats.mode & 0o700) !== 0o700)
    await chmod(path, stats.mode | 0o700).catch(() => {});
}
