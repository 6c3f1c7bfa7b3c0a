import { globMatchesWithin, literalPrefix, prefixesNest, type StepBudget } from '../glob.js';
import { pathsMatching, sortedIncludes } from './sorted-paths.js';

/**
 * Conflict-aware scheduling (docs/lifecycle.md, "Overlapping files"): the paths each task
 * claims, and whether two tasks' claims overlap. Pure; the engine reads the repository's tree at
 * the base head once per run and base head (src/engine/overlap.ts) and the tasks' `files:` and
 * changed files.
 */

/** The files of the base branch's head as GitHub lists them (`GET /git/trees/{sha}?recursive=1`). */
export interface TreeListing {
  paths: readonly string[];
  /** GitHub cut the listing short: no glob is matched against it, literal prefixes decide. */
  truncated: boolean;
}

/**
 * A base head's tree, ready for matching: its files sorted, so a glob is tried only on the files
 * under its literal prefix, and the claims worked out on it so far, by task (database id). A sha
 * names its content and a task's `files:` are written once, with its plan, so a claim kept here
 * holds for every later decision on the same head.
 */
export class RepoTree {
  readonly paths: readonly string[];
  readonly truncated: boolean;
  private readonly claims = new Map<number, TaskPaths>();
  private pathsKept = 0;

  constructor(listing: TreeListing) {
    this.paths = [...listing.paths].sort();
    this.truncated = listing.truncated;
  }

  claimOf(taskId: number): TaskPaths | undefined {
    return this.claims.get(taskId);
  }

  /** Keeps a task's claim, unless the kept claims already hold CLAIMED_PATHS_KEPT paths. */
  keep(taskId: number, claim: TaskPaths): void {
    const paths = claim.files.length + claim.globs.length + claim.prefixes.length;
    if (this.pathsKept + paths > CLAIMED_PATHS_KEPT) return;
    this.pathsKept += paths;
    this.claims.set(taskId, claim);
  }
}

/**
 * The files, globs and prefixes the kept claims of one tree hold in all (a few megabytes); past
 * it, claims are worked out again by each decision, within its steps.
 */
const CLAIMED_PATHS_KEPT = 200_000;

/** What a task claims, compared only with tasks on the same base branch. */
export interface TaskPaths {
  base: string;
  /** Concrete files, sorted: the tree's files its globs match, or its PR's real changed files. */
  files: readonly string[];
  /** Its globs (none once its real files are known), matched against other tasks' files. */
  globs: readonly string[];
  /**
   * Literal prefixes of the globs that match no file of the tree (files that do not exist yet),
   * or of every glob when the tree is truncated: two tasks that may create the same new file.
   */
  prefixes: readonly string[];
  /**
   * Matching ran out of steps: the globs not matched against the whole tree claim their
   * literal prefixes instead, which overlap more, never less.
   */
  cut?: true;
}

export interface PathSource {
  base: string;
  /** The plan's `files:`; null or undefined when the task declares none. */
  files?: readonly string[] | null;
  /** Its PR's changed files, once read: they replace the declaration. */
  changedFiles?: readonly string[] | null;
}

const UNBOUNDED = (): StepBudget => ({ left: Number.POSITIVE_INFINITY });

/**
 * A task's claim, or undefined when it claims nothing: a task that declares no `files:` and has
 * no PR's files yet never waits on an overlap and never makes another wait. Matching the globs
 * against the tree spends `budget`; once it runs out, the rest of the globs stand for their
 * literal prefixes, as on a truncated tree.
 */
export function taskPaths(
  source: PathSource,
  tree: RepoTree | undefined,
  budget: StepBudget = UNBOUNDED(),
): TaskPaths | undefined {
  if (source.changedFiles) {
    return { base: source.base, files: [...source.changedFiles].sort(), globs: [], prefixes: [] };
  }
  if (!source.files) return undefined;
  const globs = [...source.files];
  const files = new Set<string>();
  const prefixes: string[] = [];
  let cut = false;
  for (const glob of globs) {
    const prefix = literalPrefix(glob);
    const matched = tree && !tree.truncated ? pathsMatching(glob, prefix, tree.paths, budget) : [];
    if (matched === undefined) cut = true;
    if (!matched?.length) prefixes.push(prefix);
    for (const path of matched ?? []) files.add(path);
  }
  return {
    base: source.base,
    files: [...files].sort(),
    globs,
    prefixes,
    ...(cut ? { cut: true as const } : {}),
  };
}

/**
 * Where two claims overlap. `approximate`: a claim cut short or the comparison's own steps
 * running out decided it, not the files themselves (then `path` is a literal prefix, or `` when
 * the comparison ran out: anywhere).
 */
export interface Overlap {
  path: string;
  approximate?: true;
}

const UNDECIDED: Overlap = { path: '', approximate: true };

/**
 * The first path on which two claims overlap, or undefined: a file both claim, a file of one
 * that a glob of the other matches (a new file, or any file when the tree was truncated), or two
 * literal prefixes of not-yet-existing files of which one contains the other. Comparing spends
 * `budget`; once it runs out the claims are taken to overlap, so the later task waits.
 */
export function overlapPath(
  a: TaskPaths,
  b: TaskPaths,
  budget: StepBudget = UNBOUNDED(),
): Overlap | undefined {
  if (a.base !== b.base) return undefined;
  const [small, large] = a.files.length <= b.files.length ? [a, b] : [b, a];
  const lookup = Math.ceil(Math.log2(large.files.length + 1));
  for (const file of small.files) {
    if ((budget.left -= lookup) < 0) return UNDECIDED;
    if (sortedIncludes(large.files, file)) return { path: file };
  }
  for (const [globs, files] of [
    [a.globs, b.files],
    [b.globs, a.files],
  ] as const) {
    for (const glob of globs) {
      const matched = pathsMatching(glob, literalPrefix(glob), files, budget, true);
      if (matched === undefined) return UNDECIDED;
      if (matched.length > 0) return { path: matched[0]! };
    }
  }
  for (const p of a.prefixes) {
    for (const q of b.prefixes) {
      if (--budget.left < 0) return UNDECIDED;
      if (!prefixesNest(p, q)) continue;
      const path = p.length >= q.length ? p : q;
      return a.cut || b.cut ? { path, approximate: true } : { path };
    }
  }
  return undefined;
}

/** The files of a PR outside its task's declaration, as far as they were checked. */
export interface OutsideFiles {
  files: string[];
  /** How many of the PR's files were left unchecked when the steps ran out (none is named). */
  unchecked: number;
}

/**
 * The files of a PR outside its task's declaration (none when it declared nothing), checked in
 * order within `budget`: each glob tried on a file spends a step, and its automaton's steps when
 * the file lies under its literal prefix. The agent names the files (up to GitHub's 3000) and
 * the planner the globs, and the status comment checks them at every render.
 */
export function filesOutsideDeclaration(
  declared: readonly string[] | null | undefined,
  changed: readonly string[],
  budget: StepBudget = UNBOUNDED(),
): OutsideFiles {
  const files: string[] = [];
  if (!declared) return { files, unchecked: 0 };
  const prefixes = declared.map(literalPrefix);
  for (const [checked, file] of changed.entries()) {
    let inside: boolean | undefined = false;
    for (const [i, glob] of declared.entries()) {
      inside =
        --budget.left < 0
          ? undefined
          : file.startsWith(prefixes[i]!) && globMatchesWithin(glob, file, budget);
      if (inside !== false) break;
    }
    if (inside === undefined) return { files, unchecked: changed.length - checked };
    if (!inside) files.push(file);
  }
  return { files, unchecked: 0 };
}
