import type { Logger } from 'pino';
import type { Engine } from '../engine/context.js';
import type { PublicUrl } from '../github/public-url.js';
import type { Metrics } from '../metrics.js';
import {
  assignmentRequestSchema,
  type AssignmentRefusal,
  type AssignmentRequest,
  type AssignmentResponse,
  usageOfRequest,
} from '../protocol/assignment.js';
import { authorizeAssignment } from './authorize.js';
import type { WorkerTokenMinter } from './installation-token.js';
import type { OidcVerifier } from './oidc.js';
import { outcomeOf, REFUSALS, type RefusalCode } from './refusals.js';
import { assignmentTextOf, modeOf } from './target.js';

export interface AssignmentDeps {
  engine: Engine;
  publicUrl: PublicUrl;
  verify: OidcVerifier;
  mintToken: WorkerTokenMinter;
  metrics: Pick<Metrics, 'workerAssignments'>;
  log: Logger;
}

export interface AssignmentAnswer {
  status: number;
  body: AssignmentResponse | AssignmentRefusal;
}

/**
 * One worker's request: the token first (401), then the body (400), then whether the token
 * belongs to the attempt the body names (403), then the installation token. Neither token
 * is ever logged.
 */
export async function answerAssignment(
  deps: AssignmentDeps,
  authorization: string | undefined,
  rawBody: string,
): Promise<AssignmentAnswer> {
  const { log } = deps;
  const refuse = (code: RefusalCode, context: Record<string, unknown> = {}): AssignmentAnswer => {
    const { status, error } = REFUSALS[code];
    deps.metrics.workerAssignments.inc({ outcome: outcomeOf(code), claim: code });
    log.warn({ claim: code, status, ...context }, `worker assignment refused: ${error}`);
    return { status, body: { error } };
  };

  const publicUrl = await deps.publicUrl.current();
  if (!publicUrl) return refuse('public_url');
  const bearer = /^Bearer +([\w-]+\.[\w-]*\.[\w-]*)$/i.exec(authorization ?? '');
  if (!bearer?.[1]) return refuse('authorization');
  // `core.getIDToken(audience)` sends the audience as given; a trailing slash is the same place.
  const verified = await deps.verify(bearer[1], [publicUrl, `${publicUrl}/`]);
  if (!verified.ok) return refuse(verified.code);

  const request = parseRequest(rawBody);
  if (!request) return refuse('body', { run_id: verified.claims['run_id'] });
  const authorized = await authorizeAssignment(deps.engine, verified.claims, request);
  if (!authorized.ok) return refuse(authorized.code, authorized.context);
  const { grant } = authorized;
  // The publish job says what the agent spent: the attempt is charged it (docs/worker.md,
  // "What the agent spent"). Only the run's jobs with the OIDC token, which run no code of the
  // agent's, can say it.
  const usage = usageOfRequest(request);
  if (usage) await deps.engine.store.attempts.chargeReported(grant.target.attempt.id, usage);

  let minted, appLogin;
  try {
    // The App's login tells the worker which open PR of the task branch is the task's.
    [minted, appLogin] = await Promise.all([
      deps.mintToken(grant.repository.installationId, grant.repository.id),
      deps.engine.appLogin(),
    ]);
  } catch (error) {
    // Only the message: Octokit's error carries the request, and the answer the token.
    log.error(
      { error: (error as Error).message, installation: grant.repository.installationId },
      'worker assignment: no installation token or App login',
    );
    return refuse('github', { repository_id: grant.repository.id, run_id: grant.workflowRunId });
  }
  deps.metrics.workerAssignments.inc({ outcome: 'granted', claim: '' });
  log.info(
    {
      repository_id: grant.repository.id,
      run_id: grant.workflowRunId,
      issue: request.issue,
      task: request.task_id,
      attempt: request.attempt,
      expires_at: minted.expiresAt,
    },
    'worker assignment granted',
  );
  return {
    status: 200,
    body: {
      token: minted.token,
      expires_at: minted.expiresAt,
      task_id: request.task_id,
      issue: request.issue,
      attempt: request.attempt,
      mode: modeOf(grant.target),
      ...assignmentTextOf(grant.target, grant.repository.defaultBranch),
      app_login: appLogin,
    },
  };
}

function parseRequest(rawBody: string): AssignmentRequest | undefined {
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch {
    return undefined;
  }
  const parsed = assignmentRequestSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}
