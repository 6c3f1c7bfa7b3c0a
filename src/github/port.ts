/** The narrow interface the coordinator needs from GitHub; one Octokit adapter implements it. */
export interface RepoCoords {
  owner: string;
  repo: string;
}

/** GitHub's role names; `maintain` and `triage` only appear in `role_name`. */
export type RoleName = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

export type ConfigFile = { ok: true; raw: unknown } | { ok: false; error: string };

export interface WorkflowRunInfo {
  id: number;
  status: string;
  conclusion: string | null;
  htmlUrl: string;
  headBranch: string | null;
  displayTitle: string;
  createdAt: string;
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
}

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
   * The messages of the `failure` annotations on the run's job check runs: a job's `::error::`
   * workflow commands become annotations of the check run its `check_run_url` names.
   */
  runFailureAnnotations(repo: RepoCoords, runId: number): Promise<string[]>;
  /** Cancels a run; a run that already finished is not an error. */
  cancelWorkflowRun(repo: RepoCoords, runId: number): Promise<void>;
  /** The open pull request whose head is `branch` in this same repository. */
  openPullForBranch(repo: RepoCoords, branch: string): Promise<PullInfo | null>;
  createIssueComment(repo: RepoCoords, issueNumber: number, body: string): Promise<{ id: number }>;
  /** false when the comment no longer exists. */
  updateIssueComment(repo: RepoCoords, commentId: number, body: string): Promise<boolean>;
  /** The newest comment by this App (`performed_via_github_app`) that opens with `marker`. */
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
  /** Check runs and commit statuses on a ref, newest per name. */
  checksFor(repo: RepoCoords, ref: string): Promise<CheckInfo[]>;
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
  /** Merge the base into the PR branch; false when GitHub refuses (conflict). */
  updateBranch(repo: RepoCoords, number: number, expectedHeadSha: string): Promise<boolean>;
  /** Whether the branch has a merge queue (GraphQL `repository.mergeQueue(branch:)`). */
  hasMergeQueue(repo: RepoCoords, branch: string): Promise<boolean>;
  enqueuePullRequest(
    pullRequestNodeId: string,
    expectedHeadOid: string,
  ): Promise<{ ok: true } | { ok: false; message: string }>;
  dequeuePullRequest(pullRequestNodeId: string): Promise<void>;
}

export const WRITE_ROLES: ReadonlySet<RoleName> = new Set(['admin', 'maintain', 'write']);

export function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}
