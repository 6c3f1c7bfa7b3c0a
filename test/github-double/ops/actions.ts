import type { Core } from '../core.js';
import { nodeId } from '../ids.js';
import type { Account, JobAnnotation, Repo, Run, RunConclusion, Workflow } from '../model.js';
import { jobJson, runJson, workflowJson } from '../render/actions.js';
import { HttpError, notFound, validationFailed } from '../server/http.js';
import type { Sent } from './pull-events.js';

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

function sendJobEvent(core: Core, run: Run, action: string): Promise<unknown> {
  return core.webhooks.sendWebhook({
    event: 'workflow_job',
    action,
    repo: run.repo,
    sender: run.actor,
    body: { workflow_job: jobJson(core, run) },
  });
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
    jobId: core.ids.next('job'),
    jobHasRunner: false,
    jobAnnotations: [],
  };
  repo.runs.set(id, run);
  core.changed('run', { repo: repo.fullName, id, status: run.status });
  return {
    run,
    sent: [sendRunEvent(core, run, 'requested', by), sendJobEvent(core, run, 'queued')],
  };
}

export function startRun(core: Core, run: Run): Sent {
  if (run.status !== 'queued') return [];
  const now = core.now();
  run.status = 'in_progress';
  run.runStartedAt = now;
  run.updatedAt = now;
  core.changed('run', { repo: run.repo.fullName, id: run.id, status: run.status });
  run.jobHasRunner = true;
  return [
    sendRunEvent(core, run, 'in_progress', run.actor),
    sendJobEvent(core, run, 'in_progress'),
  ];
}

// A running job's workflow commands: annotations land on its check run as the job prints them.
export function annotateJob(run: Run, annotations: JobAnnotation[]): void {
  if (run.status !== 'in_progress')
    throw new Error(`github double: run ${run.id} is ${run.status}, not running: nothing prints`);
  run.jobAnnotations.push(...annotations.map((a) => ({ ...a })));
}

export function completeRun(core: Core, run: Run, conclusion: RunConclusion): Sent {
  if (run.status === 'completed') return [];
  run.status = 'completed';
  run.conclusion = conclusion;
  run.updatedAt = core.now();
  // GitHub revokes a job's GITHUB_TOKEN when the job ends.
  for (const t of core.tokens.values()) if (t.jobRunId === run.id) t.expiresAt = new Date(0);
  core.changed('run', { repo: run.repo.fullName, id: run.id, status: run.status, conclusion });
  const sent: Sent = [];
  // A startup failure never gets as far as creating jobs.
  if (conclusion !== 'startup_failure') sent.push(sendJobEvent(core, run, 'completed'));
  sent.push(sendRunEvent(core, run, 'completed', run.actor));
  return sent;
}

export function cancelRun(core: Core, run: Run): Sent {
  if (run.status === 'completed')
    throw new HttpError(409, 'Cannot cancel a workflow run that is completed.');
  return completeRun(core, run, 'cancelled');
}
