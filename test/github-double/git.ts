import type { Core } from './core.js';
import { sha1 } from './ids.js';
import type { Account, Commit, Repo, Tree } from './model.js';

// Files are whole-tree snapshots per commit: small test repos make that cheap, and it lets
// merges be real three-way merges with real conflicts.

let commitNonce = 0;

export function treeSha(tree: Tree): string {
  const entries = Object.keys(tree)
    .sort()
    .map((p) => `${p}\0${sha1(tree[p] ?? '')}`);
  return sha1(`tree\n${entries.join('\n')}`);
}

export function createCommit(
  core: Core,
  repo: Repo,
  input: { parents: string[]; message: string; tree: Tree; author: Account },
): Commit {
  const tSha = treeSha(input.tree);
  // The nonce keeps two identical pushes distinct, like differing timestamps would.
  const sha = sha1(
    `commit\n${input.parents.join(' ')}\n${input.message}\n${tSha}\n${commitNonce++}`,
  );
  const commit: Commit = {
    sha,
    parents: input.parents,
    message: input.message,
    tree: input.tree,
    treeSha: tSha,
    author: input.author,
    at: core.now(),
  };
  repo.commits.set(sha, commit);
  return commit;
}

export function applyFiles(tree: Tree, files: Readonly<Record<string, string | null>>): Tree {
  const next: Record<string, string> = { ...tree };
  for (const [path, content] of Object.entries(files)) {
    if (content === null) delete next[path];
    else next[path] = content;
  }
  return next;
}

export function commit(repo: Repo, sha: string): Commit | undefined {
  return repo.commits.get(sha);
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

export function ancestors(repo: Repo, sha: string): Set<string> {
  const seen = new Set<string>();
  const stack = [sha];
  while (stack.length > 0) {
    const next = stack.pop();
    if (next === undefined || seen.has(next)) continue;
    seen.add(next);
    for (const p of repo.commits.get(next)?.parents ?? []) stack.push(p);
  }
  return seen;
}

export function isAncestor(repo: Repo, maybeAncestor: string, of: string): boolean {
  return ancestors(repo, of).has(maybeAncestor);
}

export function mergeBase(repo: Repo, a: string, b: string): string | undefined {
  const ofA = ancestors(repo, a);
  const common = [...ancestors(repo, b)].filter((sha) => ofA.has(sha));
  // The best common ancestor is one that no other common ancestor descends from.
  return common.find((c) => !common.some((o) => o !== c && isAncestor(repo, c, o)));
}

export interface Comparison {
  status: 'identical' | 'ahead' | 'behind' | 'diverged';
  aheadBy: number;
  behindBy: number;
  mergeBase: string | undefined;
  commits: string[];
}

export function compare(repo: Repo, base: string, head: string): Comparison {
  const ofBase = ancestors(repo, base);
  const ofHead = ancestors(repo, head);
  const aheadCommits = [...ofHead].filter((s) => !ofBase.has(s));
  const behindBy = [...ofBase].filter((s) => !ofHead.has(s)).length;
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
  const baseSha = mergeBase(repo, ours, theirs);
  const base = (baseSha && repo.commits.get(baseSha)?.tree) || {};
  const a = repo.commits.get(ours)?.tree ?? {};
  const b = repo.commits.get(theirs)?.tree ?? {};
  const paths = new Set([...Object.keys(base), ...Object.keys(a), ...Object.keys(b)]);
  const tree: Record<string, string> = {};
  const conflicts: string[] = [];
  for (const p of paths) {
    const o = base[p];
    const x = a[p];
    const y = b[p];
    let result: string | undefined;
    if (x === y) result = x;
    else if (x === o) result = y;
    else if (y === o) result = x;
    else {
      conflicts.push(p);
      continue;
    }
    if (result !== undefined) tree[p] = result;
  }
  return conflicts.length > 0 ? { ok: false, conflicts: conflicts.sort() } : { ok: true, tree };
}
