import { createHash } from 'node:crypto';
import type { GitIdent, Tree } from './model.js';

// Git's object format (Documentation/technical/hash-function-transition, "object format"):
// an object's id is sha1("<type> <byte length>\0<body>"), so the double's shas are the ones
// `git hash-object` / `git cat-file` report for the same content.

type ObjectType = 'blob' | 'tree' | 'commit';

export interface GitObject {
  sha: string;
  type: ObjectType;
  body: Buffer;
}

function objectId(type: ObjectType, body: Buffer): string {
  return createHash('sha1').update(`${type} ${body.length}\0`).update(body).digest('hex');
}

function object(type: ObjectType, body: Buffer): GitObject {
  return { sha: objectId(type, body), type, body };
}

function blobObject(content: string): GitObject {
  return object('blob', Buffer.from(content, 'utf8'));
}

// Every commit the double makes hashes its whole tree, and a repository that has merged many
// PRs holds many files that did not change: their blob ids are remembered, within a bound.
const blobShas = new Map<string, string>();
const BLOB_SHAS_KEPT = 50_000;

export function blobSha(content: string): string {
  let sha = blobShas.get(content);
  if (sha === undefined) {
    if (blobShas.size >= BLOB_SHAS_KEPT) blobShas.clear();
    sha = blobObject(content).sha;
    blobShas.set(content, sha);
  }
  return sha;
}

interface Dir {
  files: Map<string, string>;
  dirs: Map<string, Dir>;
}

function emptyDir(): Dir {
  return { files: new Map(), dirs: new Map() };
}

function nest(tree: Tree): Dir {
  const root = emptyDir();
  for (const [path, content] of Object.entries(tree)) {
    const parts = path.split('/').filter((p) => p.length > 0);
    const name = parts.pop();
    if (name === undefined) continue;
    let dir = root;
    for (const part of parts) {
      let next = dir.dirs.get(part);
      if (!next) {
        next = emptyDir();
        dir.dirs.set(part, next);
      }
      dir = next;
    }
    dir.files.set(name, content);
  }
  return root;
}

// Git sorts tree entries by name bytes, a directory's name compared as if it ended in '/'.
function entryKey(name: string, isDir: boolean): Buffer {
  return Buffer.from(isDir ? `${name}/` : name, 'utf8');
}

function dirObject(
  dir: Dir,
  fileSha: (content: string) => string,
  dirSha: (sub: Dir) => string,
): GitObject {
  const entries: { key: Buffer; line: Buffer }[] = [];
  const add = (mode: string, name: string, sha: string, isDir: boolean): void => {
    entries.push({
      key: entryKey(name, isDir),
      line: Buffer.concat([Buffer.from(`${mode} ${name}\0`, 'utf8'), Buffer.from(sha, 'hex')]),
    });
  };
  for (const [name, content] of dir.files) add('100644', name, fileSha(content), false);
  for (const [name, sub] of dir.dirs) add('40000', name, dirSha(sub), true);
  entries.sort((a, b) => Buffer.compare(a.key, b.key));
  return object('tree', Buffer.concat(entries.map((e) => e.line)));
}

/** Every blob and tree object of a flat path → content snapshot; the root tree is last. */
export function treeObjects(tree: Tree): GitObject[] {
  const out: GitObject[] = [];
  const encode = (dir: Dir): GitObject => {
    const obj = dirObject(
      dir,
      (content) => {
        const blob = blobObject(content);
        out.push(blob);
        return blob.sha;
      },
      (sub) => encode(sub).sha,
    );
    out.push(obj);
    return obj;
  };
  encode(nest(tree));
  return out;
}

// Each commit hashes its whole tree, and a commit usually changes a few files of its first
// parent's: a tree's directories are kept with their ids, and the next tree re-hashes only
// the directories on the paths that changed. Trees are never changed once committed.
interface HashedDir extends Dir {
  dirs: Map<string, HashedDir>;
  sha: string;
}

const hashedTrees = new WeakMap<Tree, HashedDir>();

function seal(dir: Dir, fresh: Set<Dir> | null): HashedDir {
  const sealed = dir as HashedDir;
  for (const [name, sub] of sealed.dirs) {
    if (fresh && !fresh.has(sub)) continue;
    seal(sub, fresh);
    // A directory whose last file went is no longer in the tree.
    if (sub.files.size === 0 && sub.dirs.size === 0) sealed.dirs.delete(name);
  }
  sealed.sha = dirObject(sealed, blobSha, (sub) => (sub as HashedDir).sha).sha;
  return sealed;
}

function isPlainPath(path: string): boolean {
  return path.length > 0 && !path.startsWith('/') && !path.endsWith('/') && !path.includes('//');
}

// Null when a changed path is not a plain a/b/c path (nest's handling of those is kept).
function changedPaths(base: Tree, tree: Tree): string[] | null {
  const changed: string[] = [];
  for (const path of Object.keys(tree))
    if (!Object.hasOwn(base, path) || tree[path] !== base[path]) changed.push(path);
  for (const path of Object.keys(base)) if (!Object.hasOwn(tree, path)) changed.push(path);
  return changed.every(isPlainPath) ? changed : null;
}

function patch(root: HashedDir, tree: Tree, changed: string[]): HashedDir {
  const fresh = new Set<Dir>();
  const copy = (dir: HashedDir | undefined): Dir => {
    const next: Dir = dir ? { files: new Map(dir.files), dirs: new Map(dir.dirs) } : emptyDir();
    fresh.add(next);
    return next;
  };
  const top = copy(root);
  for (const path of changed) {
    const parts = path.split('/');
    const name = parts.pop()!;
    let dir = top;
    for (const part of parts) {
      const sub = dir.dirs.get(part);
      const next = sub && fresh.has(sub) ? sub : copy(sub as HashedDir | undefined);
      dir.dirs.set(part, next);
      dir = next;
    }
    if (Object.hasOwn(tree, path)) dir.files.set(name, tree[path]!);
    else dir.files.delete(name);
  }
  return seal(top, fresh);
}

/** The tree's id; `base` (its first parent's tree, say) lets it re-hash only what changed. */
export function treeSha(tree: Tree, base?: Tree): string {
  let hashed = hashedTrees.get(tree);
  if (!hashed) {
    const from = base && hashedTrees.get(base);
    const changed = from && changedPaths(base, tree);
    hashed = from && changed ? patch(from, tree, changed) : seal(nest(tree), null);
    hashedTrees.set(tree, hashed);
  }
  return hashed.sha;
}

function identLine(ident: GitIdent): string {
  return `${ident.name} <${ident.email}> ${ident.seconds} ${ident.tz}`;
}

export function commitObject(input: {
  treeSha: string;
  parents: readonly string[];
  author: GitIdent;
  committer: GitIdent;
  message: string;
}): GitObject {
  const lines = [`tree ${input.treeSha}`, ...input.parents.map((p) => `parent ${p}`)];
  lines.push(`author ${identLine(input.author)}`, `committer ${identLine(input.committer)}`);
  return object('commit', Buffer.from(`${lines.join('\n')}\n\n${input.message}`, 'utf8'));
}

interface ParsedCommit {
  tree: string;
  parents: string[];
  author: GitIdent;
  committer: GitIdent;
  message: string;
}

function parseIdent(line: string): GitIdent {
  const m = /^(.*) <([^>]*)> (\d+) ([+-]\d{4})$/.exec(line);
  if (!m) return { name: line, email: '', seconds: 0, tz: '+0000' };
  return { name: m[1] ?? '', email: m[2] ?? '', seconds: Number(m[3]), tz: m[4] ?? '+0000' };
}

export function parseCommit(body: Buffer): ParsedCommit {
  const text = body.toString('utf8');
  const split = text.indexOf('\n\n');
  const header = split >= 0 ? text.slice(0, split) : text;
  const message = split >= 0 ? text.slice(split + 2) : '';
  const parsed: ParsedCommit = {
    tree: '',
    parents: [],
    author: parseIdent(''),
    committer: parseIdent(''),
    message,
  };
  // Continuation lines (a leading space, e.g. inside gpgsig) belong to the header above.
  for (const line of header.split('\n')) {
    if (line.startsWith(' ')) continue;
    const space = line.indexOf(' ');
    const key = line.slice(0, space);
    const value = line.slice(space + 1);
    if (key === 'tree') parsed.tree = value;
    else if (key === 'parent') parsed.parents.push(value);
    else if (key === 'author') parsed.author = parseIdent(value);
    else if (key === 'committer') parsed.committer = parseIdent(value);
  }
  return parsed;
}

interface TreeEntry {
  mode: string;
  name: string;
  sha: string;
}

export function parseTree(body: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    const nul = body.indexOf(0, space);
    if (space < 0 || nul < 0) break;
    entries.push({
      mode: body.subarray(at, space).toString('utf8'),
      name: body.subarray(space + 1, nul).toString('utf8'),
      sha: body.subarray(nul + 1, nul + 21).toString('hex'),
    });
    at = nul + 21;
  }
  return entries;
}
