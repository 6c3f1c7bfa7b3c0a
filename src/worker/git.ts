import { execFile } from 'node:child_process';

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout as bytes (a binary patch). */
  raw: Buffer;
  /** Killed at its timeout (GitOptions.timeoutMs), in ms. */
  timedOutAfterMs?: number;
}

export class GitError extends Error {
  constructor(
    readonly args: string[],
    readonly result: GitResult,
  ) {
    super(
      result.timedOutAfterMs === undefined
        ? `git ${args.join(' ')} exited with ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`
        : `git ${args.join(' ')} timed out after ${Math.round(result.timedOutAfterMs / 1000)} s`,
    );
  }
}

export const BOT_NAME = 'agent-coordinator[bot]';
export const BOT_EMAIL = 'agent-coordinator[bot]@users.noreply.github.com';

export interface GitRunOptions {
  allowFail?: boolean;
  /** Send the token (fetch and push only). */
  auth?: boolean;
  /** Added to the command's environment. */
  env?: NodeJS.ProcessEnv;
  /** The command's standard input. */
  input?: Buffer | string;
}

export interface GitOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /**
   * With serverUrl: sent as an HTTP header by fetch/push only, never written to .git/config.
   * Read at each command, so a token asked for again is the one used.
   */
  token?: () => string;
  serverUrl?: string;
  /**
   * Each command is killed after this long. Git reads files the agent wrote; one of them may be
   * a FIFO whose open never returns (docs/worker.md, "Threat model").
   */
  timeoutMs?: number;
}

/**
 * git through execFile (argv, no shell). The workflow checks out with
 * `persist-credentials: false`, so the agent never finds the App token in .git/config;
 * we hand it to git per command through GIT_CONFIG_* variables instead.
 */
export class Git {
  private readonly env: NodeJS.ProcessEnv;

  constructor(private readonly options: GitOptions) {
    this.env = {
      ...options.env,
      GIT_TERMINAL_PROMPT: '0',
      GIT_AUTHOR_NAME: BOT_NAME,
      GIT_AUTHOR_EMAIL: BOT_EMAIL,
      GIT_COMMITTER_NAME: BOT_NAME,
      GIT_COMMITTER_EMAIL: BOT_EMAIL,
    };
  }

  async run(args: string[], opts: GitRunOptions = {}): Promise<GitResult> {
    // Hooks, fsmonitor and signing belong to people's machines, never to a worker's git.
    const full = [
      '-c',
      'core.hooksPath=/dev/null',
      '-c',
      'core.fsmonitor=false',
      '-c',
      'commit.gpgsign=false',
      ...args,
    ];
    const base = { ...this.env, ...opts.env };
    const env = opts.auth ? this.withAuth(base) : base;
    const { timeoutMs } = this.options;
    const result = await new Promise<GitResult>((resolve) => {
      const child = execFile(
        'git',
        full,
        {
          cwd: this.options.cwd,
          env,
          maxBuffer: 1024 * 1024 * 1024,
          encoding: 'buffer',
          timeout: timeoutMs,
          killSignal: 'SIGKILL',
        },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
          const result = {
            code,
            stdout: stdout.toString(),
            stderr: stderr.toString(),
            raw: stdout,
          };
          // Killed by the timeout (not by maxBuffer, whose error has a string code).
          const timedOut = error?.killed === true && typeof error.code !== 'string';
          resolve(timedOut ? { ...result, timedOutAfterMs: timeoutMs } : result);
        },
      );
      child.stdin?.end(opts.input);
    });
    if (result.code !== 0 && !opts.allowFail) throw new GitError(args, result);
    return result;
  }

  async out(args: string[], opts: Pick<GitRunOptions, 'env'> = {}): Promise<string> {
    return (await this.run(args, opts)).stdout.trim();
  }

  async currentBranch(): Promise<string | undefined> {
    const r = await this.run(['symbolic-ref', '--quiet', '--short', 'HEAD'], { allowFail: true });
    return r.code === 0 ? r.stdout.trim() : undefined;
  }

  async head(): Promise<string> {
    return this.out(['rev-parse', 'HEAD']);
  }

  async resolve(ref: string): Promise<string | undefined> {
    const r = await this.run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
      allowFail: true,
    });
    return r.code === 0 ? r.stdout.trim() : undefined;
  }

  /** Whether `commit` is `of` or one of its ancestors (`git merge-base --is-ancestor`). */
  async isAncestor(commit: string, of: string): Promise<boolean> {
    const r = await this.run(['merge-base', '--is-ancestor', commit, of], { allowFail: true });
    return r.code === 0;
  }

  async fetchBranches(branches: string[]): Promise<void> {
    const specs = branches.map((b) => `+refs/heads/${b}:refs/remotes/origin/${b}`);
    await this.run(['fetch', '--no-tags', '--quiet', 'origin', ...specs], { auth: true });
  }

  /** Whether origin has the branch now (`git ls-remote` exits 2 when nothing matches). */
  async remoteBranchExists(branch: string): Promise<boolean> {
    const r = await this.run(
      ['ls-remote', '--exit-code', '--heads', 'origin', `refs/heads/${branch}`],
      { auth: true, allowFail: true },
    );
    if (r.code === 2) return false;
    if (r.code !== 0) throw new GitError(['ls-remote', 'origin', branch], r);
    return true;
  }

  async unmergedFiles(): Promise<string[]> {
    const out = await this.out(['diff', '--name-only', '--diff-filter=U', '-z']);
    return out.split('\0').filter(Boolean);
  }

  private withAuth(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    const token = this.options.token?.();
    const { serverUrl } = this.options;
    if (!token || !serverUrl) return env;
    const n = Number(env.GIT_CONFIG_COUNT ?? '0') || 0;
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    return {
      ...env,
      GIT_CONFIG_COUNT: String(n + 1),
      [`GIT_CONFIG_KEY_${n}`]: `http.${serverUrl}/.extraheader`,
      [`GIT_CONFIG_VALUE_${n}`]: `AUTHORIZATION: basic ${basic}`,
    };
  }
}
