/**
 * Every answer but a granted assignment, in one place (docs/worker.md, "Assignment"). The key
 * is the claim (or part of the request) that failed: it labels the refusal in /metrics and in
 * the log, and the message names it first, so a worker's log says which check to look at.
 * 401: the token itself is bad. 403: a good token for something else. 400: the body is not
 * the three identifiers. 503/502: the coordinator cannot check or cannot mint right now.
 */
export const REFUSALS = {
  // The coordinator cannot check a token yet.
  public_url: {
    status: 503,
    error:
      "public_url: the coordinator's public URL is unknown (PUBLIC_URL unset and the App has no webhook URL), so no audience can be checked",
  },
  jwks: { status: 503, error: "jwks: the issuer's signing keys could not be fetched; try again" },
  // The token itself is bad.
  authorization: {
    status: 401,
    error: 'authorization: expected "Bearer <GitHub Actions OIDC token>"',
  },
  token: { status: 401, error: 'token: not a well-formed signed JWT' },
  alg: { status: 401, error: 'alg: only RS256 tokens are accepted' },
  kid: { status: 401, error: "kid: no key of the issuer's published JWKS has this key id" },
  signature: {
    status: 401,
    error: "signature: does not verify against the issuer's published JWKS",
  },
  exp: { status: 401, error: 'exp: the token has expired (or has no expiry)' },
  nbf: { status: 401, error: 'nbf: the token is not valid yet' },
  iat: { status: 401, error: 'iat: the issue time is not a valid time' },
  aud: { status: 401, error: "aud: the audience is not this coordinator's public URL" },
  iss: { status: 401, error: 'iss: not issued by GitHub Actions' },
  // Not the three identifiers.
  body: {
    status: 400,
    error: 'body: expected the JSON object {"task_id", "issue", "attempt"} with string values',
  },
  // A good token, for something else.
  event_name: { status: 403, error: 'event_name: the run was not started by workflow_dispatch' },
  repository_id: {
    status: 403,
    error: "repository_id: not a repository of one of this App's installations",
  },
  ref: {
    status: 403,
    error: 'ref: not refs/heads/agent/<issue>/<task_id> for the task and issue in the body',
  },
  workflow_ref: {
    status: 403,
    error: "workflow_ref: not the repository's configured worker workflow on the task's branch",
  },
  issue: { status: 403, error: 'issue: the coordinator has no active run for this issue' },
  task_id: { status: 403, error: "task_id: no such task in the issue's run" },
  attempt: { status: 403, error: "attempt: not the task's latest attempt" },
  run_id: {
    status: 403,
    error: 'run_id: not the workflow run the coordinator dispatched for this attempt',
  },
  run_attempt: {
    status: 403,
    error:
      "run_attempt: a re-run of the workflow run's jobs; the attempt ended with the run's first attempt",
  },
  run_finished: {
    status: 403,
    error: 'run_id: the workflow run of this attempt has finished',
  },
  // GitHub would not mint the token, or minted more than was asked for.
  github: {
    status: 502,
    error: "github: the installation token could not be created with the worker's scope; try again",
  },
} as const satisfies Record<string, { status: number; error: string }>;

export type RefusalCode = keyof typeof REFUSALS;

/** How an answer is counted: refused (4xx), unavailable (503) or failed (502). */
export function outcomeOf(code: RefusalCode): 'refused' | 'unavailable' | 'failed' {
  const { status } = REFUSALS[code];
  return status === 503 ? 'unavailable' : status >= 500 ? 'failed' : 'refused';
}
