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
  const tSha = treeSha(input.tree);
  let seconds = Math.floor(Date.parse(core.now()) / 1000);
  let sha = '';
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
