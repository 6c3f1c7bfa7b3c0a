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
  // rm of a link removes the link, never what it points to.
  for (const path of AGENT_CONFIG_PATHS)
    await rm(join(cwd, path), { recursive: true, force: true });
  const inBase = [
    ...topLevelEntries(await git.out(['ls-tree', '-z', base, '--', ...AGENT_CONFIG_PATHS])).keys(),
  ];
  if (inBase.length > 0) await git.run(['checkout', '--no-overlay', base, '--', ...inBase]);
  return inBase;
}

/** `git ls-tree -z` output as path → object id. */
function topLevelEntries(out: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const line of out.split('\0').filter(Boolean)) {
    const [meta, path] = line.split('\t') as [string, string];
    entries.set(path, meta.split(' ')[2]!);
  }
  return entries;
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
  const entries = async (tree: string) =>
    topLevelEntries((await snap.git(['ls-tree', '-z', tree, '--', ...AGENT_CONFIG_PATHS])).stdout);
  const [before, restored, after] = await Promise.all(
    [trees.before, trees.restored, trees.after].map(entries),
  );
  await snap.git(['read-tree', trees.after]);
  for (const path of AGENT_CONFIG_PATHS) {
    // Untouched by the agent, and the restore changed it: what the branch had goes back.
    if (after!.get(path) !== restored!.get(path) || before!.get(path) === restored!.get(path))
      continue;
    await snap.git(['rm', '-r', '--cached', '--quiet', '--ignore-unmatch', '--', path]);
    const entries = await snap.git(['ls-tree', '-r', '-z', trees.before, '--', path]);
    if (entries.stdout)
      await snap.git(['update-index', '-z', '--index-info'], { input: entries.raw });
  }
  return (await snap.git(['write-tree'])).stdout.trim();
}
