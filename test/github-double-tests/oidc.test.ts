import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WORKER_WORKFLOW } from '../github-double/index.js';
import { expectClean, startWorld, stopWorld, type World } from './helpers.js';

const AUDIENCE = 'https://coordinator.example';

// What @actions/core's getIDToken does: append &audience=, send the request token as Bearer.
async function requestIdToken(
  env: Record<string, string>,
  audience: string,
  requestToken = env['ACTIONS_ID_TOKEN_REQUEST_TOKEN'],
): Promise<Response> {
  const url = `${env['ACTIONS_ID_TOKEN_REQUEST_URL']}&audience=${encodeURIComponent(audience)}`;
  return fetch(url, {
    headers: { authorization: `Bearer ${requestToken}`, accept: 'application/json' },
  });
}

describe('github double: Actions OIDC', () => {
  let w: World;
  let runId: number;

  beforeEach(async () => {
    w = await startWorld();
    w.double.setWorker(null);
    await w.double.setPermission(w.repo, 'alice', 'write');
    await w.octokit.request('POST /repos/{owner}/{repo}/git/refs', {
      owner: 'acme',
      repo: 'widgets',
      ref: 'refs/heads/agent/7/api',
      sha: w.double.branch(w.repo, 'main')!.sha,
    });
    const { data } = await w.octokit.request(
      'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
      {
        owner: 'acme',
        repo: 'widgets',
        workflow_id: WORKER_WORKFLOW,
        ref: 'agent/7/api',
        inputs: {
          task_id: 'api',
          issue: '7',
          attempt: '2',
          mode: 'work',
          coordinator_url: 'http://coordinator.test',
        },
        return_run_details: true,
      },
    );
    runId = (data as { workflow_run_id: number }).workflow_run_id;
  });

  afterEach(async () => {
    await stopWorld(w);
    expectClean(w.double);
  });

  it('publishes discovery and a JWKS that verifies the tokens it issues', async () => {
    const { double } = w;
    const discovery = (await (await fetch(double.oidc.discoveryUrl)).json()) as Record<
      string,
      unknown
    >;
    expect(discovery).toMatchObject({
      issuer: `${double.url}/_services/token`,
      jwks_uri: `${double.url}/_services/token/.well-known/jwks`,
      id_token_signing_alg_values_supported: ['RS256'],
    });
    const jwks = createRemoteJWKSet(new URL(String(discovery['jwks_uri'])));
    const token = await double.oidc.mint(runId, { audience: AUDIENCE });
    const { payload, protectedHeader } = await jwtVerify(token, jwks, {
      issuer: double.oidc.issuer,
      audience: AUDIENCE,
    });
    expect(protectedHeader).toMatchObject({
      alg: 'RS256',
      typ: 'JWT',
      kid: double.oidc.currentKid,
    });
    expect(payload['run_id']).toBe(String(runId));
  });

  it('signs the claims GitHub documents, with GitHub string values', async () => {
    const { double } = w;
    const token = await double.oidc.mint(runId, { audience: AUDIENCE });
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(double.oidc.jwksUrl)));
    const headSha = String(double.run(runId)!['head_sha']);
    const repo = (
      await w.octokit.request('GET /repos/{owner}/{repo}', {
        owner: 'acme',
        repo: 'widgets',
      })
    ).data;
    const workflowRef = `acme/widgets/.github/workflows/${WORKER_WORKFLOW}@refs/heads/agent/7/api`;
    expect(payload).toMatchObject({
      sub: 'repo:acme/widgets:ref:refs/heads/agent/7/api',
      aud: AUDIENCE,
      iss: double.oidc.issuer,
      repository: 'acme/widgets',
      repository_id: String(repo.id),
      repository_owner: 'acme',
      repository_owner_id: String(repo.owner.id),
      repository_visibility: 'public',
      run_id: String(runId),
      run_number: '1',
      run_attempt: '1',
      actor: w.double.botLogin,
      workflow: 'agent-coordinator worker',
      workflow_ref: workflowRef,
      workflow_sha: headSha,
      job_workflow_ref: workflowRef,
      job_workflow_sha: headSha,
      ref: 'refs/heads/agent/7/api',
      ref_type: 'branch',
      ref_protected: 'false',
      sha: headSha,
      event_name: 'workflow_dispatch',
      head_ref: '',
      base_ref: '',
      runner_environment: 'github-hosted',
    });
    expect(typeof payload['actor_id']).toBe('string');
    expect(typeof payload['jti']).toBe('string');
    expect(payload['nbf']).toBeLessThanOrEqual(payload['iat']!);
    expect(payload['exp']).toBeGreaterThan(payload['iat']!);
  });

  it('answers the runner token request with {value}, and refuses a wrong or ended request token', async () => {
    const { double } = w;
    const env = await double.actionsEnv(runId, { idToken: true });
    const ok = await requestIdToken(env, AUDIENCE);
    expect(ok.status).toBe(200);
    const { value } = (await ok.json()) as { value: string };
    const { payload } = await jwtVerify(value, createRemoteJWKSet(new URL(double.oidc.jwksUrl)), {
      audience: AUDIENCE,
    });
    expect(payload['run_id']).toBe(String(runId));

    expect((await requestIdToken(env, AUDIENCE, 'not-the-request-token')).status).toBe(401);
    expect((await fetch(`${env['ACTIONS_ID_TOKEN_REQUEST_URL']}`)).status).toBe(401);
    await double.completeWorkflowRun(runId, 'success');
    expect((await requestIdToken(env, AUDIENCE)).status).toBe(401);
  });

  it('defaults the audience to the repository owner URL', async () => {
    const token = await w.double.oidc.mint(runId);
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(w.double.oidc.jwksUrl)));
    expect(payload['aud']).toBe(`${w.double.url}/acme`);
  });

  it('rotates keys: the new kid is published beside the old one until the old one is retired', async () => {
    const { double } = w;
    const jwksUrl = new URL(double.oidc.jwksUrl);
    const before = await double.oidc.mint(runId, { audience: AUDIENCE });
    const oldKid = decodeProtectedHeader(before).kid;
    const newKid = await double.oidc.rotateKey();
    expect(newKid).not.toBe(oldKid);
    const after = await double.oidc.mint(runId, { audience: AUDIENCE });
    expect(decodeProtectedHeader(after).kid).toBe(newKid);
    const kids = ((await (await fetch(jwksUrl)).json()) as { keys: { kid: string }[] }).keys.map(
      (k) => k.kid,
    );
    expect(kids).toEqual([newKid, oldKid]);
    await expect(jwtVerify(before, createRemoteJWKSet(jwksUrl))).resolves.toBeDefined();
    await double.oidc.rotateKey({ retireOld: true });
    await expect(jwtVerify(before, createRemoteJWKSet(jwksUrl))).rejects.toThrow();
  });

  it('mints forged and tampered tokens for the receiver to refuse', async () => {
    const { double } = w;
    const jwks = createRemoteJWKSet(new URL(double.oidc.jwksUrl));
    const forged = await double.oidc.mint(runId, { audience: AUDIENCE, key: 'unpublished' });
    await expect(jwtVerify(forged, jwks)).rejects.toThrow(/signature/);
    const unsigned = await double.oidc.mint(runId, { header: { alg: 'none' } });
    await expect(jwtVerify(unsigned, jwks)).rejects.toThrow();
    const expired = await double.oidc.mint(runId, {
      audience: AUDIENCE,
      issuedAt: Math.floor(Date.now() / 1000) - 3600,
    });
    await expect(jwtVerify(expired, jwks)).rejects.toThrow(/exp/);
    const other = await double.oidc.mint(runId, {
      audience: AUDIENCE,
      claims: { event_name: 'push', ref_protected: undefined },
    });
    const { payload } = await jwtVerify(other, jwks);
    expect(payload['event_name']).toBe('push');
    expect(payload).not.toHaveProperty('ref_protected');
  });
});
