import type { JWTPayload } from 'jose';
import { z } from 'zod';
import type { RepoConfig } from '../config/schema.js';
import { loadRunScope, type Engine, type RunScope } from '../engine/context.js';
import { findDispatchedRun } from '../engine/match-run.js';
import { onWorkflowRun } from '../engine/track.js';
import type { AssignmentRequest } from '../protocol/assignment.js';
import { taskBranch } from '../protocol/branch.js';
import type { RefusalCode } from './refusals.js';
import { findAssignmentTarget, type AssignmentTarget } from './target.js';

/** What a verified token must also say (GitHub's OIDC reference, "Custom claims"). */
export interface Grant {
  scope: RunScope;
  target: AssignmentTarget;
  repository: { id: number; installationId: number; defaultBranch: string | null };
  workflowRunId: number;
}

export type Authorization =
  { ok: true; grant: Grant } | { ok: false; code: RefusalCode; context: Record<string, unknown> };

const digits = z.string().regex(/^[1-9]\d{0,19}$/);

/** GitHub's `run_attempt` of a run's own jobs, before anyone re-runs them. */
const FIRST_RUN_ATTEMPT = '1';

/**
 * The token verified; now whether it belongs to the attempt the body names: dispatched by us
 * (event_name), from a repository of ours (repository_id), on that attempt's branch (ref) by
 * the configured worker workflow (workflow_ref), as the run we dispatched (run_id) in its first
 * attempt (run_attempt), which has not finished. Each check refuses with its own claim.
 */
export async function authorizeAssignment(
  engine: Engine,
  claims: JWTPayload,
  request: AssignmentRequest,
): Promise<Authorization> {
  const context: Record<string, unknown> = {
    repository_id: claims['repository_id'],
    run_id: claims['run_id'],
    issue: request.issue,
    task: request.task_id,
    attempt: request.attempt,
  };
  const refuse = (code: RefusalCode): Authorization => ({ ok: false, code, context });

  if (claims['event_name'] !== 'workflow_dispatch') return refuse('event_name');
  const repositoryId = digits.safeParse(claims['repository_id']);
  if (!repositoryId.success) return refuse('repository_id');
  const repository = await engine.store.repositories.getRepository(Number(repositoryId.data));
  const installation =
    repository && (await engine.store.repositories.getInstallation(repository.installationId));
  if (!repository || !installation || installation.suspendedAt) return refuse('repository_id');

  const ref = `refs/heads/${taskBranch(Number(request.issue), request.task_id)}`;
  if (claims['ref'] !== ref) return refuse('ref');

  const lookup = await findAssignmentTarget(engine.store, repository.id, request);
  if (!lookup.ok) return refuse(lookup.code);
  const { target } = lookup;
  const config = target.run.config as RepoConfig;
  if (!namesWorkflow(claims['workflow_ref'], repository, config.worker.workflow, ref))
    return refuse('workflow_ref');

  const { attempt } = target;
  if (attempt.phase === 'completed') return refuse('run_finished');
  const runId = digits.safeParse(claims['run_id']);
  if (!runId.success) return refuse('run_id');
  // The attempt is the run's first attempt: a re-run of its jobs (`run_attempt` 2 and on, by
  // anyone with write access or a workflow that may write actions) starts after the run ended,
  // and so after the attempt, whether or not the coordinator has handled that end yet
  // (docs/worker.md, "What the agent spent").
  if (claims['run_attempt'] !== FIRST_RUN_ATTEMPT) return refuse('run_attempt');

  const scope = await loadRunScope(engine, target.run);
  let recorded = attempt.workflowRunId;
  if (recorded === null) {
    // The dispatch answer named no run (GitHub Enterprise Server up to 3.19): the run is the
    // one the dispatch started, found by event, branch, run-name and creation time, and
    // recorded now as the sweep would.
    const found = await findDispatchedRun(scope, {
      issueNumber: target.run.issueNumber,
      taskKey: request.task_id,
      attempt: attempt.attempt,
      intentAt: attempt.intentAt,
    });
    if (!found) return refuse('run_id');
    await onWorkflowRun(engine, repository.id, found, scope);
    if (found.status === 'completed') return refuse('run_finished');
    recorded = found.id;
  }
  if (String(recorded) !== runId.data) return refuse('run_id');
  // Our record of the attempt may lag a missed workflow_run event: GitHub says whether the run
  // is still going, so a token replayed after its run ended gets nothing.
  const current = await scope.port.workflowRun(scope.repo, recorded);
  if (!current) return refuse('run_id');
  if (current.status === 'completed') return refuse('run_finished');
  // GitHub shows the run going again: a re-run, so the first attempt's jobs, this token's, ended.
  if ((current.runAttempt ?? 1) > 1) return refuse('run_attempt');
  return {
    ok: true,
    grant: {
      scope,
      target,
      repository: {
        id: repository.id,
        installationId: repository.installationId,
        defaultBranch: repository.defaultBranch,
      },
      workflowRunId: recorded,
    },
  };
}

/** `<owner>/<repo>/.github/workflows/<file>@<ref>`; GitHub's owner and repository names ignore case. */
function namesWorkflow(
  claim: unknown,
  repository: { owner: string; name: string },
  workflow: string,
  ref: string,
): boolean {
  if (typeof claim !== 'string') return false;
  const path = `/.github/workflows/${workflow}@${ref}`;
  if (!claim.endsWith(path)) return false;
  const fullName = claim.slice(0, -path.length);
  return fullName.toLowerCase() === `${repository.owner}/${repository.name}`.toLowerCase();
}
