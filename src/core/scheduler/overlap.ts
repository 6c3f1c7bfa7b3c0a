import { globMatches, literalPrefix, prefixesNest } from '../glob.js';

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
export function taskPaths(source: PathSource, tree: RepoTree | undefined): TaskPaths | undefined {
  if (source.changedFiles) {
    return { base: source.base, files: [...source.changedFiles], globs: [], prefixes: [] };
  }
  if (!source.files) return undefined;
  const globs = [...source.files];
  const files = new Set<string>();
  const prefixes: string[] = [];
  for (const glob of globs) {
    let matched = false;
    if (tree && !tree.truncated) {
      for (const path of tree.paths) {
        if (globMatches(glob, path)) {
          files.add(path);
          matched = true;
        }
      }
    }
    if (!matched) prefixes.push(literalPrefix(glob));
  }
  return { base: source.base, files: [...files].sort(), globs, prefixes };
}

/**
 * The first path on which two claims overlap, or undefined: a file both claim, a file of one
 * that a glob of the other matches (a new file, or any file when the tree was truncated), or two
 * literal prefixes of not-yet-existing files of which one contains the other.
 */
export function overlapPath(a: TaskPaths, b: TaskPaths): string | undefined {
  if (a.base !== b.base) return undefined;
  const [small, large] = a.files.length <= b.files.length ? [a, b] : [b, a];
  const largeFiles = new Set(large.files);
  for (const file of small.files) if (largeFiles.has(file)) return file;
  for (const [globs, files] of [
    [a.globs, b.files],
    [b.globs, a.files],
  ] as const) {
    for (const file of files) if (globs.some((g) => globMatches(g, file))) return file;
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
): string[] {
  if (!declared) return [];
  return changed.filter((file) => !declared.some((glob) => globMatches(glob, file)));
}
