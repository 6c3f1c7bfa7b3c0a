import { GraphqlResponseError } from '@octokit/graphql';
import type { ProbotOctokit } from 'probot';
import { configSourceProblem } from '../config/load.js';
import { CONFIG_PATH } from '../config/schema.js';
import type { WritePriorityOption } from './write-budget-octokit.js';
import { readJobLogTail } from './job-log-tail.js';
import {
  statusOf,
  type CheckAnnotation,
  type CheckInfo,
  type ConfigFile,
  type GitHubPort,
  type PullInfo,
  type RepoCoords,
  type RunAnnotation,
  type WorkflowRunInfo,
} from './port.js';
import { readLaterComments, readReviewThreads } from './review-threads.js';
import { ACTIONS_APP_SLUG, needsActionsRuns, type ActionsRunOrigin } from '../core/merge/index.js';
import type { RoleName } from '../core/roles.js';
import { writePriorityOf, type GitHubWrite } from '../core/write-priority.js';

export type Octokit = InstanceType<typeof ProbotOctokit>;

/** How urgent a write is when the installation's write budget is short (write-budget.ts). */
const urgency = (write: GitHubWrite): WritePriorityOption => ({
  writePriority: writePriorityOf(write),
});

const ROLES: ReadonlySet<string> = new Set([
  'admin',
  'maintain',
  'write',
  'triage',
  'read',
  'none',
]);

interface RawRun {
  id: number;
  status: string | null;
  conclusion: string | null;
  html_url: string;
  head_branch: string | null;
  display_title: string;
  created_at: string;
  run_attempt?: number;
}

function toRun(run: RawRun): WorkflowRunInfo {
  return {
    id: run.id,
    status: run.status ?? 'queued',
    conclusion: run.conclusion,
    htmlUrl: run.html_url,
    headBranch: run.head_branch,
    displayTitle: run.display_title,
    createdAt: run.created_at,
    ...(run.run_attempt === undefined ? {} : { runAttempt: run.run_attempt }),
  };
}

interface RawPull {
  number: number;
  node_id: string;
  html_url: string;
  state: string;
  merged_at: string | null;
  merged?: boolean;
  head: { ref: string; sha: string; repo: { id: number } | null };
  base: { ref: string };
  body: string | null;
  user: { login: string } | null;
}

export function toPull(pull: RawPull): PullInfo {
  return {
    number: pull.number,
    nodeId: pull.node_id,
    htmlUrl: pull.html_url,
    state: pull.state === 'open' ? 'open' : 'closed',
    merged: pull.merged ?? pull.merged_at !== null,
    headRef: pull.head.ref,
    headSha: pull.head.sha,
    headRepoId: pull.head.repo?.id ?? null,
    baseRef: pull.base.ref,
    body: pull.body ?? '',
    userLogin: pull.user?.login ?? '',
  };
}

const ANNOTATION_LEVELS: ReadonlySet<string> = new Set(['notice', 'warning', 'failure']);

/**
 * A check run of GitHub Actions is a workflow job: its id is the job's, and its details_url is
 * the job's page, `<server>/<owner>/<repo>/actions/runs/<run_id>/job/<job_id>`.
 */
export function actionsJobOf(run: {
  id: number;
  app?: { slug?: string } | null;
  details_url?: string | null;
}): { runId: number; jobId: number } | null {
  if (run.app?.slug !== ACTIONS_APP_SLUG) return null;
  const m = /\/actions\/runs\/(\d+)\/job\/(\d+)(?:[/?#]|$)/.exec(run.details_url ?? '');
  if (!m || Number(m[2]) !== run.id) return null;
  return { runId: Number(m[1]), jobId: Number(m[2]) };
}

/**
 * The statuses of a commit as its combined status shows them: the newest of each context
 * (GitHub lists them newest first, "List commit statuses for a reference").
 */
function newestPerContext<S extends { context: string }>(statuses: readonly S[]): S[] {
  const seen = new Set<string>();
  return statuses.filter((s) => !seen.has(s.context) && (seen.add(s.context), true));
}

/**
 * The App whose token wrote a commit status: its creator when that is an App's bot
 * (`github-actions[bot]` for a workflow's `GITHUB_TOKEN`), as its slug; null for a person.
 */
function statusApp(creator: { login: string; type: string } | null | undefined): string | null {
  if (creator?.type !== 'Bot') return null;
  return creator.login.replace(/\[bot\]$/, '');
}

/** GitHub's own `message` of a refused request, without the documentation link Octokit appends. */
function githubMessage(error: unknown): string {
  const data = (error as { response?: { data?: unknown } } | null)?.response?.data;
  const message = (data as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : (error as Error).message;
}

/**
 * A 403 that is a rate limit the throttling plugin gave up on (GitHub's `retry-after`, no
 * requests left, or its message: docs.github.com, "Rate limits for the REST API") refuses
 * nothing: it throws, and the delivery comes back after GitHub's wait (processor.ts).
 */
function rateLimited(error: unknown): boolean {
  const headers = (error as { response?: { headers?: Record<string, unknown> } } | null)?.response
    ?.headers;
  return (
    headers?.['retry-after'] !== undefined ||
    headers?.['x-ratelimit-remaining'] === '0' ||
    /rate limit/i.test(githubMessage(error))
  );
}

/** A page of a branch's merge queue, as far as which PRs it holds goes. */
interface MergeQueuePage {
  repository: {
    mergeQueue: {
      entries: {
        nodes: ({ pullRequest: { number: number } | null } | null)[] | null;
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
      };
    } | null;
  } | null;
}

/** A workflow run as GitHub lists it, as far as where it came from goes. */
interface RawRunOrigin {
  id: number;
  check_suite_id?: number | null;
  head_repository?: { id?: number } | null;
  actor?: { login?: string } | null;
  path?: string | null;
}

/**
 * Where a workflow run came from (core's countedChecks). A run without its check suite or its
 * head repository is an answer core cannot decide on: an error, not a run that does not count.
 * `head_repository: null` is GitHub's answer for a head repository deleted since (a fork's).
 */
export function actionsRunOrigin(run: RawRunOrigin): ActionsRunOrigin {
  const head = run.head_repository;
  if (typeof run.check_suite_id !== 'number')
    throw new Error(`GitHub lists workflow run ${run.id} without its check_suite_id`);
  if (head === undefined || (head !== null && typeof head.id !== 'number'))
    throw new Error(`GitHub lists workflow run ${run.id} without its head_repository`);
  return {
    id: run.id,
    checkSuiteId: run.check_suite_id,
    headRepositoryId: head?.id ?? null,
    actorLogin: typeof run.actor?.login === 'string' ? run.actor.login : null,
    workflowPath: typeof run.path === 'string' ? run.path : null,
  };
}

export function createOctokitPort(octokit: Octokit, options: { appId?: number } = {}): GitHubPort {
  return {
    async roleOf(repo: RepoCoords, login: string): Promise<RoleName> {
      try {
        const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
          ...repo,
          username: login,
        });
        // role_name distinguishes maintain/triage, which `permission` folds into write/read.
        const role = data.role_name ?? data.permission;
        if (ROLES.has(role)) return role as RoleName;
        return data.permission === 'admin' || data.permission === 'write'
          ? (data.permission as RoleName)
          : 'read';
      } catch (error) {
        // GitHub answers 404 for a user who is not a collaborator at all.
        if (statusOf(error) === 404) return 'none';
        throw error;
      }
    },

    async readConfigFile(repo: RepoCoords): Promise<ConfigFile> {
      try {
        const { config, files } = await octokit.config.get({ ...repo, path: CONFIG_PATH });
        const problem = configSourceProblem(files, repo);
        if (problem) return { ok: false, error: `${CONFIG_PATH}: ${problem}` };
        return { ok: true, raw: config };
      } catch (error) {
        if (statusOf(error) !== undefined) throw error;
        const message = (error as Error).message.replace(
          /^\[@probot\/octokit-plugin-config\]\s*/,
          '',
        );
        return { ok: false, error: `${CONFIG_PATH}: ${message.split('\n')[0]}` };
      }
    },

    async defaultBranch(repo) {
      const { data } = await octokit.rest.repos.get({ ...repo });
      return data.default_branch;
    },

    async branchHead(repo, branch) {
      try {
        const { data } = await octokit.rest.git.getRef({ ...repo, ref: `heads/${branch}` });
        return data.object.sha;
      } catch (error) {
        if (statusOf(error) === 404) return null;
        throw error;
      }
    },

    async holdsCommit(repo, head, commit) {
      const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
        ...repo,
        basehead: `${commit}...${head}`,
        per_page: 1,
      });
      if (typeof data.behind_by !== 'number') throw new Error('GitHub compared without behind_by');
      return data.behind_by === 0;
    },

    async repositoryTree(repo, sha) {
      const { data } = await octokit.rest.git.getTree({ ...repo, tree_sha: sha, recursive: '1' });
      return {
        paths: data.tree.flatMap((e) => (e.type === 'blob' && e.path ? [e.path] : [])),
        truncated: data.truncated,
      };
    },

    async pullFiles(repo, pullNumber) {
      const files = await octokit.paginate(octokit.rest.pulls.listFiles, {
        ...repo,
        pull_number: pullNumber,
        per_page: 100,
      });
      return [
        ...new Set(
          files.flatMap((f) =>
            f.previous_filename ? [f.filename, f.previous_filename] : [f.filename],
          ),
        ),
      ];
    },

    async ensureBranch(repo, branch, sha) {
      try {
        await octokit.rest.git.createRef({
          ...repo,
          ref: `refs/heads/${branch}`,
          sha,
          request: urgency('create_branch'),
        });
        return 'created';
      } catch (error) {
        // 422 "Reference already exists": never reset it, an open PR may live on it.
        if (statusOf(error) === 422 && (await this.branchHead(repo, branch)) !== null)
          return 'exists';
        throw error;
      }
    },

    async dispatchWorkflow(repo, request) {
      const response = await octokit.request(
        'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
        {
          ...repo,
          workflow_id: request.workflow,
          ref: request.ref,
          inputs: request.inputs,
          return_run_details: true,
          // A retried dispatch could start a second run: the sweep re-dispatches only after checking.
          request: { retries: 0, ...urgency('dispatch_workflow') },
        },
      );
      const data = (response.status === 200 ? response.data : undefined) as
        { workflow_run_id?: number; html_url?: string } | undefined;
      return { runId: data?.workflow_run_id, runUrl: data?.html_url };
    },

    async workflowRunsOnBranch(repo, workflow, branch, options = {}) {
      const { data } = await octokit.rest.actions.listWorkflowRuns({
        ...repo,
        workflow_id: workflow,
        branch,
        event: 'workflow_dispatch',
        // GitHub's search date syntax (`>=2026-01-01T00:00:00Z`), whole seconds.
        ...(options.createdSince
          ? { created: `>=${options.createdSince.toISOString().replace(/\.\d{3}Z$/, 'Z')}` }
          : {}),
        per_page: 50,
      });
      return data.workflow_runs.map((run) => toRun(run as RawRun));
    },

    async workflowRun(repo, runId) {
      try {
        const { data } = await octokit.rest.actions.getWorkflowRun({ ...repo, run_id: runId });
        return toRun(data as RawRun);
      } catch (error) {
        if (statusOf(error) === 404) return null;
        throw error;
      }
    },

    async runAnnotations(repo, runId, runAttempt = 1) {
      // A re-run's own jobs: its attempt's listing may show jobs it did not run again, each with
      // the attempt that ran it (`run_attempt`), whose annotations were read with that attempt.
      const { data } =
        runAttempt > 1
          ? await octokit.rest.actions.listJobsForWorkflowRunAttempt({
              ...repo,
              run_id: runId,
              attempt_number: runAttempt,
              per_page: 100,
            })
          : await octokit.rest.actions.listJobsForWorkflowRun({
              ...repo,
              run_id: runId,
              filter: 'latest',
              per_page: 100,
            });
      const jobs =
        runAttempt > 1 ? data.jobs.filter((job) => job.run_attempt === runAttempt) : data.jobs;
      const found: RunAnnotation[] = [];
      for (const job of jobs) {
        const checkRunId = Number(/\/check-runs\/(\d+)$/.exec(job.check_run_url ?? '')?.[1]);
        if (!Number.isSafeInteger(checkRunId)) continue;
        const { data: annotations } = await octokit.rest.checks.listAnnotations({
          ...repo,
          check_run_id: checkRunId,
          per_page: 100,
        });
        for (const a of annotations)
          if (a.annotation_level && a.message)
            found.push({ level: a.annotation_level, message: a.message });
      }
      return found;
    },

    async cancelWorkflowRun(repo, runId) {
      try {
        await octokit.rest.actions.cancelWorkflowRun({
          ...repo,
          run_id: runId,
          request: { retries: 0, ...urgency('cancel_workflow_run') },
        });
      } catch (error) {
        // 409: the run already finished, which is what we wanted.
        if (statusOf(error) === 409 || statusOf(error) === 404) return;
        throw error;
      }
    },

    async openPullsForBranch(repo, branch) {
      const { data } = await octokit.rest.pulls.list({
        ...repo,
        head: `${repo.owner}:${branch}`,
        state: 'open',
        per_page: 100,
      });
      return (data as RawPull[]).map(toPull).filter((p) => p.headRef === branch);
    },

    async createIssueComment(repo, issueNumber, body) {
      const { data } = await octokit.rest.issues.createComment({
        ...repo,
        issue_number: issueNumber,
        body,
        request: urgency('issue_comment'),
      });
      return { id: data.id };
    },

    async updateIssueComment(repo, commentId, body) {
      try {
        await octokit.rest.issues.updateComment({
          ...repo,
          comment_id: commentId,
          body,
          request: urgency('status_comment_edit'),
        });
        return true;
      } catch (error) {
        if (statusOf(error) === 404) return false;
        throw error;
      }
    },

    async findAppComment(repo, issueNumber, marker) {
      const comments = await octokit.paginate(octokit.rest.issues.listComments, {
        ...repo,
        issue_number: issueNumber,
        per_page: 100,
      });
      for (const comment of comments.reverse()) {
        // Only a comment this App wrote, opening or closing with the marker: another bot's
        // comment (which we could not edit) or a reply quoting the marker must never pass for ours.
        const byApp =
          comment.user?.type === 'Bot' &&
          (options.appId === undefined || comment.performed_via_github_app?.id === options.appId);
        if (byApp && (comment.body?.startsWith(marker) || comment.body?.endsWith(marker)))
          return { id: comment.id, body: comment.body };
      }
      return null;
    },

    async addLabels(repo, issueNumber, labels) {
      await octokit.rest.issues.addLabels({
        ...repo,
        issue_number: issueNumber,
        labels,
        request: urgency('add_labels'),
      });
    },

    async closeIssue(repo, issueNumber) {
      await octokit.rest.issues.update({
        ...repo,
        issue_number: issueNumber,
        state: 'closed',
        state_reason: 'completed',
        request: urgency('close_issue'),
      });
    },

    async reactToComment(repo, commentId, content) {
      await octokit.rest.reactions.createForIssueComment({
        ...repo,
        comment_id: commentId,
        content,
        request: urgency('reaction'),
      });
    },
    async pull(repo, number) {
      try {
        const { data } = await octokit.rest.pulls.get({ ...repo, pull_number: number });
        return {
          ...toPull(data as RawPull),
          draft: data.draft ?? false,
          mergeable: data.mergeable,
          mergeableState: data.mergeable_state,
        };
      } catch (error) {
        if (statusOf(error) === 404) return null;
        throw error;
      }
    },

    async issue(repo, number) {
      try {
        const { data } = await octokit.rest.issues.get({ ...repo, issue_number: number });
        // GitHub lists labels as objects; older payload shapes allow bare names.
        const labels = data.labels.map((l) => (typeof l === 'string' ? l : (l.name ?? '')));
        return { state: data.state, labels };
      } catch (error) {
        if (statusOf(error) === 404 || statusOf(error) === 410) return null;
        throw error;
      }
    },

    async checksFor(repo, sha, known) {
      const [runs, statuses] = await Promise.all([
        octokit.paginate(octokit.rest.checks.listForRef, {
          ...repo,
          ref: sha,
          per_page: 100,
          filter: 'latest',
        }),
        // The list, not the combined status: only the list names each status's `creator`.
        octokit.paginate(octokit.rest.repos.listCommitStatusesForRef, {
          ...repo,
          ref: sha,
          per_page: 100,
        }),
      ]);
      const checks: CheckInfo[] = runs.map((run) => ({
        name: run.name,
        status: run.status,
        conclusion: run.conclusion,
        source: 'check_run' as const,
        checkRunId: run.id,
        checkSuiteId: run.check_suite?.id ?? null,
        appSlug: run.app?.slug ?? null,
        detailsUrl: run.details_url ?? null,
        title: run.output.title ?? null,
        summary: run.output.summary ?? null,
        actionsJob: actionsJobOf(run),
      }));
      for (const status of newestPerContext(statuses)) {
        checks.push({
          name: status.context,
          status: status.state === 'pending' ? 'pending' : 'completed',
          conclusion: status.state === 'pending' ? null : status.state,
          source: 'status',
          checkRunId: null,
          checkSuiteId: null,
          appSlug: statusApp(status.creator),
          detailsUrl: status.target_url ?? null,
          title: null,
          summary: status.description ?? null,
          actionsJob: null,
        });
      }
      // Only a GitHub Actions job needs its run read: one listing of the head's runs for all.
      if (!needsActionsRuns(checks, known)) return { checks, actionsRuns: [] };
      const workflowRuns = await octokit.paginate(octokit.rest.actions.listWorkflowRunsForRepo, {
        ...repo,
        head_sha: sha,
        exclude_pull_requests: true,
        per_page: 100,
      });
      return { checks, actionsRuns: workflowRuns.map(actionsRunOrigin) };
    },

    async actionsRunOfSuite(repo, checkSuiteId) {
      const { data } = await octokit.rest.actions.listWorkflowRunsForRepo({
        ...repo,
        check_suite_id: checkSuiteId,
        exclude_pull_requests: true,
        per_page: 1,
      });
      // Checked, not trusted: a server that ignored the filter lists some other run first.
      return (
        data.workflow_runs.map(actionsRunOrigin).find((r) => r.checkSuiteId === checkSuiteId) ??
        null
      );
    },

    async createCheckRun(repo, headSha, name, output) {
      const { data } = await octokit.rest.checks.create({
        ...repo,
        name,
        head_sha: headSha,
        status: output.status,
        ...(output.conclusion ? { conclusion: output.conclusion } : {}),
        output: { title: output.title, summary: output.summary },
        request: urgency('order_check'),
      });
      return { id: data.id };
    },

    async updateCheckRun(repo, checkRunId, output) {
      await octokit.rest.checks.update({
        ...repo,
        check_run_id: checkRunId,
        status: output.status,
        ...(output.conclusion ? { conclusion: output.conclusion } : {}),
        output: { title: output.title, summary: output.summary },
        request: urgency('order_check'),
      });
    },

    async mergePull(repo, number, sha, method) {
      try {
        const { data } = await octokit.rest.pulls.merge({
          ...repo,
          pull_number: number,
          sha,
          merge_method: method,
          // The retry plugin would retry 405/409, which are answers here, not glitches.
          request: { retries: 0, ...urgency('merge') },
        });
        return { merged: true, sha: data.sha };
      } catch (error) {
        const status = statusOf(error);
        if (status === 405 || status === 409 || status === 422) {
          return { merged: false, status, message: (error as Error).message };
        }
        throw error;
      }
    },

    async changePullBase(repo, number, base) {
      try {
        await octokit.rest.pulls.update({
          ...repo,
          pull_number: number,
          base,
          request: { retries: 0, ...urgency('change_pull_base') },
        });
        return true;
      } catch (error) {
        if (statusOf(error) === 422) return false;
        throw error;
      }
    },

    async setPullState(repo, number, state) {
      try {
        await octokit.rest.pulls.update({
          ...repo,
          pull_number: number,
          state,
          request: urgency('pull_state'),
        });
        return true;
      } catch (error) {
        if (statusOf(error) === 422) return false;
        throw error;
      }
    },

    async mergeIntoBranch(repo, { into, head, message }) {
      try {
        const answer = await octokit.rest.repos.merge({
          ...repo,
          base: into,
          head,
          commit_message: message,
          request: { retries: 0, ...urgency('update_branch') },
        });
        // Octokit's types know the 201 only; GitHub documents 204 for nothing to merge.
        if ((answer.status as number) === 204) return { status: 204 };
        // The approval carries over to this commit alone: an answer without it is no answer.
        const { sha, parents } = answer.data as { sha?: unknown; parents?: unknown };
        if (
          typeof sha !== 'string' ||
          !Array.isArray(parents) ||
          !parents.every((p: { sha?: unknown } | null) => typeof p?.sha === 'string')
        )
          throw new Error(`GitHub answered the merge into ${into} without its commit`);
        return { status: 201, sha, parents: parents.map((p: { sha: string }) => p.sha) };
      } catch (error) {
        const status = statusOf(error);
        if (
          (status === 403 && !rateLimited(error)) ||
          status === 404 ||
          status === 409 ||
          status === 422
        )
          return { status, message: githubMessage(error) };
        throw error;
      }
    },

    async hasMergeQueue(repo, branch) {
      const result = await octokit.graphql<{
        repository: { mergeQueue: { id: string } | null } | null;
      }>(
        `query($owner: String!, $name: String!, $branch: String!) {
          repository(owner: $owner, name: $name) { mergeQueue(branch: $branch) { id } }
        }`,
        { owner: repo.owner, name: repo.repo, branch },
      );
      return Boolean(result.repository?.mergeQueue);
    },

    async mergeQueuePulls(repo, branch, through) {
      const numbers: number[] = [];
      let after: string | null = null;
      for (;;) {
        const page: MergeQueuePage = await octokit.graphql<MergeQueuePage>(
          `query($owner: String!, $name: String!, $branch: String!, $after: String) {
            repository(owner: $owner, name: $name) {
              mergeQueue(branch: $branch) {
                entries(first: 100, after: $after) {
                  nodes { pullRequest { number } }
                  pageInfo { hasNextPage endCursor }
                }
              }
            }
          }`,
          { owner: repo.owner, name: repo.repo, branch, after },
        );
        const entries = page.repository?.mergeQueue?.entries;
        if (!entries) return numbers;
        for (const node of entries.nodes ?? [])
          if (node?.pullRequest) numbers.push(node.pullRequest.number);
        if (through !== undefined && numbers.includes(through)) return numbers;
        if (!entries.pageInfo.hasNextPage) return numbers;
        after = entries.pageInfo.endCursor;
      }
    },

    async enqueuePullRequest(pullRequestNodeId, expectedHeadOid) {
      try {
        await octokit.graphql(
          `mutation($id: ID!, $oid: GitObjectID!) {
            enqueuePullRequest(input: { pullRequestId: $id, expectedHeadOid: $oid }) { mergeQueueEntry { id } }
          }`,
          { id: pullRequestNodeId, oid: expectedHeadOid, request: urgency('enqueue') },
        );
        return { ok: true };
      } catch (error) {
        // GitHub refuses a mutation with HTTP 200 and `errors` (@octokit/graphql throws those as
        // GraphqlResponseError); an HTTP failure is a RequestError and is not a refusal.
        if (error instanceof GraphqlResponseError && error.errors?.length)
          return { ok: false, message: error.errors.map((e) => e.message).join('; ') };
        throw error;
      }
    },

    async dequeuePullRequest(pullRequestNodeId) {
      try {
        await octokit.graphql(
          `mutation($id: ID!) { dequeuePullRequest(input: { id: $id }) { mergeQueueEntry { id } } }`,
          { id: pullRequestNodeId, request: urgency('dequeue') },
        );
      } catch (error) {
        if (!(error instanceof GraphqlResponseError && error.errors?.length)) throw error;
        // GitHub refuses the dequeue of a PR that has left the queue already ("Failed to remove
        // PR", UNPROCESSABLE), and has been seen to refuse one it carried out: what is asked is
        // done when the PR is out of the queue. Taken for a failure, every later merge turn of
        // its run failed on it (docs/lifecycle.md, step 11).
        const read = await octokit.graphql<{ node: { isInMergeQueue?: boolean } | null }>(
          `query($id: ID!) { node(id: $id) { ... on PullRequest { isInMergeQueue } } }`,
          { id: pullRequestNodeId },
        );
        if (read.node?.isInMergeQueue !== false) throw error;
      }
    },

    reviewThreads(repo, prNumber, options) {
      return readReviewThreads(octokit, repo, prNumber, options);
    },
    laterReviewComments(thread, pages) {
      return readLaterComments(octokit, thread, pages);
    },

    async reviewState(repo, prNumber, reviewId) {
      try {
        const { data } = await octokit.rest.pulls.getReview({
          ...repo,
          pull_number: prNumber,
          review_id: reviewId,
        });
        // An approval rests on it: an answer without it is no answer.
        const state: unknown = data.state;
        if (typeof state !== 'string')
          throw new Error(`GitHub answered review ${reviewId} without its state`);
        return state;
      } catch (error) {
        if (statusOf(error) === 404) return null;
        throw error;
      }
    },

    async requestReviewers(repo, prNumber, logins) {
      try {
        await octokit.rest.pulls.requestReviewers({
          ...repo,
          pull_number: prNumber,
          reviewers: [...logins],
          request: urgency('request_reviewers'),
        });
        return { ok: true };
      } catch (error) {
        // 422: the PR's author, or someone who is not a collaborator.
        if (statusOf(error) === 422)
          return { ok: false, status: 422, message: (error as Error).message };
        throw error;
      }
    },

    async checkRunAnnotations(repo, checkRunId, options = {}) {
      const limit = Math.min(Math.max(options.limit ?? 50, 1), 100);
      const { data } = await octokit.rest.checks.listAnnotations({
        ...repo,
        check_run_id: checkRunId,
        per_page: limit,
      });
      if (!Array.isArray(data)) throw new Error('check run annotations: GitHub answered no list');
      return data.slice(0, limit).map((a): CheckAnnotation => ({
        path: a.path,
        startLine: a.start_line,
        endLine: a.end_line,
        level: ANNOTATION_LEVELS.has(a.annotation_level ?? '')
          ? (a.annotation_level as CheckAnnotation['level'])
          : 'notice',
        title: a.title ?? '',
        message: a.message ?? '',
      }));
    },

    jobLogTail(repo, jobId, maxLines) {
      return readJobLogTail(octokit, repo, jobId, maxLines);
    },

    async rerunFailedJobs(repo, runId) {
      try {
        await octokit.rest.actions.reRunWorkflowFailedJobs({
          ...repo,
          run_id: runId,
          // A second attempt started by a retry would spend the user's re-run.
          request: { retries: 0, ...urgency('rerun_failed_jobs') },
        });
        return { ok: true };
      } catch (error) {
        // 403: the run is still going, or no job failed; a missing permission is no answer, and
        // a rate limit (rateLimited) refuses nothing.
        const message = (error as Error).message;
        if (
          statusOf(error) === 403 &&
          !rateLimited(error) &&
          !/not accessible by integration/i.test(message)
        )
          return { ok: false, status: 403, message };
        throw error;
      }
    },
  };
}
