import type { Core } from '../core.js';
import { nodeId } from '../ids.js';
import {
  removeCheckRun,
  type Account,
  type CiJobAttempt,
  type CiJobPlan,
  type Job,
  type JobAnnotation,
  type JobLogStep,
  type Repo,
  type Run,
  type RunConclusion,
  type Workflow,
} from '../model.js';
import { jobHtmlUrl, jobJson, runJson, workflowJson } from '../render/actions.js';
import { HttpError, notFound, validationFailed } from '../server/http.js';
import { createCheckRun, updateCheckRun, workflowRunSuite } from './checks.js';
import type { Sent } from './pull-events.js';
import { addWorkflow } from './repos.js';

const MAX_INPUTS = 25;
const MAX_INPUTS_CHARS = 65_535;

export function findWorkflow(repo: Repo, idOrFile: string): Workflow | undefined {
  return (
    repo.workflows.get(idOrFile) ??
    [...repo.workflows.values()].find((w) => String(w.id) === idOrFile)
  );
}

export function findRun(core: Core, runId: number): Run | undefined {
  for (const repo of core.repos.values()) {
    const run = repo.runs.get(runId);
    if (run) return run;
  }
  return undefined;
}

// workflow_dispatch takes a branch or tag, never a bare sha.
function dispatchRef(repo: Repo, ref: string): { sha: string; type: 'branch' | 'tag' } | undefined {
  const short = ref.replace(/^refs\//, '');
  for (const full of [short, `heads/${short}`, `tags/${short}`]) {
    const sha = repo.refs.get(full);
    if (sha) return { sha, type: full.startsWith('tags/') ? 'tag' : 'branch' };
  }
  return undefined;
}

function dispatchRefSha(repo: Repo, ref: string): string | undefined {
  return dispatchRef(repo, ref)?.sha;
}

// GitHub renders run-name with the inputs and the github context it has at dispatch; an
// unknown expression renders empty, as a missing context value does on GitHub.
function renderRunName(
  template: string | null,
  fallback: string,
  context: { inputs: Record<string, string>; actor: string; refName: string },
): string {
  if (!template) return fallback;
  const github: Record<string, string> = {
    actor: context.actor,
    triggering_actor: context.actor,
    ref_name: context.refName,
    event_name: 'workflow_dispatch',
  };
  return template.replace(/\$\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_m, path: string) => {
    const input = /^(?:github\.event\.)?inputs\.(.+)$/.exec(path)?.[1];
    if (input !== undefined) return context.inputs[input] ?? '';
    const key = /^github\.(.+)$/.exec(path)?.[1];
    return key !== undefined ? (github[key] ?? '') : '';
  });
}

function sendJobEvent(core: Core, run: Run, job: Job, action: string): Promise<unknown> {
  return core.webhooks.sendWebhook({
    event: 'workflow_job',
    action,
    repo: run.repo,
    sender: run.actor,
    body: { workflow_job: jobJson(core, run, job) },
  });
}

/** The jobs of the run's current attempt. */
export function currentJobs(run: Run): Job[] {
  return run.jobs.filter((j) => j.runAttempt === run.runAttempt);
}

/** Each job's newest attempt: what `filter=latest` lists and what decides the run's conclusion. */
export function latestJobs(run: Run): Job[] {
  const byName = new Map<string, Job>();
  for (const job of run.jobs) byName.set(job.name, job);
  return [...byName.values()];
}

export function findJob(repo: Repo, jobId: number): { run: Run; job: Job } | undefined {
  for (const run of repo.runs.values()) {
    const job = run.jobs.find((j) => j.id === jobId);
    if (job) return { run, job };
  }
  return undefined;
}

// Every job is a check run of GitHub Actions on the commit its run ran on, with the job's id, in
// the run's own check suite (`check_suite_id`): a CI run's and a `workflow_dispatch` run's alike.
// GitHub runs a dispatched workflow on "the last commit on the GITHUB_REF branch" (docs "Events
// that trigger workflows"), so the worker's jobs sit on its task branch's head at dispatch, which
// for a fix attempt is its PR's head and for a stacked task its dependency's (docs/stacking.md).
function newJob(core: Core, run: Run, name: string): { job: Job; sent: Sent } {
  const now = core.now();
  const { run: checkRun, sent } = createCheckRun(
    core,
    run.repo,
    core.ciApp,
    run.headSha,
    { name, status: 'queued' },
    workflowRunSuite(core, run),
  );
  const job: Job = {
    id: checkRun.id,
    name,
    runAttempt: run.runAttempt,
    status: 'queued',
    conclusion: null,
    createdAt: now,
    startedAt: now,
    completedAt: null,
    hasRunner: false,
    // The check run shows what the job prints: one list for both.
    annotations: checkRun.annotations,
    log: [],
    checkRun,
  };
  checkRun.detailsUrl = jobHtmlUrl(core, run, job);
  checkRun.externalId = `${run.id}-${name}-${run.runAttempt}`;
  run.jobs.push(job);
  return { job, sent };
}

function sendRunEvent(core: Core, run: Run, action: string, sender: Account): Promise<unknown> {
  return core.webhooks.sendWebhook({
    event: 'workflow_run',
    action,
    repo: run.repo,
    sender,
    body: {
      workflow_run: runJson(core, run),
      workflow: workflowJson(core, run.repo, run.workflow),
    },
  });
}

// GitHub's own validation of a workflow_dispatch, with its error wording.
export function validateDispatch(
  wf: Workflow,
  repo: Repo,
  ref: string,
  rawInputs: unknown,
): Record<string, string> {
  if (!dispatchRefSha(repo, ref)) throw validationFailed(`No ref found for: ${ref}`);
  if (
    rawInputs !== undefined &&
    (rawInputs === null || typeof rawInputs !== 'object' || Array.isArray(rawInputs))
  ) {
    throw validationFailed('inputs must be an object');
  }
  const given = (rawInputs ?? {}) as Record<string, unknown>;
  const keys = Object.keys(given);
  const unexpected = keys.filter((k) => !(k in wf.inputs));
  if (unexpected.length > 0)
    throw validationFailed(`Unexpected inputs provided: ${JSON.stringify(unexpected)}`);
  if (keys.length > MAX_INPUTS)
    throw validationFailed(
      `you may only define up to ${MAX_INPUTS} \`inputs\` for a \`workflow_dispatch\` event`,
    );
  const notString = keys.filter((k) => typeof given[k] !== 'string');
  if (notString.length > 0) {
    throw validationFailed(
      `Invalid value for input(s): ${notString.map((k) => `'${k}' must be a string`).join(', ')}`,
    );
  }
  if (JSON.stringify(given).length > MAX_INPUTS_CHARS) {
    throw validationFailed(
      `inputs are too large. The maximum size is ${MAX_INPUTS_CHARS} characters.`,
    );
  }
  const inputs: Record<string, string> = {};
  for (const [name, def] of Object.entries(wf.inputs)) {
    const v = given[name];
    if (typeof v === 'string') inputs[name] = v;
    else if (def.default !== undefined) inputs[name] = def.default;
    else if (def.required) throw validationFailed(`Required input '${name}' not provided`);
  }
  return inputs;
}

export function dispatchWorkflow(
  core: Core,
  repo: Repo,
  workflowId: string,
  ref: string,
  rawInputs: unknown,
  by: Account,
): { run: Run; sent: Sent } {
  const wf = findWorkflow(repo, workflowId);
  if (!wf) throw notFound();
  const inputs = validateDispatch(wf, repo, ref, rawInputs);
  const resolved = dispatchRef(repo, ref);
  if (!resolved) throw validationFailed(`No ref found for: ${ref}`);
  const headSha = resolved.sha;
  const id = core.ids.next('run');
  const suiteId = core.ids.next('checkSuite');
  const now = core.now();
  wf.runCount += 1;
  const run: Run = {
    id,
    nodeId: nodeId('WFR', id),
    repo,
    headRepo: repo,
    workflow: wf,
    runNumber: wf.runCount,
    runAttempt: 1,
    headBranch: ref.replace(/^refs\/(heads|tags)\//, ''),
    refType: resolved.type,
    headSha,
    event: 'workflow_dispatch',
    status: 'queued',
    conclusion: null,
    actor: by,
    triggeringActor: by,
    inputs,
    displayTitle: renderRunName(wf.runName, wf.name, {
      inputs,
      actor: by.login,
      refName: ref.replace(/^refs\/(heads|tags)\//, ''),
    }),
    createdAt: now,
    updatedAt: now,
    runStartedAt: now,
    checkSuiteId: suiteId,
    checkSuiteNodeId: nodeId('CS', suiteId),
    jobs: [],
    ciPlan: null,
  };
  repo.runs.set(id, run);
  core.changed('run', { repo: repo.fullName, id, status: run.status });
  const sent: Sent = [sendRunEvent(core, run, 'requested', by)];
  const { job, sent: created } = newJob(core, run, 'work');
  sent.push(...created, sendJobEvent(core, run, job, 'queued'));
  return { run, sent };
}

export function startRun(core: Core, run: Run): Sent {
  if (run.status !== 'queued') return [];
  const now = core.now();
  run.status = 'in_progress';
  run.runStartedAt = now;
  run.updatedAt = now;
  core.changed('run', { repo: run.repo.fullName, id: run.id, status: run.status });
  const sent: Sent = [sendRunEvent(core, run, 'in_progress', run.actor)];
  for (const job of currentJobs(run)) {
    job.status = 'in_progress';
    job.startedAt = now;
    job.hasRunner = true;
    sent.push(...updateCheckRun(core, run.repo, job.checkRun, { status: 'in_progress' }));
    sent.push(sendJobEvent(core, run, job, 'in_progress'));
  }
  return sent;
}

function runningJob(run: Run, name: string | undefined): Job {
  const job = currentJobs(run).find((j) => name === undefined || j.name === name);
  if (run.status !== 'in_progress' || !job || job.status !== 'in_progress')
    throw new Error(
      `github double: ${name ? `job ${name} of ` : ''}run ${run.id} is not running (${run.status}): nothing prints`,
    );
  return job;
}

// A running job's workflow commands: annotations land on its check run as the job prints them.
export function annotateJob(run: Run, annotations: JobAnnotation[], jobName?: string): void {
  runningJob(run, jobName).annotations.push(...annotations.map((a) => ({ ...a })));
}

/** What a running job's step prints, a section of the job's log. */
export function logJobStep(run: Run, step: JobLogStep, jobName?: string): void {
  runningJob(run, jobName).log.push({ ...step, lines: [...step.lines] });
}

/**
 * Takes back the current attempt's jobs and their check runs. A dispatched run is made with one
 * job, `work`, standing for the jobs the double cannot know before a runner reads the workflow
 * file; GitHub would have listed the file's own jobs from the start.
 */
function dropCurrentJobs(run: Run): void {
  for (const job of currentJobs(run)) removeCheckRun(run.repo, job.checkRun);
  run.jobs = run.jobs.filter((j) => j.runAttempt !== run.runAttempt);
}

/**
 * The jobs a runner starts for a multi-job workflow, in place of the one job the run was
 * created with: each in progress, as GitHub lists them once a runner picked them up.
 */
export function startJobs(core: Core, run: Run, names: readonly string[]): Sent {
  if (run.status !== 'in_progress')
    throw new Error(`github double: run ${run.id} is not running (${run.status})`);
  dropCurrentJobs(run);
  const sent: Sent = [];
  for (const name of names) {
    const { job, sent: created } = newJob(core, run, name);
    sent.push(...created);
    job.status = 'in_progress';
    job.startedAt = core.now();
    job.hasRunner = true;
    sent.push(sendJobEvent(core, run, job, 'in_progress'));
  }
  return sent;
}

/** One job of a running run ends (`skipped`: its needs failed, so no step ran). */
export function finishNamedJob(
  core: Core,
  run: Run,
  name: string,
  conclusion: RunConclusion,
): Sent {
  return finishJob(core, run, runningJob(run, name), conclusion);
}

function finishJob(core: Core, run: Run, job: Job, conclusion: RunConclusion): Sent {
  job.status = 'completed';
  job.conclusion = conclusion;
  job.completedAt = core.now();
  return [
    ...updateCheckRun(core, run.repo, job.checkRun, {
      conclusion: conclusion as Exclude<RunConclusion, 'startup_failure'>,
    }),
    sendJobEvent(core, run, job, 'completed'),
  ];
}

// A job may not be worse than its run, nor a run better than its worst job.
const WORST_FIRST: RunConclusion[] = [
  'startup_failure',
  'cancelled',
  'timed_out',
  'failure',
  'action_required',
  'neutral',
  'skipped',
  'success',
];

/**
 * Ends the current attempt: its unfinished jobs get `conclusion` (or, when given, their own
 * from `byJob`) and the run the worst conclusion of each job's newest attempt.
 */
export function completeRun(
  core: Core,
  run: Run,
  conclusion: RunConclusion,
  byJob: ReadonlyMap<string, RunConclusion> = new Map(),
): Sent {
  if (run.status === 'completed') return [];
  const sent: Sent = [];
  // A startup failure never gets as far as creating jobs.
  if (conclusion === 'startup_failure') dropCurrentJobs(run);
  for (const job of currentJobs(run))
    if (job.status !== 'completed')
      sent.push(...finishJob(core, run, job, byJob.get(job.name) ?? conclusion));
  const jobs = latestJobs(run).map((j) => j.conclusion);
  run.status = 'completed';
  run.conclusion =
    jobs.length === 0 ? conclusion : (WORST_FIRST.find((c) => jobs.includes(c)) ?? conclusion);
  run.updatedAt = core.now();
  // GitHub revokes a job's GITHUB_TOKEN when the job ends.
  for (const t of core.tokens.values()) if (t.jobRunId === run.id) t.expiresAt = new Date(0);
  core.changed('run', {
    repo: run.repo.fullName,
    id: run.id,
    status: run.status,
    conclusion: run.conclusion,
  });
  sent.push(sendRunEvent(core, run, 'completed', run.actor));
  return sent;
}

/**
 * `POST .../runs/{run_id}/cancel` (202). A run a runner has in hand completes once the runner has
 * stopped its step and ended its jobs, as on GitHub, where the step's process hears the cancel
 * and may print meanwhile; any other ends at once.
 */
export function cancelRun(core: Core, run: Run): Sent {
  if (run.status === 'completed')
    throw new HttpError(409, 'Cannot cancel a workflow run that is completed.');
  const stop = core.runnerStops.get(run.id);
  if (!stop) return completeRun(core, run, 'cancelled');
  stop();
  return [];
}

const RERUN: ReadonlySet<RunConclusion | null> = new Set(['failure', 'cancelled', 'timed_out']);

/**
 * `POST .../runs/{run_id}/rerun-failed-jobs`: a new attempt of the same run (run_attempt + 1)
 * in which each job whose newest attempt failed, was cancelled or timed out runs again as a new
 * job (a new check run for a CI job); the others keep their result. GitHub sends
 * `workflow_run.requested` with the new attempt, then `workflow_job.queued` (and
 * `check_run.created`) for each job. Refused (403) while the run is not completed or when no job
 * failed.
 */
export function rerunFailedJobs(core: Core, run: Run, by: Account): Sent {
  if (run.status !== 'completed') throw new HttpError(403, 'This workflow is already running');
  const failed = latestJobs(run).filter((j) => RERUN.has(j.conclusion));
  if (failed.length === 0) throw new HttpError(403, 'This workflow run cannot be rerun.');
  const now = core.now();
  run.runAttempt += 1;
  run.status = 'queued';
  run.conclusion = null;
  run.runStartedAt = now;
  run.updatedAt = now;
  run.triggeringActor = by;
  core.changed('run', { repo: run.repo.fullName, id: run.id, status: run.status });
  const sent: Sent = [sendRunEvent(core, run, 'requested', by)];
  for (const old of failed) {
    const { job, sent: created } = newJob(core, run, old.name);
    sent.push(...created, sendJobEvent(core, run, job, 'queued'));
  }
  return sent;
}

export interface CiRunInput {
  workflow: { file: string; name: string };
  event: 'push' | 'pull_request';
  /** The head branch, in `headRepo`. */
  branch: string;
  /** A fork whose PR into the repository started the run; the repository itself when left out. */
  headRepo?: Repo;
  sha: string;
  jobs: CiJobPlan[];
  by: Account;
}

/** A CI workflow run GitHub starts on a push or pull request: its jobs are queued check runs. */
export function createCiRun(core: Core, repo: Repo, input: CiRunInput): { run: Run; sent: Sent } {
  if (!repo.commits.has(input.sha)) throw new Error(`github double: no commit ${input.sha}`);
  if (input.jobs.some((j) => j.attempts.length === 0))
    throw new Error('github double: a CI job needs at least one attempt');
  const wf =
    repo.workflows.get(input.workflow.file) ??
    addWorkflow(core, repo, { file: input.workflow.file, name: input.workflow.name, inputs: [] });
  const id = core.ids.next('run');
  const suiteId = core.ids.next('checkSuite');
  const now = core.now();
  wf.runCount += 1;
  const run: Run = {
    id,
    nodeId: nodeId('WFR', id),
    repo,
    headRepo: input.headRepo ?? repo,
    workflow: wf,
    runNumber: wf.runCount,
    runAttempt: 1,
    headBranch: input.branch,
    refType: 'branch',
    headSha: input.sha,
    event: input.event,
    status: 'queued',
    conclusion: null,
    actor: input.by,
    triggeringActor: input.by,
    inputs: {},
    displayTitle: repo.commits.get(input.sha)?.message.split('\n')[0] ?? wf.name,
    createdAt: now,
    updatedAt: now,
    runStartedAt: now,
    checkSuiteId: suiteId,
    checkSuiteNodeId: nodeId('CS', suiteId),
    jobs: [],
    ciPlan: input.jobs.map((j) => ({ name: j.name, attempts: j.attempts.map((a) => ({ ...a })) })),
  };
  repo.runs.set(id, run);
  core.changed('run', { repo: repo.fullName, id, status: run.status });
  const sent: Sent = [sendRunEvent(core, run, 'requested', input.by)];
  for (const plan of input.jobs) {
    const { job, sent: created } = newJob(core, run, plan.name);
    sent.push(...created, sendJobEvent(core, run, job, 'queued'));
  }
  return { run, sent };
}

function plannedAttempt(plan: CiJobPlan[], run: Run, job: Job): CiJobAttempt | undefined {
  const attempts = plan.find((p) => p.name === job.name)?.attempts ?? [];
  // Counted per job: a job re-run once is on its second attempt even in the run's third.
  const nth = run.jobs.filter((j) => j.name === job.name).indexOf(job);
  return attempts[Math.min(nth, attempts.length - 1)];
}

/**
 * Plays the current attempt of a CI run, unless a job's plan for it says `hold`: then it stays
 * queued until `double.releaseCi` plays it.
 */
export async function playOrHoldCiAttempt(
  core: Core,
  run: Run,
  settle: (sent: Sent) => Promise<void>,
): Promise<void> {
  const plan = run.ciPlan;
  if (plan && currentJobs(run).some((job) => plannedAttempt(plan, run, job)?.hold)) {
    core.heldCiRuns.add(run.id);
    core.changed('run', { repo: run.repo.fullName, id: run.id, held: true });
    return;
  }
  await playCiAttempt(core, run, settle);
}

/**
 * Plays the current attempt of a CI run as its plan says: the jobs start, print their steps and
 * annotations, and finish; then the run completes. Each step's webhooks before the next's.
 */
export async function playCiAttempt(
  core: Core,
  run: Run,
  settle: (sent: Sent) => Promise<void>,
): Promise<void> {
  const plan = run.ciPlan;
  if (!plan) throw new Error(`github double: run ${run.id} is not a CI run`);
  await settle(startRun(core, run));
  const byJob = new Map<string, RunConclusion>();
  for (const job of currentJobs(run)) {
    const attempt = plannedAttempt(plan, run, job);
    if (!attempt) continue;
    for (const step of attempt.steps ?? []) logJobStep(run, step, job.name);
    if (attempt.annotations) annotateJob(run, attempt.annotations, job.name);
    byJob.set(job.name, attempt.conclusion);
  }
  await settle(completeRun(core, run, 'success', byJob));
}

/**
 * The repository's pull-request CI (`core.pullRequestCi`) on a PR's new head: a held run, whose
 * queued jobs are pending checks from the moment the head moves, as GitHub queues a workflow run
 * for `pull_request` before the webhook of the push is delivered. A fork's PR runs it in the base
 * repository too, on the fork's head commit, with the fork as `head_repository` (GitHub's
 * "Workflows in forked repositories": the run gets a read-only token and no secrets, but its
 * jobs are check runs on that commit like any other).
 */
export function startPullRequestCi(
  core: Core,
  baseRepo: Repo,
  pull: { headRef: string; headSha: string; headRepo: Repo },
  by: Account,
): Sent {
  const ci = core.pullRequestCi.get(baseRepo.fullName.toLowerCase());
  if (!ci) return [];
  const jobs = pull.headRepo === baseRepo ? ci.jobs : ci.fromForks;
  const { run, sent } = createCiRun(core, baseRepo, {
    workflow: { file: 'ci.yml', name: 'CI' },
    event: 'pull_request',
    branch: pull.headRef,
    headRepo: pull.headRepo,
    sha: pull.headSha,
    jobs: jobs.map((j) => ({
      name: j.name,
      attempts: j.attempts.map((a) => ({ ...a, hold: true })),
    })),
    by,
  });
  core.heldCiRuns.add(run.id);
  return sent;
}
