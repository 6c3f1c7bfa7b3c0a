import { setTimeout as delay } from 'node:timers/promises';
import {
  ASSIGNMENT_PATH,
  assignmentResponseSchema,
  type AssignmentRequest,
  type AssignmentResponse,
} from '../protocol/assignment.js';
import type { WorkerIo } from './io.js';

/** Getting the assignment failed; the message says which step and what to do about it. */
export class AssignmentError extends Error {
  constructor(
    message: string,
    /** The coordinator's answer, when it refused the request. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Where the worker gets its task and its GitHub token. */
export interface Coordinator {
  requestAssignment(): Promise<AssignmentResponse>;
}

export interface HttpCoordinatorOptions {
  env: NodeJS.ProcessEnv;
  coordinatorUrl: string;
  request: AssignmentRequest;
  io: WorkerIo;
  /** Waits before the second, third… try of a request that met a network error or a 5xx. */
  retryDelaysMs?: number[];
}

const RETRYABLE = new Set([429, 500, 502, 503, 504]);

/**
 * The coordinator over HTTP: an Actions OIDC token with the coordinator's URL as audience,
 * then `POST <coordinator_url>/api/worker/assignment` (README: "How the worker gets its task").
 */
export function httpCoordinator(options: HttpCoordinatorOptions): Coordinator {
  const delays = options.retryDelaysMs ?? [1_000, 3_000];
  return {
    async requestAssignment() {
      const idToken = await requestIdToken(options.env, options.coordinatorUrl, delays);
      // Workflow commands: the runner replaces these values with *** in the log from here on.
      options.io.out(`::add-mask::${idToken}\n`);
      const assignment = await postAssignment(options, idToken, delays);
      options.io.out(`::add-mask::${assignment.token}\n`);
      return assignment;
    },
  };
}

/**
 * What @actions/core's getIDToken does: GitHub gives a job with `id-token: write` a request
 * URL (already holding a query string) and a bearer token for it, and answers `{"value": jwt}`.
 */
export async function requestIdToken(
  env: NodeJS.ProcessEnv,
  audience: string,
  retryDelaysMs: number[] = [],
): Promise<string> {
  const url = env.ACTIONS_ID_TOKEN_REQUEST_URL;
  const bearer = env.ACTIONS_ID_TOKEN_REQUEST_TOKEN;
  if (!url || !bearer) {
    throw new AssignmentError(
      `the job cannot request an OIDC token (${url ? 'ACTIONS_ID_TOKEN_REQUEST_TOKEN' : 'ACTIONS_ID_TOKEN_REQUEST_URL'} is unset): ` +
        'give the worker workflow `permissions: { contents: read, id-token: write }`',
    );
  }
  const response = await send(
    `${url}&audience=${encodeURIComponent(audience)}`,
    {
      headers: {
        Authorization: `Bearer ${bearer}`,
        Accept: 'application/json',
        'User-Agent': 'actions/oidc-client',
      },
    },
    retryDelaysMs,
    (cause) => `could not reach GitHub's OIDC token endpoint: ${cause}`,
  );
  const text = await response.text();
  if (!response.ok)
    throw new AssignmentError(`GitHub refused the OIDC token (${response.status}): ${clip(text)}`);
  const value = (parseJson(text) as { value?: unknown } | undefined)?.value;
  if (typeof value !== 'string' || value === '')
    throw new AssignmentError("GitHub's OIDC answer holds no token (no `value` field)");
  return value;
}

async function postAssignment(
  options: HttpCoordinatorOptions,
  idToken: string,
  retryDelaysMs: number[],
): Promise<AssignmentResponse> {
  const url = `${options.coordinatorUrl}${ASSIGNMENT_PATH}`;
  const response = await send(
    url,
    {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${idToken}`,
        'Content-Type': 'application/json',
        Accept: 'application/json',
        'User-Agent': 'agent-coordinator-worker',
      },
      body: JSON.stringify(options.request),
    },
    retryDelaysMs,
    (cause) => `could not reach the coordinator at ${url}: ${cause}`,
  );
  const text = await response.text();
  const body = parseJson(text);
  if (!response.ok) {
    const error = (body as { error?: unknown } | undefined)?.error;
    const shown = typeof error === 'string' ? JSON.stringify({ error }) : clip(text);
    throw new AssignmentError(
      `the coordinator refused the assignment (${response.status} from ${url}): ${shown}`,
      response.status,
    );
  }
  const parsed = assignmentResponseSchema.safeParse(body);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`);
    throw new AssignmentError(
      `the coordinator's answer from ${url} is not an assignment: ${problems.join('; ')}`,
    );
  }
  return parsed.data;
}

async function send(
  url: string,
  init: RequestInit,
  retryDelaysMs: number[],
  unreachable: (cause: string) => string,
): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const wait = retryDelaysMs[attempt];
    try {
      const response = await fetch(url, init);
      if (wait === undefined || !RETRYABLE.has(response.status)) return response;
      await response.body?.cancel();
    } catch (error) {
      if (wait === undefined) throw new AssignmentError(unreachable(describe(error)));
    }
    await delay(wait);
  }
}

// undici reports "fetch failed" and keeps the useful part (ECONNREFUSED, ENOTFOUND) in cause.
function describe(error: unknown): string {
  const e = error as { message?: string; cause?: { code?: string; message?: string } };
  const cause = e.cause?.code ?? e.cause?.message;
  return cause ? `${e.message ?? 'error'} (${cause})` : (e.message ?? String(error));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const clip = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 500) || '(empty body)';

/** The assignment's token, asked for again before it runs out. */
export class WorkerCredentials {
  constructor(
    private readonly coordinator: Coordinator,
    private current: AssignmentResponse,
    private readonly now: () => number = Date.now,
  ) {}

  get token(): string {
    return this.current.token;
  }

  /**
   * An installation token lives an hour and a job may run for hours: before a step that
   * needs the token (a push, the PR), make sure it outlives that step by `marginMs`.
   */
  async ensureFresh(marginMs = 10 * 60_000): Promise<boolean> {
    const expires = Date.parse(this.current.expires_at);
    if (Number.isFinite(expires) && expires - this.now() > marginMs) return false;
    this.current = await this.coordinator.requestAssignment();
    return true;
  }
}
