import { Octokit } from '@octokit/rest';
import type { WorkerEnv } from './env.js';

export interface PullRef {
  number: number;
  url: string;
  body: string;
}

/** The few GitHub calls the worker makes; everything else is git. */
export interface WorkerGitHub {
  defaultBranch(): Promise<string>;
  findOpenPull(branch: string): Promise<PullRef | undefined>;
  /** Opens the PR; when one is open for the branch already (GitHub's 422), that one, not created. */
  createPull(input: {
    branch: string;
    base: string;
    title: string;
    body: string;
  }): Promise<PullRef & { created: boolean }>;
  updatePullBody(number: number, body: string): Promise<void>;
  createIssueComment(number: number, body: string): Promise<{ id: number; url: string }>;
  /** The App's own review comments on the PR (all threads, replies included). */
  listReviewComments(pull: number): Promise<ReviewCommentRef[]>;
  /**
   * A reply in the thread that `commentId` (a thread's first comment) starts, from the worker's
   * installation token. `POST /pulls/{n}/comments` with `in_reply_to`: the dedicated
   * `/comments/{comment_id}/replies` route is not enabled for GitHub Apps (its OpenAPI
   * description says `enabledForGitHubApps: false`). GitHub ignores everything but `body`
   * in a reply; `commitId` and `path` are sent because the route's schema requires them.
   */
  replyToReviewComment(input: {
    pull: number;
    commentId: number;
    body: string;
    commitId: string;
    path: string;
  }): Promise<{ id: number; url: string }>;
}

export interface ReviewCommentRef {
  id: number;
  /** The comment this one replies to; undefined for a thread's first comment. */
  inReplyToId?: number;
  body: string;
}

type GitHubEnv = Pick<WorkerEnv, 'owner' | 'repo' | 'apiUrl' | 'appLogin'>;

/** `token` is read at each request, so a token asked for again is the one used. */
export function createWorkerGitHub(env: GitHubEnv, token: () => string): WorkerGitHub {
  const octokit = new Octokit({
    baseUrl: env.apiUrl,
    userAgent: 'agent-coordinator-worker',
    log: { debug: () => {}, info: () => {}, warn: console.warn, error: console.error },
  });
  octokit.hook.before('request', (options) => {
    options.headers.authorization = `token ${token()}`;
  });
  const { owner, repo } = env;
  // What the App wrote: a bot's, and the App's own login when the coordinator names it.
  const isApps = (user: { type: string; login: string } | null | undefined) =>
    user?.type === 'Bot' &&
    (env.appLogin === undefined || user.login.toLowerCase() === env.appLogin.toLowerCase());

  const findOpenPull = async (branch: string): Promise<PullRef | undefined> => {
    const { data } = await octokit.rest.pulls.list({
      owner,
      repo,
      head: `${owner}:${branch}`,
      state: 'open',
      per_page: 100,
    });
    // Only a same-repository PR from exactly this branch that the App opened belongs to the
    // task: anyone who can read the repository can open one from the branch onto any base, and
    // any workflow can open one as `github-actions[bot]`; the coordinator takes for the task's
    // only the App's (docs/worker.md). A coordinator that names no login: any bot's.
    const pr = data.find(
      (p) =>
        p.head.ref === branch &&
        p.head.repo?.full_name.toLowerCase() === `${owner}/${repo}`.toLowerCase() &&
        isApps(p.user),
    );
    return pr ? { number: pr.number, url: pr.html_url, body: pr.body ?? '' } : undefined;
  };

  return {
    async defaultBranch() {
      const { data } = await octokit.rest.repos.get({ owner, repo });
      return data.default_branch;
    },
    findOpenPull,
    async createPull({ branch, base, title, body }) {
      try {
        const { data } = await octokit.rest.pulls.create({
          owner,
          repo,
          head: branch,
          base,
          title,
          body,
        });
        return { number: data.number, url: data.html_url, body: data.body ?? body, created: true };
      } catch (error) {
        // Opened already: by a re-run of this job, another attempt, or a person.
        const existing = isAlreadyExists(error) ? await findOpenPull(branch) : undefined;
        if (existing) return { ...existing, created: false };
        throw error;
      }
    },
    async updatePullBody(number, body) {
      await octokit.rest.pulls.update({ owner, repo, pull_number: number, body });
    },
    async createIssueComment(number, body) {
      const { data } = await octokit.rest.issues.createComment({
        owner,
        repo,
        issue_number: number,
        body,
      });
      return { id: data.id, url: data.html_url };
    },
    async listReviewComments(pull) {
      const comments = await octokit.paginate(octokit.rest.pulls.listReviewComments, {
        owner,
        repo,
        pull_number: pull,
        per_page: 100,
      });
      // Anyone may reply in a thread: a reply with the worker's marker counts only as the App's.
      return comments
        .filter((c) => isApps(c.user))
        .map((c) => ({ id: c.id, inReplyToId: c.in_reply_to_id, body: c.body }));
    },
    async replyToReviewComment({ pull, commentId, body, commitId, path }) {
      const { data } = await octokit.rest.pulls.createReviewComment({
        owner,
        repo,
        pull_number: pull,
        in_reply_to: commentId,
        body,
        commit_id: commitId,
        path,
      });
      return { id: data.id, url: data.html_url };
    },
  };
}

/**
 * GitHub's 422 for a base branch that does not exist: `Validation Failed` with the error
 * `{resource: PullRequest, field: base, code: invalid}`.
 */
export function isInvalidBase(error: unknown): boolean {
  const e = error as { status?: number; response?: { data?: { errors?: unknown } } };
  const errors = e.response?.data?.errors;
  return (
    e.status === 422 &&
    Array.isArray(errors) &&
    errors.some((x) => (x as { field?: unknown } | null)?.field === 'base')
  );
}

function isAlreadyExists(error: unknown): boolean {
  const e = error as { status?: number; message?: string };
  return e.status === 422 && /already exists/i.test(e.message ?? '');
}
