import type { Core } from '../core.js';
import { nodeId } from '../ids.js';
import {
  addCheckRun,
  addStatus,
  checkRunsOf,
  type Account,
  type AppInfo,
  type CheckConclusion,
  type CheckOutput,
  type CheckRun,
  type CheckStatus,
  type CheckSuite,
  type CommitStatus,
  type Repo,
  type Run,
  type StatusState,
} from '../model.js';
import { checkRunJson, checkSuiteJson } from '../render/checks.js';
import { commitJson } from '../render/repos.js';
import { validationFailed } from '../server/http.js';
import type { Sent } from './pull-events.js';

export interface CheckRunInput {
  name?: string;
  status?: CheckStatus;
  conclusion?: CheckConclusion | null;
  startedAt?: string;
  completedAt?: string | null;
  output?: Partial<CheckOutput>;
  externalId?: string | null;
  detailsUrl?: string | null;
}

function branchesAt(repo: Repo, sha: string): string[] {
  return [...repo.refs]
    .filter(([ref, s]) => s === sha && ref.startsWith('heads/'))
    .map(([ref]) => ref.slice(6));
}

function suiteFor(core: Core, repo: Repo, app: AppInfo, sha: string): CheckSuite {
  const key = `${app.id}:${sha}`;
  const known = repo.checkSuites.get(key);
  if (known) return known;
  const id = core.ids.next('checkSuite');
  const now = core.now();
  const suite: CheckSuite = {
    id,
    nodeId: nodeId('CS', id),
    headSha: sha,
    headBranch: branchesAt(repo, sha)[0] ?? null,
    app,
    status: 'queued',
    conclusion: null,
    createdAt: now,
    updatedAt: now,
  };
  repo.checkSuites.set(key, suite);
  return suite;
}

/**
 * A workflow run's own check suite (its `check_suite_id`): GitHub Actions makes one per run, so
 * one commit carries a suite for each run on it. Its `head_branch` is null when the head is a
 * fork's branch (REST "check suites": pushes to a fork's branch are not detected), and then it
 * names no PR (`pull_requests` empty).
 */
export function workflowRunSuite(core: Core, run: Run): CheckSuite {
  const key = `run:${run.id}`;
  const known = run.repo.checkSuites.get(key);
  if (known) return known;
  const suite: CheckSuite = {
    id: run.checkSuiteId,
    nodeId: run.checkSuiteNodeId,
    headSha: run.headSha,
    headBranch: run.headRepo === run.repo ? run.headBranch : null,
    app: core.ciApp,
    status: 'queued',
    conclusion: null,
    createdAt: run.createdAt,
    updatedAt: run.createdAt,
  };
  run.repo.checkSuites.set(key, suite);
  return suite;
}

function senderFor(app: AppInfo): Account {
  return app.bot;
}

function sendCheckRunEvent(
  core: Core,
  repo: Repo,
  run: CheckRun,
  action: string,
): Promise<unknown> {
  return core.webhooks.sendWebhook({
    event: 'check_run',
    action,
    repo,
    sender: senderFor(run.app),
    body: {
      check_run: {
        ...checkRunJson(core, repo, run),
        check_suite: checkSuiteJson(core, repo, run.suite),
      },
    },
  });
}

const SEVERITY: CheckConclusion[] = [
  'action_required',
  'cancelled',
  'timed_out',
  'failure',
  'startup_failure',
  'stale',
  'neutral',
  'skipped',
  'success',
];

// A suite completes when all its runs have; its conclusion is the worst of theirs.
function settleSuite(core: Core, repo: Repo, suite: CheckSuite): Sent {
  const runs = checkRunsOf(repo, suite);
  const done = runs.length > 0 && runs.every((r) => r.status === 'completed');
  if (!done) {
    suite.status = runs.some((r) => r.status === 'in_progress') ? 'in_progress' : 'queued';
    suite.conclusion = null;
    return [];
  }
  if (suite.status === 'completed') return [];
  suite.status = 'completed';
  suite.updatedAt = core.now();
  suite.conclusion = SEVERITY.find((c) => runs.some((r) => r.conclusion === c)) ?? 'success';
  return [
    core.webhooks.sendWebhook({
      event: 'check_suite',
      action: 'completed',
      repo,
      sender: senderFor(suite.app),
      body: { check_suite: checkSuiteJson(core, repo, suite) },
    }),
  ];
}

function applyInput(core: Core, run: CheckRun, input: CheckRunInput): void {
  if (input.name !== undefined) run.name = input.name;
  if (input.externalId !== undefined) run.externalId = input.externalId;
  if (input.detailsUrl !== undefined) run.detailsUrl = input.detailsUrl;
  if (input.startedAt !== undefined) run.startedAt = input.startedAt;
  if (input.output) run.output = { ...run.output, ...input.output };
  if (input.conclusion) {
    run.conclusion = input.conclusion;
    run.status = 'completed';
  } else if (input.status !== undefined) {
    run.status = input.status;
  }
  if (run.status === 'completed')
    run.completedAt = input.completedAt ?? run.completedAt ?? core.now();
}

/** A check run in the App's suite for the commit, or in `workflowSuite` (a workflow run's). */
export function createCheckRun(
  core: Core,
  repo: Repo,
  app: AppInfo,
  sha: string,
  input: CheckRunInput,
  workflowSuite?: CheckSuite,
): { run: CheckRun; sent: Sent } {
  if (!repo.commits.has(sha)) throw validationFailed(`No commit found for SHA: ${sha}`);
  if (input.status === 'completed' && !input.conclusion) {
    throw validationFailed('Validation Failed', [
      { resource: 'CheckRun', field: 'conclusion', code: 'missing_field' },
    ]);
  }
  const id = core.ids.next('checkRun');
  const suite = workflowSuite ?? suiteFor(core, repo, app, sha);
  const run: CheckRun = {
    id,
    nodeId: nodeId('CR', id),
    headSha: sha,
    name: input.name ?? 'check',
    status: 'queued',
    conclusion: null,
    startedAt: core.now(),
    completedAt: null,
    externalId: null,
    detailsUrl: null,
    output: { title: null, summary: null, text: null },
    annotations: [],
    app,
    suite,
  };
  applyInput(core, run, input);
  addCheckRun(repo, run);
  suite.status = 'queued';
  core.changed('check-run', { repo: repo.fullName, sha, name: run.name, status: run.status });
  const sent: Sent = [sendCheckRunEvent(core, repo, run, 'created')];
  if (run.status === 'completed')
    sent.push(sendCheckRunEvent(core, repo, run, 'completed'), ...settleSuite(core, repo, suite));
  return { run, sent };
}

export function updateCheckRun(core: Core, repo: Repo, run: CheckRun, input: CheckRunInput): Sent {
  if (input.status === 'completed' && !input.conclusion && !run.conclusion) {
    throw validationFailed('Validation Failed', [
      { resource: 'CheckRun', field: 'conclusion', code: 'missing_field' },
    ]);
  }
  const wasCompleted = run.status === 'completed';
  const before = run.conclusion;
  // A completed check run does not go back: GitHub keeps its status and conclusion when an update
  // asks for `in_progress` or `queued` (Mergifyio/mergify#444 and #1989, lyft/atlantis#265: each
  // creates a new check run instead). Its output is still rewritten.
  const reopens = wasCompleted && !input.conclusion && input.status !== undefined;
  applyInput(core, run, reopens ? { ...input, status: 'completed' } : input);
  core.changed('check-run', {
    repo: repo.fullName,
    sha: run.headSha,
    name: run.name,
    status: run.status,
  });
  if (run.status === 'completed' && (!wasCompleted || before !== run.conclusion)) {
    return [sendCheckRunEvent(core, repo, run, 'completed'), ...settleSuite(core, repo, run.suite)];
  }
  if (run.status !== 'completed') settleSuite(core, repo, run.suite);
  return [];
}

export function createStatus(
  core: Core,
  repo: Repo,
  sha: string,
  input: {
    state: StatusState;
    context?: string;
    description?: string | null;
    targetUrl?: string | null;
  },
  creator: Account,
): { status: CommitStatus; sent: Sent } {
  const c = repo.commits.get(sha);
  if (!c) throw validationFailed(`No commit found for SHA: ${sha}`);
  const id = core.ids.next('status');
  const now = core.now();
  const status: CommitStatus = {
    id,
    nodeId: nodeId('SC', id),
    sha,
    state: input.state,
    context: input.context ?? 'default',
    description: input.description ?? null,
    targetUrl: input.targetUrl ?? null,
    creator,
    createdAt: now,
    updatedAt: now,
  };
  addStatus(repo, status);
  core.changed('status', {
    repo: repo.fullName,
    sha,
    context: status.context,
    state: status.state,
  });
  if (!core.delivers('status')) return { status, sent: [] };
  const sent: Sent = [
    core.webhooks.sendWebhook({
      event: 'status',
      repo,
      sender: creator,
      body: {
        id,
        sha,
        name: repo.fullName,
        target_url: status.targetUrl,
        avatar_url: null,
        context: status.context,
        description: status.description,
        state: status.state,
        commit: commitJson(core, repo, c),
        branches: branchesAt(repo, sha).map((name) => ({
          name,
          commit: { sha, url: `${core.apiUrl}/repos/${repo.fullName}/commits/${sha}` },
          protected: repo.protection.has(name),
        })),
        created_at: now,
        updated_at: now,
      },
    }),
  ];
  return { status, sent };
}
