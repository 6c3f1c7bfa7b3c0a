// What one installation may do on GitHub in an hour, and the per-task counts held against it.

/** GitHub's limits on one installation, per hour. */
export const INSTALLATION_HOURLY_LIMITS = {
  /** "About one write a second" (GitHub's best practices for integrators). */
  writes: 3600,
  /** Content-creating requests: 500 an hour (secondary rate limits). */
  contentCreations: 500,
  /** The primary limit of an installation token (more with many repositories or users). */
  calls: 5000,
};

export interface PerTask {
  writes: number;
  contentCreations: number;
  calls: number;
}

/**
 * `github_bound_tasks_per_hour` = min(3600 / writes, 500 / content creations, 5000 / calls):
 * how many tasks one installation can merge in an hour before one of GitHub's limits binds.
 */
export function githubBoundTasksPerHour(perTask: PerTask): number {
  const bound = (limit: number, perTaskCount: number) =>
    perTaskCount > 0 ? limit / perTaskCount : Number.POSITIVE_INFINITY;
  return Math.min(
    bound(INSTALLATION_HOURLY_LIMITS.writes, perTask.writes),
    bound(INSTALLATION_HOURLY_LIMITS.contentCreations, perTask.contentCreations),
    bound(INSTALLATION_HOURLY_LIMITS.calls, perTask.calls),
  );
}

/**
 * The routes that create content in the sense of the hourly limit: pull requests, issues,
 * comments (review comments and their replies too) and reviews. Edits, labels and reactions are
 * writes, not creations.
 */
const CONTENT_CREATIONS = new Set([
  'POST /repos/{owner}/{repo}/pulls',
  'POST /repos/{owner}/{repo}/issues',
  'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/comments',
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies',
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
]);

export function isContentCreation(route: string): boolean {
  return CONTENT_CREATIONS.has(route);
}

/** One GitHub call of the real worker (src/worker/), with its installation token. */
export interface WorkerCall {
  route: string;
  write: boolean;
}

const FIND_PULL: WorkerCall = { route: 'GET /repos/{owner}/{repo}/pulls', write: false };

/**
 * The REST calls the real worker's publish job makes per attempt, which the fleet's simulated
 * worker makes on the double directly (so the double's request log never sees them). From
 * src/worker/: `openOrUpdatePull` (pull-request.ts) opens a first attempt's PR at once, and for
 * a later attempt looks the branch's open PR up (`findOpenPull`, one page of 100) and updates its
 * body (or opens one); a plan attempt
 * posts one issue comment (plan-mode.ts). `resolveBase` asks for the default branch only when
 * the assignment names no base, and the coordinator always names one. git's fetch and push are
 * not REST calls. Review replies (a fix with review threads) do not happen in this benchmark.
 */
export const WORKER_CALLS_PER_ATTEMPT: Record<'opens' | 'updates' | 'plan', WorkerCall[]> = {
  /** A first attempt: its branch is new and has no PR. */
  opens: [{ route: 'POST /repos/{owner}/{repo}/pulls', write: true }],
  /** A retry or a fix: the PR is open, its body gets this attempt. */
  updates: [FIND_PULL, { route: 'PATCH /repos/{owner}/{repo}/pulls/{pull_number}', write: true }],
  plan: [{ route: 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments', write: true }],
};

/**
 * Each attempt's two jobs that ask the coordinator for an assignment (assignment and publish,
 * docs/worker.md "Three jobs") make it mint an installation token with the App's JWT
 * (`POST /app/installations/{id}/access_tokens`, src/worker-api/installation-token.ts): calls
 * of the App, not of the installation, so not in the installation's counts.
 */
export const TOKEN_MINTS_PER_ATTEMPT = 2;
