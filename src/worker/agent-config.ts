import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Git } from './git.js';
import { foldedComponents, startsWith } from './protected-paths.js';
import type { Snapshotter } from './snapshot.js';

/**
 * Files that configure a coding agent when it starts in a checkout, or when it reads a folder
 * (docs/worker.md, "Agent configuration"): hooks, permissions, skills and commands (`.claude/`),
 * MCP servers, memory and instruction files, and what Claude Code's own GitHub action restores
 * for the same reason (its restore-config.ts: `.claude`, `.mcp.json`, `.claude.json`,
 * `.gitmodules`, `.ripgreprc`, `CLAUDE.md`, `CLAUDE.local.md`, `.husky`, at the root only).
 * A commit of an earlier attempt must not configure the agent of the next one.
 */

/**
 * Names that configure an agent in any folder: Claude Code reads a subfolder's `CLAUDE.md` and
 * `.claude/` (skills, commands, agents) when it works there, and other agents read theirs.
 * Lower case: paths are compared as macOS and Windows compare them (src/worker/protected-paths.ts).
 */
const ANYWHERE = [
  // Not an agent's own, but it sets the filters and merge drivers git runs for the agent and
  // the worker, and what reviewers are shown (`linguist-generated` folds a file's diff away,
  // `filter=lfs` turns a file into a pointer that `.lfsconfig` may send anywhere).
  '.gitattributes',
  '.claude',
  'claude.md',
  'claude.local.md',
  'agents.md',
  // Codex reads it before the AGENTS.md beside it, which the base's would no longer govern.
  'agents.override.md',
  '.codex',
  '.agents',
  'gemini.md',
  '.gemini',
  '.cursor',
] as const;

/** Paths that configure an agent at the repository's root. */
const AT_ROOT = [
  '.claude.json',
  '.mcp.json',
  '.gitmodules',
  '.lfsconfig',
  '.ripgreprc',
  '.husky',
  '.cursorrules',
  '.windsurfrules',
  '.github/copilot-instructions.md',
  '.github/instructions',
  '.vscode/mcp.json',
] as const;

/** Whether `path` (repository-relative, `/`-separated) is agent configuration. */
export function isAgentConfig(path: string): boolean {
  const parts = foldedComponents(path);
  return (
    parts.some((part) => (ANYWHERE as readonly string[]).includes(part)) ||
    AT_ROOT.some((prefix) => startsWith(parts, prefix))
  );
}

/**
 * Before the agent starts (the checkout's `.git/` is still the worker's): every configuration
 * file of the working tree becomes what `base` has, or goes when `base` has none. Returns the
 * files taken from `base`.
 */
export async function restoreFromBase(git: Git, cwd: string, base: string): Promise<string[]> {
  const present = nulList(await git.out(['ls-files', '-z', '--cached', '--others']));
  // rm of a link removes the link, never what it points to; git lists no path through one.
  for (const path of new Set(present.filter(isAgentConfig)))
    await rm(join(cwd, path), { recursive: true, force: true });
  const inBase = nulList(await git.out(['ls-tree', '-r', '-z', '--name-only', base])).filter(
    isAgentConfig,
  );
  if (inBase.length > 0) {
    await git.run(
      ['checkout', '--no-overlay', base, '--pathspec-from-file=-', '--pathspec-file-nul'],
      { input: inBase.join('\0'), env: { GIT_LITERAL_PATHSPECS: '1' } },
    );
  }
  return inBase;
}

function nulList(out: string): string[] {
  return out.split('\0').filter(Boolean);
}

/** The agent configuration files of a tree (`git ls-tree -r -z`) as path → "mode oid". */
async function configEntries(snap: Snapshotter, tree: string): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  for (const line of nulList((await snap.git(['ls-tree', '-r', '-z', tree])).stdout)) {
    const tab = line.indexOf('\t');
    const path = line.slice(tab + 1);
    if (!isAgentConfig(path)) continue;
    const [mode, , oid] = line.slice(0, tab).split(' ') as [string, string, string];
    entries.set(path, `${mode} ${oid}`);
  }
  return entries;
}

const NO_OBJECT = '0'.repeat(40);

/**
 * The tree to keep: `after` (what the agent left), except that a configuration file the agent
 * did not touch (the same as in `restored`, the base's) gets back what the branch had
 * (`before`), so that the restore itself is never part of the change.
 */
export async function keepBranchConfig(
  snap: Snapshotter,
  trees: { before: string; restored: string; after: string },
): Promise<string> {
  const [before, restored, after] = await Promise.all(
    [trees.before, trees.restored, trees.after].map((tree) => configEntries(snap, tree)),
  );
  const removals: string[] = [];
  const additions: string[] = [];
  for (const path of new Set([...before!.keys(), ...restored!.keys(), ...after!.keys()])) {
    const branch = before!.get(path);
    // Changed by the agent, or the restore left it as the branch had it: nothing to put back.
    if (after!.get(path) !== restored!.get(path) || branch === restored!.get(path)) continue;
    // Removals first: a file may give way to a folder of the same name, or the other way.
    if (branch === undefined) removals.push(`0 ${NO_OBJECT}\t${path}`);
    else additions.push(`${branch}\t${path}`);
  }
  await snap.git(['read-tree', trees.after]);
  const lines = [...removals, ...additions];
  if (lines.length > 0)
    await snap.git(['update-index', '-z', '--index-info'], {
      input: lines.map((l) => `${l}\0`).join(''),
    });
  return (await snap.git(['write-tree'])).stdout.trim();
}
