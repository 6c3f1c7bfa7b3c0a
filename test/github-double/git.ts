import type { Core } from './core.js';
import { commitObject, treeSha } from './git-objects.js';
import type { Account, Commit, GitIdent, Repo, Tree } from './model.js';

// Files are whole-tree snapshots per commit: small test repos make that cheap, and it lets
// merges be real three-way merges with real conflicts.

function noreplyEmail(account: Account): string {
  return `${account.id}+${account.login}@users.noreply.github.com`;
}

function identOf(account: Account, seconds: number): GitIdent {
  return { name: account.login, email: noreplyEmail(account), seconds, tz: '+0000' };
}

export function isoSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// The sha is the one git computes for this commit. Two identical commits made in the same
// second would share it; the second one is dated a second later instead, as it would be if
// it had been made a moment after.
export function createCommit(
  core: Core,
  repo: Repo,
  input: { parents: string[]; message: string; tree: Tree; author: Account },
): Commit {
  const parentTree = input.parents[0] ? repo.commits.get(input.parents[0])?.tree : undefined;
  const tSha = treeSha(input.tree, parentTree);
  let seconds = Math.floor(Date.parse(core.now()) / 1000);
  let sha: string;
  for (; ; seconds++) {
    const ident = identOf(input.author, seconds);
    sha = commitObject({
      treeSha: tSha,
      parents: input.parents,
      author: ident,
      committer: ident,
      message: input.message,
    }).sha;
    if (!repo.commits.has(sha)) break;
  }
  const ident = identOf(input.author, seconds);
  const commit: Commit = {
    sha,
    parents: input.parents,
    message: input.message,
    tree: input.tree,
    treeSha: tSha,
    author: input.author,
    at: isoSeconds(seconds),
    ident: { author: ident, committer: ident },
  };
  repo.commits.set(sha, commit);
  return commit;
}

/** The commit object git stores for a commit the double made itself. */
export function encodeCommit(c: Commit): Buffer {
  return commitObject({
    treeSha: c.treeSha,
    parents: c.parents,
    author: c.ident.author,
    committer: c.ident.committer,
    message: c.message,
  }).body;
}

export function applyFiles(tree: Tree, files: Readonly<Record<string, string | null>>): Tree {
  const next: Record<string, string> = { ...tree };
  for (const [path, content] of Object.entries(files)) {
    if (content === null) delete next[path];
    else next[path] = content;
  }
  return next;
}

export function branchSha(repo: Repo, branch: string): string | undefined {
  return repo.refs.get(`heads/${branch}`);
}

// Accepts a branch name, a full or short ref, or a commit sha.
export function resolveRef(repo: Repo, ref: string): string | undefined {
  const stripped = ref.replace(/^refs\//, '');
  return (
    repo.refs.get(stripped) ??
    repo.refs.get(`heads/${stripped}`) ??
    repo.refs.get(`tags/${stripped}`) ??
    (repo.commits.has(ref) ? ref : undefined) ??
    (/^[0-9a-f]{7,39}$/.test(ref)
      ? [...repo.commits.keys()].find((sha) => sha.startsWith(ref))
      : undefined)
  );
}

// History walks are bounded by generation numbers (git's commit-graph "topological level": a
// root is 1, any other commit one more than its highest parent), so their cost follows the
// commits between the two ends, not the whole history: a long-lived repository's main branch
// holds thousands of merges. A sha the map does not hold counts as a root without parents, as
// the plain walks below treat it.
const generations = new WeakMap<Commit, number>();

function generation(repo: Repo, sha: string): number {
  const top = repo.commits.get(sha);
  if (!top) return 0;
  const known = generations.get(top);
  if (known !== undefined) return known;
  // Iterative, since histories are deeper than the call stack. A commit's level is cached only
  // once every ancestor is in the map: a pushed commit's parents may still be on their way.
  const levels = new Map<string, { level: number; complete: boolean }>();
  const stack: string[] = [sha];
  while (stack.length > 0) {
    const next = stack[stack.length - 1]!;
    const commit = repo.commits.get(next)!;
    let ready = true;
    let level = 0;
    let complete = true;
    for (const p of commit.parents) {
      const parent = repo.commits.get(p);
      if (!parent) {
        complete = false;
        continue;
      }
      const cached = generations.get(parent);
      if (cached !== undefined) {
        level = Math.max(level, cached);
        continue;
      }
      const done = levels.get(p);
      if (done) {
        level = Math.max(level, done.level);
        complete &&= done.complete;
      } else {
        ready = false;
        stack.push(p);
      }
    }
    if (!ready) continue;
    stack.pop();
    levels.set(next, { level: level + 1, complete });
    if (complete) generations.set(commit, level + 1);
  }
  return levels.get(sha)!.level;
}

function parentsOf(repo: Repo, sha: string): readonly string[] {
  return repo.commits.get(sha)?.parents ?? [];
}

/** Every commit reachable from `sha`, itself included, in the order of a depth-first walk. */
export function ancestors(repo: Repo, sha: string): Set<string> {
  const seen = new Set<string>();
  const stack = [sha];
  while (stack.length > 0) {
    const next = stack.pop();
    if (next === undefined || seen.has(next)) continue;
    seen.add(next);
    for (const p of parentsOf(repo, next)) stack.push(p);
  }
  return seen;
}

export function isAncestor(repo: Repo, maybeAncestor: string, of: string): boolean {
  if (maybeAncestor === of) return true;
  // A commit only reaches commits of a lower level: the walk stops at the candidate's level.
  const floor = generation(repo, maybeAncestor);
  if (floor === 0) return ancestors(repo, of).has(maybeAncestor);
  const seen = new Set<string>();
  const stack = [of];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (next === maybeAncestor) return true;
    if (seen.has(next)) continue;
    seen.add(next);
    if (generation(repo, next) <= floor) continue;
    for (const p of parentsOf(repo, next)) stack.push(p);
  }
  return false;
}

const FROM_A = 1;
const FROM_B = 2;
const BOTH = FROM_A | FROM_B;
const STALE = 4;

/**
 * Paints the history of `a` and `b` from the newest level down (git's paint_down_to_common)
 * until every commit still queued is reachable from both, so the walk covers the commits on
 * either side of their common history and stops there. Each commit it took off the queue keeps
 * its final paint: reachable from `a`, `b`, or both.
 */
function paint(
  repo: Repo,
  a: string,
  b: string,
  options: { stale: boolean },
): { painted: Map<string, number>; common: string[] } {
  const painted = new Map<string, number>([[a, FROM_A]]);
  painted.set(b, (painted.get(b) ?? 0) | FROM_B);
  const queue = a === b ? [a] : [a, b];
  const level = new Map<string, number>();
  const levelOf = (sha: string): number => {
    let l = level.get(sha);
    if (l === undefined) level.set(sha, (l = generation(repo, sha)));
    return l;
  };
  const done = options.stale
    ? (sha: string) => (painted.get(sha)! & STALE) !== 0
    : (sha: string) => (painted.get(sha)! & BOTH) === BOTH;
  const popped = new Set<string>();
  const common: string[] = [];
  while (queue.some((sha) => !done(sha))) {
    let best = 0;
    for (let i = 1; i < queue.length; i++) if (levelOf(queue[i]!) > levelOf(queue[best]!)) best = i;
    const sha = queue[best]!;
    queue[best] = queue[queue.length - 1]!;
    queue.pop();
    popped.add(sha);
    let flags = painted.get(sha)!;
    if (options.stale && (flags & (BOTH | STALE)) === BOTH) {
      common.push(sha);
      flags |= STALE;
      painted.set(sha, flags);
    }
    for (const p of parentsOf(repo, sha)) {
      const had = painted.get(p) ?? 0;
      if ((had & flags) === flags) continue;
      painted.set(p, had | flags);
      queue.push(p);
    }
  }
  for (const sha of painted.keys()) if (!popped.has(sha)) painted.delete(sha);
  return { painted, common };
}

/** The plain definition: the first common ancestor, in `b`'s walk order, no other descends from. */
function mergeBaseByWalk(repo: Repo, a: string, b: string): string | undefined {
  const ofA = ancestors(repo, a);
  const common = [...ancestors(repo, b)].filter((sha) => ofA.has(sha));
  // A common commit is a proper ancestor of another exactly when it is a parent of one (the
  // common set holds every ancestor of its members).
  const below = new Set(common.flatMap((sha) => parentsOf(repo, sha)));
  return common.find((c) => !below.has(c));
}

export function mergeBase(repo: Repo, a: string, b: string): string | undefined {
  const { common } = paint(repo, a, b, { stale: true });
  // One best common ancestor is the usual case; several (criss-cross merges) are ordered as
  // the plain definition orders them.
  if (common.length === 1) return common[0];
  return mergeBaseByWalk(repo, a, b);
}

export interface Comparison {
  status: 'identical' | 'ahead' | 'behind' | 'diverged';
  aheadBy: number;
  behindBy: number;
  mergeBase: string | undefined;
  commits: string[];
}

// Comparisons and merges are functions of two commits' histories, which never change once every
// ancestor is known; a PR is rendered (mergeability, ahead and behind) on every read and every
// webhook about it, and merged right after the same check. Remembered per pair, within a bound.
const pairResults = new WeakMap<Map<string, Commit>, Map<string, Comparison | MergeResult>>();
const PAIRS_KEPT = 2000;

function remembered<T extends Comparison | MergeResult>(
  repo: Repo,
  kind: string,
  a: string,
  b: string,
  compute: () => T,
): T {
  const settled = (sha: string) => {
    const commit = repo.commits.get(sha);
    return commit !== undefined && generation(repo, sha) > 0 && generations.has(commit);
  };
  if (!settled(a) || !settled(b)) return compute();
  let results = pairResults.get(repo.commits);
  if (!results) pairResults.set(repo.commits, (results = new Map()));
  const key = `${kind} ${a} ${b}`;
  let result = results.get(key) as T | undefined;
  if (!result) {
    // The oldest pair goes first: the open PRs against the current heads stay remembered.
    if (results.size >= PAIRS_KEPT) results.delete(results.keys().next().value!);
    result = compute();
    results.set(key, result);
  }
  return result;
}

export function compare(repo: Repo, base: string, head: string): Comparison {
  const result = remembered(repo, 'compare', base, head, () => compareHistories(repo, base, head));
  return { ...result, commits: [...result.commits] };
}

function compareHistories(repo: Repo, base: string, head: string): Comparison {
  const { painted } = paint(repo, head, base, { stale: false });
  const onlyHead = new Set<string>();
  let behindBy = 0;
  for (const [sha, flags] of painted) {
    if ((flags & BOTH) === FROM_A) onlyHead.add(sha);
    else if ((flags & BOTH) === FROM_B) behindBy++;
  }
  // In the order a full walk from the head finds them: commits not in `onlyHead` are reachable
  // from the base, and so are all their ancestors, so the walk need not enter them.
  const aheadCommits: string[] = [];
  const seen = new Set<string>();
  const stack = [head];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (seen.has(next) || !onlyHead.has(next)) continue;
    seen.add(next);
    aheadCommits.push(next);
    for (const p of parentsOf(repo, next)) stack.push(p);
  }
  const aheadBy = aheadCommits.length;
  const status =
    aheadBy === 0 && behindBy === 0
      ? 'identical'
      : behindBy === 0
        ? 'ahead'
        : aheadBy === 0
          ? 'behind'
          : 'diverged';
  const order = (s: string): string => repo.commits.get(s)?.at ?? '';
  aheadCommits.sort((x, y) => order(x).localeCompare(order(y)));
  return {
    status,
    aheadBy,
    behindBy,
    mergeBase: mergeBase(repo, base, head),
    commits: aheadCommits,
  };
}

export type MergeResult = { ok: true; tree: Tree } | { ok: false; conflicts: string[] };

export function threeWayMerge(repo: Repo, ours: string, theirs: string): MergeResult {
  const result = remembered(repo, 'merge', ours, theirs, () => mergeTrees(repo, ours, theirs));
  return result.ok ? result : { ok: false, conflicts: [...result.conflicts] };
}

function mergeTrees(repo: Repo, ours: string, theirs: string): MergeResult {
  const baseSha = mergeBase(repo, ours, theirs);
  const base = (baseSha && repo.commits.get(baseSha)?.tree) || {};
  const a = repo.commits.get(ours)?.tree ?? {};
  const b = repo.commits.get(theirs)?.tree ?? {};
  const tree: Record<string, string> = {};
  const conflicts: string[] = [];
  const mergePath = (p: string): void => {
    const o = base[p];
    const x = a[p];
    const y = b[p];
    let result: string | undefined;
    if (x === y) result = x;
    else if (x === o) result = y;
    else if (y === o) result = x;
    else {
      conflicts.push(p);
      return;
    }
    if (result !== undefined) tree[p] = result;
  };
  // Every path once, in the order of its first appearance in base, ours, theirs.
  for (const p of Object.keys(base)) mergePath(p);
  for (const p of Object.keys(a)) if (!Object.hasOwn(base, p)) mergePath(p);
  for (const p of Object.keys(b)) if (!Object.hasOwn(base, p) && !Object.hasOwn(a, p)) mergePath(p);
  return conflicts.length > 0 ? { ok: false, conflicts: conflicts.sort() } : { ok: true, tree };
}

// A PR's changed files are a function of two trees, which never change once committed; the
// PR is rendered on every read and every webhook about it.
const changedCounts = new WeakMap<Tree, WeakMap<Tree, number>>();

export function changedFileCount(baseTree: Tree, headTree: Tree): number {
  let byBase = changedCounts.get(headTree);
  if (!byBase) changedCounts.set(headTree, (byBase = new WeakMap()));
  let count = byBase.get(baseTree);
  if (count === undefined) {
    count = 0;
    for (const p of Object.keys(headTree)) if (baseTree[p] !== headTree[p]) count += 1;
    for (const p of Object.keys(baseTree))
      if (!Object.hasOwn(headTree, p) && baseTree[p] !== headTree[p]) count += 1;
    byBase.set(baseTree, count);
  }
  return count;
}
