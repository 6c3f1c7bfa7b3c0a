import type { ActionsRunOrigin, BranchMergeAnswer } from '../core/merge/index.js';
import type { RoleName } from '../core/roles.js';

/** The narrow interface the coordinator needs from GitHub; one Octokit adapter implements it. */
export interface RepoCoords {
  owner: string;
  repo: string;
}

export type ConfigFile = { ok: true; raw: unknown } | { ok: false; error: string };

/** A check run annotation's level (`notice`, `warning` or `failure`) and message. */
export interface RunAnnotation {
  level: string;
  message: string;
}

export interface WorkflowRunInfo {
  id: number;
  status: string;
  conclusion: string | null;
  htmlUrl: string;
  headBranch: string | null;
  displayTitle: string;
  createdAt: string;
  /** GitHub's `run_attempt`: 2 and on for a re-run of the run's jobs; 1 when not given. */
  runAttempt?: number;
}

export interface PullInfo {
  number: number;
  nodeId: string;
  htmlUrl: string;
  state: 'open' | 'closed';
  merged: boolean;
  headRef: string;
  headSha: string;
  /** null when the head repository was deleted. */
  headRepoId: number | null;
  baseRef: string;
  body: string;
  userLogin: string;
}

export interface DispatchResult {
  /** Present when GitHub honoured return_run_details (200); absent on a bare 204. */
  runId?: number;
  runUrl?: string;
}

export interface IssueState {
  state: string;
  labels: string[];
}

export interface PullState extends PullInfo {
  draft: boolean;
  /** null while GitHub is still computing it. */
  mergeable: boolean | null;
  mergeableState: string;
}

export interface CheckInfo {
  name: string;
  status: string;
  conclusion: string | null;
  /** 'check_run' or 'status' (commit status). */
  source: 'check_run' | 'status';
  /** The check run's id (its annotations' key); null for a commit status. */
  checkRunId: number | null;
  /** The check run's check suite (`check_suite.id`); null for a commit status. */
  checkSuiteId: number | null;
  /**
   * The app that owns the check run (`github-actions` for an Actions job), or whose token wrote
   * the status (its creator's bot; `github-actions` for a workflow's `GITHUB_TOKEN`); null for a
   * status a person wrote.
   */
  appSlug: string | null;
  /** A check run's details_url, a status's target_url. */
  detailsUrl: string | null;
  /** What the check says of itself: a check run's output title and summary, a status's description. */
  title: string | null;
  summary: string | null;
  /**
   * For a job of a GitHub Actions workflow (app `github-actions`, details_url
   * `.../actions/runs/<run>/job/<job>`): its run, which `rerunFailedJobs` re-runs, and its job,
   * whose log `jobLogTail` reads. null for any other check.
   */
  actionsJob: { runId: number; jobId: number } | null;
}

/**
 * The check runs and commit statuses on a head, newest per name (a check run's within its check
 * suite), and the workflow runs on it, read when a check run is a GitHub Actions job: whose head
 * repository each job's run has (core's countedChecks).
 */
export interface HeadChecks {
  checks: CheckInfo[];
  actionsRuns: ActionsRunOrigin[];
}

export interface CheckAnnotation {
  path: string;
  startLine: number;
  endLine: number;
  level: 'notice' | 'warning' | 'failure';
  title: string;
  message: string;
}

export interface ReviewThreadComment {
  /** The login; GitHub's "ghost" for a deleted account, the App's slug (no `[bot]`) for a bot. */
  author: string;
  /** GraphQL's `Bot` (an App, `github-actions`): never a person with write access. */
  authorIsBot: boolean;
  body: string;
  url: string;
  createdAt: string;
}

/** A review thread as GraphQL's `PullRequest.reviewThreads` shows it. */
export interface ReviewThreadInfo {
  id: string;
  isResolved: boolean;
  /** A push changed the commented lines since: `line`/`startLine` are null then. */
  isOutdated: boolean;
  path: string;
  line: number | null;
  startLine: number | null;
  /** The lines as they were commented on, kept when the thread is outdated. */
  originalLine: number | null;
  originalStartLine: number | null;
  diffSide: 'LEFT' | 'RIGHT';
  /** The diff around the commented lines, from the thread's first comment. */
  diffHunk: string;
  /** The first comment's URL: where a person reads the thread. */
  url: string;
  /** The first comment's REST id, which a reply names (`in_reply_to`). */
  firstCommentId: number | null;
  /** Oldest first: the first REVIEW_THREAD_COMMENTS, and those read since (laterReviewComments). */
  comments: ReviewThreadComment[];
  /** Comments of the thread not in `comments`. */
  commentsLeftOut: number;
  /** Where the comments past `comments` start (GraphQL's opaque cursor); null when none were. */
  laterComments: string | null;
}

export interface ReviewThreads {
  /** Newest first. */
  threads: ReviewThreadInfo[];
  /** Threads not in `threads` that might have been (an upper bound: unread ones count). */
  leftOut: number;
  /** Of those, the older threads not read at all: past `limit`, or REVIEW_THREADS_READ_MAX. */
  unread: number;
}

export interface JobLogTail {
  /** The last lines up to the first `##[error]` line (or the log's end), timestamps removed. */
  lines: string[];
  /** The step those lines belong to (`##[group]Run <step>`), when the log names one. */
  step: string | null;
  /** Lines before `lines` that were left out. */
  linesLeftOut: number;
}

export type RerunOutcome = { ok: true } | { ok: false; status: number; message: string };

export type ReviewRequestOutcome = { ok: true } | { ok: false; status: number; message: string };

export interface CheckRunOutput {
  status: 'queued' | 'in_progress' | 'completed';
  conclusion?:
    'success' | 'failure' | 'neutral' | 'cancelled' | 'skipped' | 'timed_out' | 'action_required';
  title: string;
  summary: string;
}

export type MergeOutcome =
  { merged: true; sha: string } | { merged: false; status: number; message: string };

export type ReactionContent =
  '+1' | '-1' | 'confused' | 'eyes' | 'rocket' | 'hooray' | 'heart' | 'laugh';

export interface GitHubPort {
  /** The user's role on the repository, from the collaborator permission API. */
  roleOf(repo: RepoCoords, login: string): Promise<RoleName>;
  /** `.github/agent-coordinator.yml` from the default branch; a missing file is `{ ok: true, raw: null }`. */
  readConfigFile(repo: RepoCoords): Promise<ConfigFile>;
  defaultBranch(repo: RepoCoords): Promise<string>;
  /** The head SHA of a branch, or null when it does not exist. */
  branchHead(repo: RepoCoords, branch: string): Promise<string | null>;
  /** Whether `commit` is `head` or one of its ancestors (compare: nothing of it is behind). */
  holdsCommit(repo: RepoCoords, head: string, commit: string): Promise<boolean>;
  /**
   * The files (blobs) of a commit's tree, `GET /git/trees/{sha}?recursive=1`; `truncated` when
   * GitHub cut the listing short (over 100,000 entries or 7 MB).
   */
  repositoryTree(repo: RepoCoords, sha: string): Promise<{ paths: string[]; truncated: boolean }>;
  /**
   * The files a PR changes, `GET /pulls/{n}/files` followed to its last page (GitHub lists at
   * most 3000); a renamed file counts under both its names.
   */
  pullFiles(repo: RepoCoords, pullNumber: number): Promise<string[]>;
  /** Creates the branch at `sha`; an existing branch is left exactly as it is. */
  ensureBranch(repo: RepoCoords, branch: string, sha: string): Promise<'created' | 'exists'>;
  dispatchWorkflow(
    repo: RepoCoords,
    request: { workflow: string; ref: string; inputs: Record<string, string> },
  ): Promise<DispatchResult>;
  /** workflow_dispatch runs of the workflow on a branch, newest first; optionally only those created since. */
  workflowRunsOnBranch(
    repo: RepoCoords,
    workflow: string,
    branch: string,
    options?: { createdSince?: Date },
  ): Promise<WorkflowRunInfo[]>;
  workflowRun(repo: RepoCoords, runId: number): Promise<WorkflowRunInfo | null>;
  /**
   * The annotations on the run's job check runs: a job's `::error::` and `::notice::` workflow
   * commands become `failure` and `notice` annotations of the check run its `check_run_url` names.
   * With `runAttempt` 2 and on, those of the jobs that re-run ran, and only them.
   */
  runAnnotations(repo: RepoCoords, runId: number, runAttempt?: number): Promise<RunAnnotation[]>;
  /** Cancels a run; a run that already finished is not an error. */
  cancelWorkflowRun(repo: RepoCoords, runId: number): Promise<void>;
  /**
   * The open pull requests whose head is `branch` in this same repository: anyone who can read
   * it can open one, onto any base, besides the App's.
   */
  openPullsForBranch(repo: RepoCoords, branch: string): Promise<PullInfo[]>;
  /**
   * Opens a closed PR again, or closes an open one; false when GitHub refuses (422: to reopen
   * one whose head branch is gone, or while another open PR has the same head and base).
   */
  setPullState(repo: RepoCoords, prNumber: number, state: 'open' | 'closed'): Promise<boolean>;
  createIssueComment(repo: RepoCoords, issueNumber: number, body: string): Promise<{ id: number }>;
  /** false when the comment no longer exists. */
  updateIssueComment(repo: RepoCoords, commentId: number, body: string): Promise<boolean>;
  /** The newest comment by this App (`performed_via_github_app`) that opens or closes with `marker`. */
  findAppComment(
    repo: RepoCoords,
    issueNumber: number,
    marker: string,
  ): Promise<{ id: number; body: string } | null>;
  addLabels(repo: RepoCoords, issueNumber: number, labels: string[]): Promise<void>;
  closeIssue(repo: RepoCoords, issueNumber: number): Promise<void>;
  reactToComment(repo: RepoCoords, commentId: number, content: ReactionContent): Promise<void>;
  pull(repo: RepoCoords, number: number): Promise<PullState | null>;
  /** The issue's state and label names as GitHub shows them now; null when it is gone. */
  issue(repo: RepoCoords, number: number): Promise<IssueState | null>;
  /**
   * See HeadChecks. The head's workflow runs are listed only when an Actions job's suite is not
   * `known` to the caller (it keeps the runs it was given).
   */
  checksFor(
    repo: RepoCoords,
    sha: string,
    known?: (checkSuiteId: number) => boolean,
  ): Promise<HeadChecks>;
  /** The workflow run whose check suite this is (`GET /actions/runs?check_suite_id=`), or null. */
  actionsRunOfSuite(repo: RepoCoords, checkSuiteId: number): Promise<ActionsRunOrigin | null>;
  createCheckRun(
    repo: RepoCoords,
    headSha: string,
    name: string,
    output: CheckRunOutput,
  ): Promise<{ id: number }>;
  updateCheckRun(repo: RepoCoords, checkRunId: number, output: CheckRunOutput): Promise<void>;
  /** `PUT /pulls/{n}/merge` with the sha guard and no retries: 405/409 come back as answers. */
  mergePull(
    repo: RepoCoords,
    number: number,
    sha: string,
    method: 'merge' | 'squash' | 'rebase',
  ): Promise<MergeOutcome>;
  /**
   * `PATCH /pulls/{n}` with `base`: point an open PR at another branch of the repository (a
   * stacked task's PR, once its parent merged). False when GitHub refuses (422: the branch does
   * not exist, or the PR is closed).
   */
  changePullBase(repo: RepoCoords, number: number, base: string): Promise<boolean>;
  /**
   * `POST /repos/{o}/{r}/merges` with no retries: merge `head` (a branch or a commit) into the
   * branch `into`, as a commit with `message`. GitHub's documented answers come back as they are
   * (201 with the merge commit and its parents, 204 nothing to merge, 403/404/409/422 refused),
   * and classifyUpdateRefusal says what a refusal means; any other status throws.
   */
  mergeIntoBranch(
    repo: RepoCoords,
    merge: { into: string; head: string; message: string },
  ): Promise<BranchMergeAnswer>;
  /** Whether the branch has a merge queue (GraphQL `repository.mergeQueue(branch:)`). */
  hasMergeQueue(repo: RepoCoords, branch: string): Promise<boolean>;
  /**
   * The PR numbers of the branch's merge queue in queue order (GraphQL
   * `repository.mergeQueue(branch:).entries`), read up to and including PR `through` when it is
   * there; empty when the branch has no queue.
   */
  mergeQueuePulls(repo: RepoCoords, branch: string, through?: number): Promise<number[]>;
  enqueuePullRequest(
    pullRequestNodeId: string,
    expectedHeadOid: string,
  ): Promise<{ ok: true } | { ok: false; message: string }>;
  dequeuePullRequest(pullRequestNodeId: string): Promise<void>;
  /**
   * The PR's review threads, newest first, with their first REVIEW_THREAD_COMMENTS comments
   * (GraphQL `reviewThreads`): unresolved ones only unless `includeResolved`; at most `limit`
   * threads, read in pages, and no more than the newest REVIEW_THREADS_READ_MAX read.
   */
  reviewThreads(
    repo: RepoCoords,
    prNumber: number,
    options: { limit: number; includeResolved?: boolean },
  ): Promise<ReviewThreads>;
  /**
   * The thread's comments with up to `pages` more pages (REVIEW_THREAD_COMMENT_PAGE each) read
   * from its `laterComments`, one GraphQL read a page; the thread as it was when it has none.
   */
  laterReviewComments(
    thread: ReviewThreadInfo,
    pages: number,
  ): Promise<Pick<ReviewThreadInfo, 'comments' | 'commentsLeftOut' | 'laterComments'>>;
  /**
   * A review's state as GitHub shows it now (`GET /pulls/{n}/reviews/{id}`, REST's upper case:
   * `APPROVED`, `CHANGES_REQUESTED`, `COMMENTED`, `DISMISSED`, `PENDING`); null when GitHub has no
   * such review on the PR (404).
   */
  reviewState(repo: RepoCoords, prNumber: number, reviewId: number): Promise<string | null>;
  /** Asks these users for a review; GitHub's refusal (422: the author, not a collaborator) is an answer. */
  requestReviewers(
    repo: RepoCoords,
    prNumber: number,
    logins: readonly string[],
  ): Promise<ReviewRequestOutcome>;
  /** The check run's annotations, in GitHub's order, at most `limit` (default 50). */
  checkRunAnnotations(
    repo: RepoCoords,
    checkRunId: number,
    options?: { limit?: number },
  ): Promise<CheckAnnotation[]>;
  /**
   * The end of a GitHub Actions job's log (through the redirect GitHub answers with), at most
   * `maxLines` lines of at most LOG_LINE_CHARS each; null when GitHub has no log for the job.
   */
  jobLogTail(repo: RepoCoords, jobId: number, maxLines: number): Promise<JobLogTail | null>;
  /** `rerun-failed-jobs`: a new attempt of the run; GitHub's refusal (403: still running, nothing failed) is an answer. */
  rerunFailedJobs(repo: RepoCoords, runId: number): Promise<RerunOutcome>;
}

/**
 * Bounds of what the port reads of reviews and logs, so feedback stays small. More comments a
 * thread than FEEDBACK_LIMITS sends, so that replies left out (src/core/review-vetting.ts) do
 * not crowd out the ones sent.
 */
export const REVIEW_THREAD_COMMENTS = 30;
/** Comments a further read of a thread holds (GraphQL's most). */
export const REVIEW_THREAD_COMMENT_PAGE = 100;
/**
 * The most further reads of threads' comments for one send-back, shared out by core's
 * laterCommentPages. A reply costs its writer a write and is read only when a person with write
 * access asks for the threads (a review, `/retry`).
 */
export const REVIEW_THREAD_COMMENT_PAGES_MAX = 20;
/**
 * The most review threads the port reads of a PR, newest first (twenty GraphQL pages of 50). Anyone
 * can open that many on a public repository's PR with one review: past them a send-back says how
 * many were not read (docs/lifecycle.md, "Vetted feedback"), so that none goes missing unsaid.
 */
export const REVIEW_THREADS_READ_MAX = 1_000;
export const LOG_LINE_CHARS = 500;

export function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}
