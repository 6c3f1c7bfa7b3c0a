import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Git } from './git.js';
import type { Snapshotter } from './snapshot.js';

/**
 * Files that configure a coding agent when it starts in a checkout (docs/worker.md, "Agent
 * configuration"): hooks and permissions (`.claude/`), MCP servers, memory files, and what
 * Claude Code's own GitHub action restores for the same reason (its restore-config.ts).
 * A commit of an earlier attempt must not configure the agent of the next one.
 */
export const AGENT_CONFIG_PATHS = [
  '.claude',
  '.claude.json',
  '.mcp.json',
  'CLAUDE.md',
  'CLAUDE.local.md',
  'AGENTS.md',
  '.gitmodules',
  '.ripgreprc',
  '.husky',
] as const;

/** Whether `path` (repository-relative, `/`-separated) is agent configuration. */
export function isAgentConfig(path: string): boolean {
  return AGENT_CONFIG_PATHS.some((p) => path === p || path.startsWith(`${p}/`));
}

/**
 * Before the agent starts (the checkout's `.git/` is still the worker's): each configuration
 * path of the working tree becomes what `base` has, or goes when `base` has none.
 */
export async function restoreFromBase(git: Git, cwd: string, base: string): Promise<string[]> {
  const restored: string[] = [];
  for (const path of AGENT_CONFIG_PATHS) {
    // rm of a link removes the link, never what it points to.
    await rm(join(cwd, path), { recursive: true, force: true });
    const inBase = await git.run(['cat-file', '-e', `${base}:${path}`], { allowFail: true });
    if (inBase.code === 0) {
      await git.run(['checkout', '--no-overlay', base, '--', path]);
      restored.push(path);
    }
  }
  return restored;
}

/**
 * The tree to keep: `after` (what the agent left), except that a configuration path the
 * agent did not touch (the same as `restored`, the base's) gets back what the branch had
 * (`before`), so that the restore itself is never part of the change.
 */
export async function keepBranchConfig(
  snap: Snapshotter,
  trees: { before: string; restored: string; after: string },
): Promise<string> {
  const entry = async (tree: string, path: string) =>
    (await snap.git(['rev-parse', '--verify', '--quiet', `${tree}:${path}`], { allowFail: true }))
      .stdout.trim();
  await snap.git(['read-tree', trees.after]);
  for (const path of AGENT_CONFIG_PATHS) {
    if ((await entry(trees.after, path)) !== (await entry(trees.restored, path))) continue;
    await snap.git(['rm', '-r', '--cached', '--quiet', '--ignore-unmatch', '--', path]);
    const entries = await snap.git(['ls-tree', '-r', '-z', trees.before, '--', path]);
    if (entries.stdout) await snap.git(['update-index', '-z', '--index-info'], { input: entries.raw });
  }
  return (await snap.git(['write-tree'])).stdout.trim();
}
