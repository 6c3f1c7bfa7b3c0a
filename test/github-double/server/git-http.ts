import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Core } from '../core.js';
import type { Account, Repo } from '../model.js';
import type { Sent } from '../ops/pull-events.js';
import { deleteBranch, moveBranch } from '../ops/refs.js';
import type { Faults } from './faults.js';
import { gitCredential } from './git-access.js';
import { gitEnv, GitStore, type Bare } from './git-store.js';
import { rewritePushReport } from './pkt-line.js';

// git's smart HTTP protocol for the double's repositories, served by git http-backend as
// CGI, at the URLs GitHub uses: /<owner>/<repo>.git/... and /<owner>/<repo>/...

const GIT_PATH =
  /^\/([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?\/(info\/refs|git-upload-pack|git-receive-pack)$/;

interface CgiAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseCgi(out: Buffer): CgiAnswer {
  let end = out.indexOf('\r\n\r\n');
  let sep = 4;
  const lf = out.indexOf('\n\n');
  if (end < 0 || (lf >= 0 && lf < end)) {
    end = lf;
    sep = 2;
  }
  if (end < 0) return { status: 502, headers: {}, body: out };
  const headers: Record<string, string> = {};
  let status = 200;
  for (const line of out.subarray(0, end).toString('latin1').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500;
    else headers[name] = value;
  }
  return { status, headers, body: out.subarray(end + sep) };
}

function text(res: ServerResponse, status: number, message: string, extra = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...extra });
  res.end(`${message}\n`);
}

export class GitHttp {
  readonly store = new GitStore();
  private requests = 0;

  constructor(
    private readonly core: Core,
    private readonly faults: Faults,
  ) {}

  handles(pathname: string): boolean {
    const m = GIT_PATH.exec(pathname);
    return m !== null && m[1] !== 'api';
  }

  async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://double.invalid');
    const method = (req.method ?? 'GET').toUpperCase();
    const [, owner = '', name = '', tail = ''] = GIT_PATH.exec(url.pathname) ?? [];
    const body = await readBody(req);
    const fault = this.faults.take(method, url.pathname);
    if (fault?.delayMs) await delay(fault.delayMs);
    if (fault?.drop) {
      req.socket.destroy();
      return;
    }
    if (fault?.status) {
      text(res, fault.status, 'Internal Server Error', fault.headers ?? {});
      return;
    }
    const service: string | null = tail === 'info/refs' ? url.searchParams.get('service') : tail;
    if (service !== 'git-upload-pack' && service !== 'git-receive-pack') {
      // GitHub serves only the smart protocol.
      text(res, 403, 'Smart HTTP only: ask for ?service=git-upload-pack or git-receive-pack');
      return;
    }
    const repo = this.core.findRepo(`${owner}/${name}`);
    if (!repo) {
      text(res, 404, 'Repository not found.');
      return;
    }
    const access = gitCredential(this.core, req.headers.authorization, repo);
    const challenge = { 'www-authenticate': 'Basic realm="GitHub"' };
    if (access.kind === 'invalid') {
      text(
        res,
        401,
        'Invalid username or token. Password authentication is not supported for Git operations.',
        challenge,
      );
      return;
    }
    const writing = service === 'git-receive-pack';
    if (access.kind === 'none') {
      if (writing || repo.private) {
        text(res, 401, 'Authentication required.', challenge);
        return;
      }
    } else if (!access.read) {
      text(res, 404, 'Repository not found.');
      return;
    } else if (writing && !access.write) {
      text(res, 403, `Permission to ${repo.fullName}.git denied to ${access.actor.login}.`);
      return;
    }
    const token = access.kind === 'token' ? access : undefined;
    const answer = await this.store.exclusive(repo, async (bare) => {
      await this.store.sync(repo, bare);
      const refusals = join(this.store.root, `refusals-${++this.requests}`);
      const cgi = await this.runBackend(bare, {
        method,
        tail,
        query: url.search.replace(/^\?/, ''),
        req,
        body,
        user: token?.actor.login,
        hookEnv: {
          DOUBLE_WORKFLOWS: token?.workflows ? 'write' : 'none',
          DOUBLE_ACTOR_KIND: token?.app === false ? 'an OAuth App' : 'a GitHub App',
          DOUBLE_REFUSALS: refusals,
        },
      });
      if (method === 'POST' && service === 'git-receive-pack' && token) {
        cgi.body = this.reportRefusals(cgi.body, refusals);
        await this.applyPush(repo, bare, token.actor);
      }
      return cgi;
    });
    this.core.changed('git', { repo: repo.fullName, service, status: answer.status });
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  }

  close(): void {
    this.store.close();
  }

  private reportRefusals(body: Buffer, file: string): Buffer {
    if (!existsSync(file)) return body;
    const reasons = new Map<string, string>();
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const space = line.indexOf(' ');
      if (space > 0) reasons.set(line.slice(0, space), line.slice(space + 1));
    }
    rmSync(file, { force: true });
    return rewritePushReport(body, reasons);
  }

  private runBackend(
    bare: Bare,
    input: {
      method: string;
      tail: string;
      query: string;
      req: IncomingMessage;
      body: Buffer;
      user: string | undefined;
      hookEnv: Record<string, string>;
    },
  ): Promise<CgiAnswer> {
    const h = input.req.headers;
    const env: NodeJS.ProcessEnv = {
      ...gitEnv(this.store.root),
      ...input.hookEnv,
      GIT_PROJECT_ROOT: this.store.root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: `/${bare.name}/${input.tail}`,
      REQUEST_METHOD: input.method,
      QUERY_STRING: input.query,
      REMOTE_ADDR: input.req.socket.remoteAddress ?? '127.0.0.1',
      CONTENT_LENGTH: String(input.body.length),
    };
    if (h['content-type']) env.CONTENT_TYPE = h['content-type'];
    // git gzips large request bodies; http-backend inflates them itself.
    if (h['content-encoding']) env.HTTP_CONTENT_ENCODING = String(h['content-encoding']);
    if (h['git-protocol']) env.GIT_PROTOCOL = String(h['git-protocol']);
    // http-backend enables receive-pack only for an authenticated user.
    if (input.user) env.REMOTE_USER = input.user;
    return new Promise((resolve, reject) => {
      const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (c: Buffer) => out.push(c));
      child.stderr.on('data', (c: Buffer) => err.push(c));
      child.on('error', reject);
      child.on('close', (code) => {
        const answer = parseCgi(Buffer.concat(out));
        if (code !== 0 && answer.status < 400) {
          const detail = Buffer.concat(err).toString('utf8').trim();
          this.core.selfCheck('git http-backend', [`exited with ${code}: ${detail}`]);
        }
        resolve(answer);
      });
      child.stdin.on('error', () => {});
      child.stdin.end(input.body);
    });
  }

  // Each ref the push moved goes through the double's own push path, so the same webhooks,
  // PR head updates and merge-queue effects follow as for any other push.
  private async applyPush(repo: Repo, bare: Bare, pusher: Account): Promise<void> {
    const now = await this.store.readRefs(bare);
    const before = new Map([...bare.refs].filter(([r]) => /^(heads|tags)\//.test(r)));
    const sent: Sent = [];
    for (const ref of new Set([...before.keys(), ...now.keys()])) {
      const old = before.get(ref);
      const sha = now.get(ref);
      if (old === sha) continue;
      let commit: string | undefined;
      bare.peeled.delete(ref);
      if (sha !== undefined) {
        commit = this.store.importCommits(repo, bare, sha, pusher, this.core);
        bare.refs.set(ref, sha);
        if (commit !== sha) bare.peeled.set(ref, commit);
      } else bare.refs.delete(ref);
      const branch = ref.startsWith('heads/') ? ref.slice('heads/'.length) : undefined;
      if (branch !== undefined) {
        sent.push(
          ...(commit === undefined
            ? deleteBranch(this.core, repo, branch, pusher)
            : moveBranch(this.core, repo, branch, commit, pusher)),
        );
      } else {
        if (commit === undefined) repo.refs.delete(ref);
        else repo.refs.set(ref, commit);
        this.core.changed('ref', { repo: repo.fullName, ref, sha: commit ?? null });
      }
    }
    // GitHub answers the push before its webhooks are delivered.
    void Promise.allSettled(sent);
  }
}
