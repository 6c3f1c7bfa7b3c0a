import type { Core } from '../core.js';
import { failedStepIndex, type Job, type Repo, type Run, type Workflow } from '../model.js';
import { userJson } from './accounts.js';
import { repoApiUrl, repoHtmlUrl, repoJson, simpleCommitJson } from './repos.js';

export function workflowJson(core: Core, repo: Repo, wf: Workflow): Record<string, unknown> {
  return {
    id: wf.id,
    node_id: wf.nodeId,
    name: wf.name,
    path: `.github/workflows/${wf.file}`,
    state: 'active',
    created_at: wf.createdAt,
    updated_at: wf.createdAt,
    url: `${repoApiUrl(core, repo)}/actions/workflows/${wf.id}`,
    html_url: `${repoHtmlUrl(core, repo)}/blob/${repo.defaultBranch}/.github/workflows/${wf.file}`,
    badge_url: `${repoHtmlUrl(core, repo)}/workflows/${encodeURIComponent(wf.name)}/badge.svg`,
  };
}

export function runHtmlUrl(core: Core, run: Run): string {
  return `${repoHtmlUrl(core, run.repo)}/actions/runs/${run.id}`;
}

export function runJson(core: Core, run: Run): Record<string, unknown> {
  const repo = run.repo;
  const api = `${repoApiUrl(core, repo)}/actions/runs/${run.id}`;
  const head = repo.commits.get(run.headSha);
  return {
    id: run.id,
    name: run.workflow.name,
    node_id: run.nodeId,
    head_branch: run.headBranch,
    head_sha: run.headSha,
    path: `.github/workflows/${run.workflow.file}`,
    display_title: run.displayTitle,
    run_number: run.runNumber,
    event: run.event,
    status: run.status,
    conclusion: run.conclusion,
    workflow_id: run.workflow.id,
    check_suite_id: run.checkSuiteId,
    check_suite_node_id: run.checkSuiteNodeId,
    url: api,
    html_url: runHtmlUrl(core, run),
    pull_requests: [],
    created_at: run.createdAt,
    updated_at: run.updatedAt,
    actor: userJson(core, run.actor),
    triggering_actor: userJson(core, run.triggeringActor),
    run_attempt: run.runAttempt,
    referenced_workflows: [],
    run_started_at: run.runStartedAt,
    jobs_url: `${api}/jobs`,
    logs_url: `${api}/logs`,
    check_suite_url: `${repoApiUrl(core, repo)}/check-suites/${run.checkSuiteId}`,
    artifacts_url: `${api}/artifacts`,
    cancel_url: `${api}/cancel`,
    rerun_url: `${api}/rerun`,
    previous_attempt_url: run.runAttempt > 1 ? `${api}/attempts/${run.runAttempt - 1}` : null,
    workflow_url: `${repoApiUrl(core, repo)}/actions/workflows/${run.workflow.id}`,
    head_commit: head ? simpleCommitJson(head) : null,
    repository: repoJson(core, repo),
    head_repository: repoJson(core, run.headRepo),
  };
}

export function jobHtmlUrl(core: Core, run: Run, job: Job): string {
  return `${runHtmlUrl(core, run)}/job/${job.id}`;
}

// A job's steps are the sections of its log (see failedStepIndex for the one that failed).
function stepsJson(job: Job): Record<string, unknown>[] {
  const failed = failedStepIndex(job);
  return job.log.map((step, i) => {
    const last = i === job.log.length - 1;
    const done = job.status === 'completed' || !last;
    return {
      name: step.name,
      status: done ? 'completed' : 'in_progress',
      conclusion: !done ? null : i === failed ? 'failure' : last ? job.conclusion : 'success',
      number: i + 1,
      started_at: job.startedAt,
      completed_at: done ? (job.completedAt ?? job.startedAt) : null,
    };
  });
}

export function jobJson(core: Core, run: Run, job: Job): Record<string, unknown> {
  const api = repoApiUrl(core, run.repo);
  const started = job.status !== 'queued';
  return {
    id: job.id,
    run_id: run.id,
    workflow_name: run.workflow.name,
    head_branch: run.headBranch,
    run_url: `${api}/actions/runs/${run.id}`,
    run_attempt: job.runAttempt,
    node_id: `CR_${job.id}`,
    head_sha: run.headSha,
    url: `${api}/actions/jobs/${job.id}`,
    html_url: jobHtmlUrl(core, run, job),
    status: job.status,
    conclusion: job.status === 'completed' ? job.conclusion : null,
    created_at: job.createdAt,
    started_at: job.startedAt,
    completed_at: job.status === 'completed' ? job.completedAt : null,
    name: job.name,
    steps: stepsJson(job),
    check_run_url: `${api}/check-runs/${job.id}`,
    labels: ['ubuntu-latest'],
    runner_id: started && job.hasRunner ? 1 : null,
    runner_name: started && job.hasRunner ? 'GitHub Actions 1' : null,
    runner_group_id: started && job.hasRunner ? 1 : null,
    runner_group_name: started && job.hasRunner ? 'GitHub Actions' : null,
  };
}
