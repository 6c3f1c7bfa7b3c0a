import { execFile, execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync, inflateSync } from 'node:zlib';
import { encodeCommit, isoSeconds } from '../git.js';
import { parseCommit, parseTree, treeObjects, type GitObject } from '../git-objects.js';
import type { Account, Commit, GitIdent, Repo } from '../model.js';
import { PRE_RECEIVE_HOOK } from './git-hooks.js';

// One bare repository per double repository, kept in step with the model: before git
// reads it, the model's commits and refs are written in; after a push, the pushed commits
// are read back into the model. Objects are loose files only (receive.unpackLimit is huge,
// gc is off), so both directions are plain zlib reads and writes.

// Repositories that share a commit map (a fork network) share one object directory.
interface Network {
  objectsDir: string;
  written: Set<string>;
  lock: Promise<unknown>;
}

export interface Bare {
  dir: string;
  name: string;
  network: Network;
  // The refs (without "refs/") the bare repository holds, as last written or read.
  refs: Map<string, string>;
  // Annotated tags pushed over git: the model holds the commit they point at.
  peeled: Map<string, string>;
}

const BARE_CONFIG = `[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = true
[http]
\treceivepack = true
\tuploadpack = true
[receive]
\tunpackLimit = 1000000000
\tautogc = false
\thideRefs = refs/pull
[gc]
\tauto = 0
[uploadpack]
\tallowReachableSHA1InWant = true
\tallowTipSHA1InWant = true
`;

function run(args: string[], cwd: string, input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', args, { cwd, env: gitEnv(cwd) }, (error, stdout, stderr) => {
      if (error) reject(new Error(`git ${args.join(' ')}: ${String(stderr) || error.message}`));
      else resolve(String(stdout));
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

// Nothing from the machine's own git configuration leaks into the double.
export function gitEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
  };
}

export class GitStore {
  readonly root = mkdtempSync(join(tmpdir(), 'github-double-git-'));
  private readonly networks = new WeakMap<Map<string, Commit>, Network>();
  private readonly bares = new Map<number, Bare>();

  /** Runs `fn` with the repository's network to itself: git and the sync never interleave. */
  async exclusive<T>(repo: Repo, fn: (bare: Bare) => Promise<T>): Promise<T> {
    const network = this.network(repo);
    const previous = network.lock;
    let release: () => void = () => {};
    network.lock = new Promise<void>((resolve) => (release = resolve));
    await previous.catch(() => {});
    try {
      return await fn(await this.bare(repo, network));
    } finally {
      release();
    }
  }

  private network(repo: Repo): Network {
    let network = this.networks.get(repo.commits);
    if (!network) {
      network = {
        objectsDir: join(this.root, `objects-${this.bares.size}-${repo.id}`),
        written: new Set(),
        lock: Promise.resolve(),
      };
      mkdirSync(join(network.objectsDir, 'info'), { recursive: true });
      mkdirSync(join(network.objectsDir, 'pack'), { recursive: true });
      this.networks.set(repo.commits, network);
    }
    return network;
  }

  private async bare(repo: Repo, network: Network): Promise<Bare> {
    const known = this.bares.get(repo.id);
    if (known) return known;
    const name = `${repo.id}.git`;
    const dir = join(this.root, name);
    await run(
      ['init', '--bare', '--quiet', `--initial-branch=${repo.defaultBranch}`, dir],
      this.root,
    );
    rmSync(join(dir, 'objects'), { recursive: true, force: true });
    symlinkSync(network.objectsDir, join(dir, 'objects'));
    writeFileSync(join(dir, 'config'), BARE_CONFIG);
    rmSync(join(dir, 'hooks'), { recursive: true, force: true });
    mkdirSync(join(dir, 'hooks'));
    writeFileSync(join(dir, 'hooks', 'pre-receive'), PRE_RECEIVE_HOOK);
    chmodSync(join(dir, 'hooks', 'pre-receive'), 0o755);
    const bare: Bare = { dir, name, network, refs: new Map(), peeled: new Map() };
    this.bares.set(repo.id, bare);
    return bare;
  }

  /** Writes the model's commits and refs that the bare repository lacks. */
  async sync(repo: Repo, bare: Bare): Promise<void> {
    const { written } = bare.network;
    for (const c of repo.commits.values()) {
      if (written.has(c.sha)) continue;
      if (!c.pushed) {
        for (const o of treeObjects(c.tree)) this.writeObject(bare, o);
        this.writeObject(bare, { sha: c.sha, type: 'commit', body: encodeCommit(c) });
      }
      written.add(c.sha);
    }
    const wanted = modelRefs(repo);
    const commands: string[] = [];
    for (const [ref, sha] of wanted) {
      const held = bare.refs.get(ref);
      if (held !== undefined && bare.peeled.get(ref) === sha) wanted.set(ref, held);
      else if (held !== sha) commands.push(`update refs/${ref} ${sha}`);
    }
    for (const ref of bare.refs.keys()) {
      if (!wanted.has(ref)) commands.push(`delete refs/${ref}`);
    }
    for (const ref of bare.peeled.keys()) {
      if (wanted.get(ref) !== bare.refs.get(ref)) bare.peeled.delete(ref);
    }
    if (commands.length > 0)
      await run(['update-ref', '--stdin'], bare.dir, `${commands.join('\n')}\n`);
    bare.refs = wanted;
  }

  /** Branches and tags as the bare repository holds them now (after a push). */
  async readRefs(bare: Bare): Promise<Map<string, string>> {
    const out = await run(
      ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads', 'refs/tags'],
      bare.dir,
    );
    const refs = new Map<string, string>();
    for (const line of out.split('\n')) {
      const m = /^([0-9a-f]{40}) refs\/(.+)$/.exec(line);
      if (m?.[1] && m[2]) refs.set(m[2], m[1]);
    }
    return refs;
  }

  /**
   * Reads the commit `pushed` names (through annotated tags) and its ancestors the model
   * lacks into the model, parents first; answers that commit's sha.
   */
  importCommits(
    repo: Repo,
    bare: Bare,
    pushed: string,
    pusher: Account,
    core: AccountLookup,
  ): string {
    let tip = pushed;
    for (let o = this.readRaw(bare, tip); o.type === 'tag'; o = this.readRaw(bare, tip)) {
      tip = /^object ([0-9a-f]{40})$/m.exec(o.body.toString('utf8'))?.[1] ?? '';
    }
    const fresh: string[] = [];
    const stack = [tip];
    const seen = new Set<string>();
    while (stack.length > 0) {
      const sha = stack.pop();
      if (sha === undefined || seen.has(sha) || repo.commits.has(sha)) continue;
      seen.add(sha);
      fresh.push(sha);
      stack.push(...parseCommit(this.readObject(bare, sha, 'commit')).parents);
    }
    for (const sha of fresh.reverse()) {
      const parsed = parseCommit(this.readObject(bare, sha, 'commit'));
      const commit: Commit = {
        sha,
        parents: parsed.parents,
        // GitHub shows a commit's message without the trailing newline git writes.
        message: parsed.message.replace(/\n$/, ''),
        tree: this.readTree(bare, parsed.tree, ''),
        treeSha: parsed.tree,
        author: authorAccount(core, parsed.author, pusher),
        at: isoSeconds(parsed.committer.seconds),
        ident: { author: parsed.author, committer: parsed.committer },
        pushed: true,
      };
      repo.commits.set(sha, commit);
      bare.network.written.add(sha);
    }
    return tip;
  }

  close(): void {
    rmSync(this.root, { recursive: true, force: true });
  }

  private readTree(bare: Bare, sha: string, prefix: string): Record<string, string> {
    const files: Record<string, string> = {};
    for (const entry of parseTree(this.readObject(bare, sha, 'tree'))) {
      const path = `${prefix}${entry.name}`;
      if (entry.mode === '40000') Object.assign(files, this.readTree(bare, entry.sha, `${path}/`));
      // Submodules (160000) point at commits of other repositories: not files.
      else if (entry.mode !== '160000')
        files[path] = this.readObject(bare, entry.sha, 'blob').toString('utf8');
    }
    return files;
  }

  private objectPath(bare: Bare, sha: string): string {
    return join(bare.network.objectsDir, sha.slice(0, 2), sha.slice(2));
  }

  private writeObject(bare: Bare, o: GitObject): void {
    const path = this.objectPath(bare, o.sha);
    if (existsSync(path)) return;
    mkdirSync(join(bare.network.objectsDir, o.sha.slice(0, 2)), { recursive: true });
    const temp = `${path}.tmp`;
    writeFileSync(
      temp,
      deflateSync(Buffer.concat([Buffer.from(`${o.type} ${o.body.length}\0`), o.body])),
    );
    renameSync(temp, path);
  }

  private readObject(bare: Bare, sha: string, type: GitObject['type']): Buffer {
    const o = this.readRaw(bare, sha);
    if (o.type !== type) throw new Error(`github double: ${sha} is a ${o.type}, not a ${type}`);
    return o.body;
  }

  private readRaw(bare: Bare, sha: string): { type: string; body: Buffer } {
    const path = this.objectPath(bare, sha);
    if (existsSync(path)) {
      const raw = inflateSync(readFileSync(path));
      const type = raw.subarray(0, raw.indexOf(0x20)).toString('utf8');
      return { type, body: raw.subarray(raw.indexOf(0) + 1) };
    }
    // Everything is loose (see BARE_CONFIG); this is for a pack from outside the double.
    // --batch answers "<sha> <type> <size>\n<body>\n".
    const out = execFileSync('git', ['cat-file', '--batch'], {
      cwd: bare.dir,
      env: gitEnv(bare.dir),
      input: `${sha}\n`,
    });
    const nl = out.indexOf(0x0a);
    const [, type = 'missing', size = '0'] = out.subarray(0, nl).toString('utf8').split(' ');
    return { type, body: out.subarray(nl + 1, nl + 1 + Number(size)) };
  }
}

interface AccountLookup {
  account(login: string): Account;
}

// GitHub links a commit to an account by its email; the noreply forms name the login.
function authorAccount(core: AccountLookup, ident: GitIdent, pusher: Account): Account {
  const m = /^(?:\d+\+)?([^@]+)@users\.noreply\.github\.com$/i.exec(ident.email);
  return m?.[1] ? core.account(m[1]) : pusher;
}

// What GitHub serves: branches, tags and each pull request's head as refs/pull/<n>/head.
function modelRefs(repo: Repo): Map<string, string> {
  const refs = new Map<string, string>();
  for (const [ref, sha] of repo.refs) {
    if (ref.startsWith('heads/') || ref.startsWith('tags/')) refs.set(ref, sha);
  }
  for (const pull of repo.pulls.values()) {
    if (repo.commits.has(pull.headSha)) refs.set(`pull/${pull.number}/head`, pull.headSha);
  }
  return refs;
}
