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

function nest(tree: Tree): Dir {
  const root: Dir = { files: new Map(), dirs: new Map() };
  for (const [path, content] of Object.entries(tree)) {
    const parts = path.split('/').filter((p) => p.length > 0);
    const name = parts.pop();
    if (name === undefined) continue;
    let dir = root;
    for (const part of parts) {
      let next = dir.dirs.get(part);
      if (!next) {
        next = { files: new Map(), dirs: new Map() };
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

// With `out` null only the ids are wanted, and blobs are not encoded.
function encodeDir(dir: Dir, out: GitObject[] | null): GitObject {
  const entries: { key: Buffer; line: Buffer }[] = [];
  const add = (mode: string, name: string, sha: string, isDir: boolean): void => {
    entries.push({
      key: entryKey(name, isDir),
      line: Buffer.concat([Buffer.from(`${mode} ${name}\0`, 'utf8'), Buffer.from(sha, 'hex')]),
    });
  };
  for (const [name, content] of dir.files) {
    if (out) {
      const blob = blobObject(content);
      out.push(blob);
      add('100644', name, blob.sha, false);
    } else add('100644', name, blobSha(content), false);
  }
  for (const [name, sub] of dir.dirs) add('40000', name, encodeDir(sub, out).sha, true);
  entries.sort((a, b) => Buffer.compare(a.key, b.key));
  const tree = object('tree', Buffer.concat(entries.map((e) => e.line)));
  out?.push(tree);
  return tree;
}

/** Every blob and tree object of a flat path → content snapshot; the root tree is last. */
export function treeObjects(tree: Tree): GitObject[] {
  const out: GitObject[] = [];
  encodeDir(nest(tree), out);
  return out;
}

export function treeSha(tree: Tree): string {
  return encodeDir(nest(tree), null).sha;
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
