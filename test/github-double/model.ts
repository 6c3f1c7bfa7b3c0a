// Internal state of the double. Render functions turn these into GitHub's JSON shapes;
// nothing outside the double should depend on these types except through the queries.

export type RoleName = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';
export type AccountType = 'User' | 'Bot' | 'Organization';

export interface Account {
  login: string;
  id: number;
  nodeId: string;
  type: AccountType;
}

export interface AppInfo {
  id: number;
  slug: string;
  name: string;
  nodeId: string;
  owner: Account;
  bot: Account;
}

export type Tree = Readonly<Record<string, string>>;

// An author or committer line of a git commit object.
export interface GitIdent {
  name: string;
  email: string;
  seconds: number;
  tz: string;
}

export interface Commit {
  sha: string;
  parents: string[];
  message: string;
  tree: Tree;
  treeSha: string;
  // The GitHub account the commit is attributed to.
  author: Account;
  // The committer date.
  at: string;
  ident: { author: GitIdent; committer: GitIdent };
  // Pushed over git: its objects (possibly with modes or bytes the text tree cannot hold)
  // are already in the bare repository and are never re-encoded from `tree`.
  pushed?: boolean;
}

export interface Label {
  id: number;
  nodeId: string;
  name: string;
  color: string;
  description: string | null;
}

export interface Issue {
  number: number;
  id: number;
  nodeId: string;
  title: string;
  body: string | null;
  user: Account;
  state: 'open' | 'closed';
  stateReason: 'completed' | 'not_planned' | 'reopened' | null;
  labels: Label[];
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  closedBy: Account | null;
  isPull: boolean;
}

export interface Reaction {
  id: number;
  nodeId: string;
  content: string;
  user: Account;
  createdAt: string;
}

export interface IssueComment {
  id: number;
  nodeId: string;
  issueNumber: number;
  body: string;
  user: Account;
  createdAt: string;
  updatedAt: string;
  reactions: Reaction[];
  app: AppInfo | null;
}

export type ReviewState = 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'PENDING' | 'DISMISSED';

export interface Review {
  id: number;
  nodeId: string;
  user: Account;
  body: string;
  state: ReviewState;
  commitId: string;
  submittedAt: string | null;
}

export type DiffSide = 'LEFT' | 'RIGHT';

// A line comment of a review, or a reply in its thread.
export interface ReviewComment {
  id: number;
  nodeId: string;
  reviewId: number;
  inReplyTo: number | null;
  user: Account;
  body: string;
  // The diff of the PR around the commented line, up to it, as GitHub's `diff_hunk`.
  diffHunk: string;
  commitId: string;
  createdAt: string;
  updatedAt: string;
}

// What GitHub calls a review thread: the first line comment and its replies.
export interface ReviewThread {
  id: string;
  path: string;
  side: DiffSide;
  startSide: DiffSide | null;
  // Where the thread was made (GitHub's original_*); `line`/`startLine` are null once outdated.
  originalLine: number;
  originalStartLine: number | null;
  // GitHub's deprecated `position` in the file's diff when the thread was made.
  originalPosition: number;
  // The commit the thread's lines were commented on.
  commitId: string;
  outdated: boolean;
  resolvedBy: Account | null;
  comments: ReviewComment[];
}

export interface Pull {
  number: number;
  id: number;
  nodeId: string;
  issue: Issue;
  headRepo: Repo;
  headRef: string;
  // Follows the head branch while open; frozen when closed or the branch is deleted.
  headSha: string;
  baseRef: string;
  draft: boolean;
  merged: boolean;
  mergedAt: string | null;
  mergedBy: Account | null;
  mergeCommitSha: string | null;
  forcedConflict: boolean;
  // Reads left that answer mergeable: null, as GitHub does while it recomputes.
  unknownReads: number;
  maintainerCanModify: boolean;
  reviews: Review[];
  threads: ReviewThread[];
  // Users asked for a review and who have not reviewed since (teams are not modelled).
  requestedReviewers: Account[];
}

export interface WorkflowInput {
  required?: boolean;
  default?: string;
}

export interface Workflow {
  id: number;
  nodeId: string;
  file: string;
  name: string;
  inputs: Record<string, WorkflowInput>;
  runName: string | null;
  runCount: number;
  createdAt: string;
}

export type RunStatus = 'queued' | 'in_progress' | 'completed';
export type RunConclusion =
  | 'success'
  | 'failure'
  | 'cancelled'
  | 'timed_out'
  | 'startup_failure'
  | 'neutral'
  | 'skipped'
  | 'action_required';

export interface Run {
  id: number;
  nodeId: string;
  // Where the run runs (its workflow, jobs, check suite and token's repository).
  repo: Repo;
  // The repository of its head branch (`head_repository`): `repo`, or for a `pull_request`
  // from a fork the fork, whose PR runs the base repository's CI on the fork's head.
  headRepo: Repo;
  workflow: Workflow;
  runNumber: number;
  // 1, then one more for each re-run (`rerun-failed-jobs`), on the same run id.
  runAttempt: number;
  headBranch: string;
  // What the dispatch ref named: GitHub's ref_type and GITHUB_REF_TYPE.
  refType: 'branch' | 'tag';
  headSha: string;
  event: string;
  status: RunStatus;
  conclusion: RunConclusion | null;
  actor: Account;
  // Who started the current attempt: the actor, or whoever re-ran the run.
  triggeringActor: Account;
  inputs: Record<string, string>;
  displayTitle: string;
  createdAt: string;
  updatedAt: string;
  // The current attempt's start; `createdAt` is the first attempt's.
  runStartedAt: string;
  checkSuiteId: number;
  checkSuiteNodeId: string;
  // Every attempt's jobs, in creation order; none exists after a startup_failure.
  jobs: Job[];
  // How a CI run's jobs go, attempt by attempt (the last repeats); the worker's run has none.
  ciPlan: CiJobPlan[] | null;
}

/** One section of a job's log: a step and what it printed. */
export interface JobLogStep {
  name: string;
  lines: string[];
  // The step that failed the job; without one, a failed job failed in its last step (steps
  // after it are cleanup that runs anyway).
  failed?: boolean;
}

/** The index of the step a failed job failed in, or -1. */
export function failedStepIndex(job: { conclusion: string | null; log: JobLogStep[] }): number {
  if (job.conclusion !== 'failure') return -1;
  const marked = job.log.findIndex((s) => s.failed);
  return marked >= 0 ? marked : job.log.length - 1;
}

export interface Job {
  // Also the id of the job's check run (`check_run_url`).
  id: number;
  name: string;
  runAttempt: number;
  status: RunStatus;
  conclusion: RunConclusion | null;
  createdAt: string;
  startedAt: string;
  completedAt: string | null;
  hasRunner: boolean;
  // Annotations of the job's check run, from its `::error::`-style commands.
  annotations: JobAnnotation[];
  log: JobLogStep[];
  // The job's check run on the run's commit, in the run's check suite.
  checkRun: CheckRun;
}

/** What one attempt of a CI job does. */
export interface CiJobAttempt {
  conclusion: Extract<RunConclusion, 'success' | 'failure' | 'cancelled' | 'timed_out'>;
  annotations?: JobAnnotation[];
  steps?: JobLogStep[];
  // A re-run attempt that stays queued until `double.releaseCi(runId)` plays it, so a test can
  // look at what the app shows while a re-run is in flight.
  hold?: boolean;
}

export interface CiJobPlan {
  name: string;
  attempts: CiJobAttempt[];
}

export type AnnotationLevel = 'notice' | 'warning' | 'failure';

// What a workflow command becomes on the job's check run. GitHub puts an annotation without
// `file=` on the path `.github`, line 1.
export interface JobAnnotation {
  message: string;
  annotation_level: AnnotationLevel;
  path?: string;
  start_line?: number;
  end_line?: number;
  title?: string;
}

export type CheckStatus =
  'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested' | 'pending';
export type CheckConclusion =
  | 'success'
  | 'failure'
  | 'neutral'
  | 'cancelled'
  | 'skipped'
  | 'timed_out'
  | 'action_required'
  | 'stale'
  | 'startup_failure';

export interface CheckOutput {
  title: string | null;
  summary: string | null;
  text: string | null;
}

export interface CheckSuite {
  id: number;
  nodeId: string;
  headSha: string;
  headBranch: string | null;
  app: AppInfo;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: CheckConclusion | null;
  createdAt: string;
  updatedAt: string;
}

export interface CheckRun {
  id: number;
  nodeId: string;
  headSha: string;
  name: string;
  status: CheckStatus;
  conclusion: CheckConclusion | null;
  startedAt: string;
  completedAt: string | null;
  externalId: string | null;
  detailsUrl: string | null;
  output: CheckOutput;
  annotations: JobAnnotation[];
  app: AppInfo;
  suite: CheckSuite;
}

export type StatusState = 'error' | 'failure' | 'pending' | 'success';

export interface CommitStatus {
  id: number;
  nodeId: string;
  sha: string;
  state: StatusState;
  context: string;
  description: string | null;
  targetUrl: string | null;
  creator: Account;
  createdAt: string;
  updatedAt: string;
}

export interface Protection {
  requiredChecks: string[];
  /**
   * Required checks pinned to one App (branch protection's `checks[].app_id`): only that App's
   * check runs satisfy them; anyone's check of that name satisfies the others.
   */
  requiredCheckApps: ReadonlyMap<string, number>;
  // "Require branches to be up to date before merging": only then is a PR 'behind'.
  strict: boolean;
}

export interface MergeQueueEntry {
  id: string;
  pull: Pull;
  enqueuer: Account;
  enqueuedAt: string;
  headOid: string;
  state: 'QUEUED' | 'AWAITING_CHECKS' | 'MERGEABLE' | 'UNMERGEABLE' | 'LOCKED';
}

export interface MergeQueue {
  id: string;
  branch: string;
  entries: MergeQueueEntry[];
}

export interface Installation {
  id: number;
  nodeId: string;
  account: Account;
  createdAt: string;
  /** The account's repositories the installation no longer holds (`removeFromInstallation`). */
  removed: Set<number>;
  /** Since when the installation is suspended (`suspendInstallation`); null: it is not. */
  suspendedAt: string | null;
  suspendedBy: Account | null;
}

export interface Repo {
  id: number;
  nodeId: string;
  owner: Account;
  name: string;
  fullName: string;
  private: boolean;
  fork: boolean;
  parent: Repo | null;
  defaultBranch: string;
  createdAt: string;
  pushedAt: string;
  // Shared with forks, like GitHub's object network.
  commits: Map<string, Commit>;
  refs: Map<string, string>;
  issues: Map<number, Issue>;
  pulls: Map<number, Pull>;
  nextNumber: number;
  labels: Map<string, Label>;
  comments: Map<number, IssueComment>;
  roles: Map<string, RoleName>;
  workflows: Map<string, Workflow>;
  runs: Map<number, Run>;
  checkRuns: Map<number, CheckRun>;
  // checkRuns and statuses by commit (and runs by suite id), oldest first: lookups per commit
  // do not scan everything the repository ever ran. Kept by addCheckRun and addStatus.
  checkRunsBySha: Map<string, CheckRun[]>;
  checkRunsBySuite: Map<number, CheckRun[]>;
  checkSuites: Map<string, CheckSuite>;
  statuses: CommitStatus[];
  statusesBySha: Map<string, CommitStatus[]>;
  protection: Map<string, Protection>;
  mergeQueues: Map<string, MergeQueue>;
  /**
   * "Automatically delete head branches" (`delete_branch_on_merge`): a merged PR's head branch is
   * deleted, and open PRs based on it are retargeted to the merged PR's base first.
   */
  deleteBranchOnMerge: boolean;
}

export type PermissionLevel = 'read' | 'write' | 'admin';

export interface TokenInfo {
  token: string;
  kind: 'installation' | 'user';
  installationId: number | null;
  account: Account;
  expiresAt: Date;
  /** Repositories the token was minted for; undefined: every repository of the installation. */
  repositoryIds?: number[];
  /** Permissions the token was minted with; undefined: all the App's permissions. */
  permissions?: Record<string, PermissionLevel>;
  /** Set on a job's GITHUB_TOKEN: GitHub revokes it when that run's job ends. */
  jobRunId?: number;
}

export interface Delivery {
  id: number;
  guid: string;
  event: string;
  action: string | null;
  installationId: number | null;
  repositoryId: number | null;
  repoKey: string;
  payload: Record<string, unknown>;
  requestHeaders: Record<string, string>;
  deliveredAt: string;
  redelivery: boolean;
  // null until the receiver has answered (or failed to).
  statusCode: number | null;
  status: string;
  duration: number;
  responseBody: string;
  responseHeaders: Record<string, string>;
}

/** A manifest GitHub's form accepted, waiting for its code to be converted. */
export interface ManifestRegistration {
  manifest: Record<string, unknown>;
  expiresAt: number;
}

export type ViolationKind =
  | 'undocumented-endpoint'
  | 'unimplemented-endpoint'
  | 'unimplemented-parameter'
  | 'request-body'
  | 'graphql-invalid'
  | 'graphql-unimplemented'
  | 'suspicious-request'
  | 'secondary-rate-limit';

export interface Violation {
  kind: ViolationKind;
  method: string;
  path: string;
  message: string;
  at: string;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  query: string;
  route: string | null;
  status: number;
  body: unknown;
  actor: string | null;
  /**
   * When the request arrived (ms since the epoch); `at` is when it was answered, to the second
   * as GitHub's timestamps are (later with an answer latency).
   */
  receivedAtMs: number;
  at: string;
}

function pushTo<K, V>(index: Map<K, V[]>, key: K, value: V): void {
  const list = index.get(key);
  if (list) list.push(value);
  else index.set(key, [value]);
}

export function addCheckRun(repo: Repo, run: CheckRun): void {
  repo.checkRuns.set(run.id, run);
  pushTo(repo.checkRunsBySha, run.headSha, run);
  pushTo(repo.checkRunsBySuite, run.suite.id, run);
}

function dropFrom<K, V>(index: Map<K, V[]>, key: K, value: V): void {
  const list = (index.get(key) ?? []).filter((v) => v !== value);
  if (list.length > 0) index.set(key, list);
  else index.delete(key);
}

/** A check run gone from its commit, its suite and the repository, as if never made. */
export function removeCheckRun(repo: Repo, run: CheckRun): void {
  repo.checkRuns.delete(run.id);
  dropFrom(repo.checkRunsBySha, run.headSha, run);
  dropFrom(repo.checkRunsBySuite, run.suite.id, run);
}

export function addStatus(repo: Repo, status: CommitStatus): void {
  repo.statuses.push(status);
  pushTo(repo.statusesBySha, status.sha, status);
}

export function checkRunsOn(repo: Repo, sha: string): readonly CheckRun[] {
  return repo.checkRunsBySha.get(sha) ?? [];
}

export function checkRunsOf(repo: Repo, suite: CheckSuite): readonly CheckRun[] {
  return repo.checkRunsBySuite.get(suite.id) ?? [];
}

export function statusesOn(repo: Repo, sha: string): readonly CommitStatus[] {
  return repo.statusesBySha.get(sha) ?? [];
}
