import { globMatchesWithin, literalPrefix, prefixesNest, type MatchWork } from '../glob.js';

/**
 * The glob matching one decision may do (core/glob.ts, MatchWork): each path's characters, and
 * the states of the steps worked out anew. A plan whose `files:` cost more than this (only globs
 * written to, such as `**\/*?*?*?…` against a large tree) gets the rest decided by literal
 * prefixes and as overlapping: its tasks wait rather than collide, and no pass holds the process
 * for seconds. An ordinary plan on a 20,000-file tree uses under 1% of it
 * (test/core/scheduler/overlap.test.ts).
 */
export const MATCH_WORK = 10_000_000;

/** A fresh budget for one decision. */
export function matchWork(): MatchWork {
  return { left: MATCH_WORK };
}

/**
 * Conflict-aware scheduling (docs/lifecycle.md, step 4): the paths each task claims, and whether
 * two tasks' claims overlap. Pure; the engine reads the repository's tree at the base head once
 * per run and base head (src/engine/overlap.ts) and the tasks' `files:` and changed files.
 */

/** The files of the base branch's head (`GET /git/trees/{sha}?recursive=1`, blobs only). */
export interface RepoTree {
  paths: readonly string[];
  /** GitHub cut the listing short: no glob is matched against it, literal prefixes decide. */
  truncated: boolean;
}

/** What a task claims, compared only with tasks on the same base branch. */
export interface TaskPaths {
  base: string;
  /** Concrete files: the tree's files its globs match, or its PR's real changed files. */
  files: readonly string[];
  /** Its globs (none once its real files are known), matched against other tasks' files. */
  globs: readonly string[];
  /**
   * Literal prefixes of the globs that match no file of the tree (files that do not exist yet),
   * or of every glob when the tree is truncated: two tasks that may create the same new file.
   */
  prefixes: readonly string[];
}

export interface PathSource {
  base: string;
  /** The plan's `files:`; null or undefined when the task declares none. */
  files?: readonly string[] | null;
  /** Its PR's changed files, once read: they replace the declaration. */
  changedFiles?: readonly string[] | null;
}

/**
 * A task's claim, or undefined when it claims nothing: a task that declares no `files:` and has
 * no PR's files yet never waits on an overlap and never makes another wait.
 */
export function taskPaths(
  source: PathSource,
  tree: RepoTree | undefined,
  work: MatchWork = matchWork(),
): TaskPaths | undefined {
  if (source.changedFiles) {
    return { base: source.base, files: [...source.changedFiles], globs: [], prefixes: [] };
  }
  if (!source.files) return undefined;
  const globs = [...source.files];
  const files = new Set<string>();
  const prefixes: string[] = [];
  for (const glob of globs) {
    let matched = false;
    let spent = false;
    if (tree && !tree.truncated) {
      for (const path of pathsUnder(tree, literalPrefix(glob))) {
        const match = globMatchesWithin(glob, path, work);
        if (match === 'unknown') {
          spent = true;
          break;
        }
        if (match) {
          files.add(path);
          matched = true;
        }
      }
    }
    // A glob not matched through the whole tree may name any file under its literal prefix.
    if (!matched || spent) prefixes.push(literalPrefix(glob));
  }
  return { base: source.base, files: [...files].sort(), globs, prefixes };
}

// Each tree's paths in code-unit order, sorted once however many decisions read it.
const sortedPaths = new WeakMap<RepoTree, readonly string[]>();

/**
 * The tree's paths that start with `prefix`, the only ones a glob with that literal prefix can
 * match: a glob such as `src/login/**` is matched against its directory, not the whole tree.
 */
function* pathsUnder(tree: RepoTree, prefix: string): Generator<string> {
  let paths = sortedPaths.get(tree);
  if (!paths) sortedPaths.set(tree, (paths = [...tree.paths].sort()));
  let low = 0;
  let high = paths.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (paths[mid]! < prefix) low = mid + 1;
    else high = mid;
  }
  for (let i = low; i < paths.length && paths[i]!.startsWith(prefix); i++) yield paths[i]!;
}

/**
 * The first path on which two claims overlap, or undefined: a file both claim, a file of one
 * that a glob of the other matches (a new file, or any file when the tree was truncated), or two
 * literal prefixes of not-yet-existing files of which one contains the other.
 */
export function overlapPath(
  a: TaskPaths,
  b: TaskPaths,
  work: MatchWork = matchWork(),
): string | undefined {
  if (a.base !== b.base) return undefined;
  const [small, large] = a.files.length <= b.files.length ? [a, b] : [b, a];
  const largeFiles = new Set(large.files);
  for (const file of small.files) if (largeFiles.has(file)) return file;
  for (const [globs, files] of [
    [a.globs, b.files],
    [b.globs, a.files],
  ] as const) {
    // Past the budget a file counts as matched: the tasks wait rather than collide.
    for (const file of files)
      if (globs.some((g) => globMatchesWithin(g, file, work) !== false)) return file;
  }
  for (const p of a.prefixes) {
    for (const q of b.prefixes) {
      if (prefixesNest(p, q)) return p.length >= q.length ? p : q;
    }
  }
  return undefined;
}

/** The files of a PR outside its task's declaration (none when it declared nothing). */
export function filesOutsideDeclaration(
  declared: readonly string[] | null | undefined,
  changed: readonly string[],
  work: MatchWork = matchWork(),
): string[] {
  if (!declared) return [];
  // Past the budget a file counts as declared: the status comment says less, never wrongly.
  return changed.filter(
    (file) => !declared.some((glob) => globMatchesWithin(glob, file, work) !== false),
  );
}
