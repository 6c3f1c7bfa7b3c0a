import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import type { Core } from '../core.js';
import { randomToken } from '../ids.js';
import type { Run } from '../model.js';
import { findRun } from '../ops/actions.js';
import type { ApiResponse } from '../server/http.js';

// GitHub Actions' OIDC provider as GitHub Enterprise Server runs it, at
// <server>/_services/token (docs/: the worker's assignment checks these tokens). Claims follow
// GitHub's "OpenID Connect reference"; every custom claim is a string, as GitHub signs them.

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export interface MintOptions {
  // Default: the repository owner's URL, GitHub's default audience.
  audience?: string;
  // Merged over the documented claims; a claim set to undefined is left out.
  claims?: Record<string, unknown>;
  // Merged over the protected header ({ alg: 'RS256', typ: 'JWT', kid }); alg 'none' yields
  // an unsigned token.
  header?: Record<string, unknown>;
  // 'unpublished' signs with a key that is in no JWKS (a forged token).
  key?: 'current' | 'unpublished' | CryptoKey;
  // Seconds from issue to expiry (default 300).
  lifetimeSeconds?: number;
  // Issue time in seconds since the epoch (default now).
  issuedAt?: number;
}

const DEFAULT_LIFETIME_S = 300;
// GitHub's tokens are valid from five minutes before they are issued (clock skew).
const NOT_BEFORE_SKEW_S = 300;

const CLAIMS_SUPPORTED = [
  'sub',
  'aud',
  'exp',
  'iat',
  'iss',
  'jti',
  'nbf',
  'ref',
  'sha',
  'repository',
  'repository_id',
  'repository_owner',
  'repository_owner_id',
  'run_id',
  'run_number',
  'run_attempt',
  'actor',
  'actor_id',
  'workflow',
  'workflow_ref',
  'workflow_sha',
  'head_ref',
  'base_ref',
  'event_name',
  'ref_type',
  'ref_protected',
  'environment',
  'job_workflow_ref',
  'job_workflow_sha',
  'repository_visibility',
  'runner_environment',
];

async function newKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomUUID();
  const jwk = await exportJWK(publicKey);
  return { kid, privateKey, publicJwk: { ...jwk, kid, alg: 'RS256', use: 'sig' } };
}

export class OidcIssuer {
  private published: SigningKey[];
  private readonly requestTokens = new Map<number, string>();

  private constructor(
    private readonly core: Core,
    first: SigningKey,
  ) {
    this.published = [first];
  }

  static async create(core: Core): Promise<OidcIssuer> {
    return new OidcIssuer(core, await newKey());
  }

  get issuer(): string {
    return `${this.core.url}/_services/token`;
  }

  get jwksUrl(): string {
    return `${this.issuer}/.well-known/jwks`;
  }

  get discoveryUrl(): string {
    return `${this.issuer}/.well-known/openid-configuration`;
  }

  /** The kid new tokens are signed with. */
  get currentKid(): string {
    return this.current().kid;
  }

  /** ACTIONS_ID_TOKEN_REQUEST_URL for a run (it already has a query, as the runner's does). */
  requestUrl(runId: number): string {
    return `${this.core.url}/_services/pipelines/runs/${runId}/idtoken?api-version=2.0`;
  }

  /** ACTIONS_ID_TOKEN_REQUEST_TOKEN for a run: one per run, valid while the run is not over. */
  requestToken(runId: number): string {
    this.runOf(runId);
    let token = this.requestTokens.get(runId);
    if (!token) {
      token = randomToken('idreq');
      this.requestTokens.set(runId, token);
    }
    return token;
  }

  /** A new signing key; the old one stays in the JWKS unless `retireOld`, as GitHub overlaps them. */
  async rotateKey(options: { retireOld?: boolean } = {}): Promise<string> {
    const key = await newKey();
    this.published = options.retireOld ? [key] : [key, ...this.published];
    this.core.changed('oidc-key', { kid: key.kid });
    return key.kid;
  }

  jwks(): { keys: JWK[] } {
    return { keys: this.published.map((k) => k.publicJwk) };
  }

  discovery(): Record<string, unknown> {
    return {
      issuer: this.issuer,
      jwks_uri: this.jwksUrl,
      subject_types_supported: ['public', 'pairwise'],
      response_types_supported: ['id_token'],
      claims_supported: CLAIMS_SUPPORTED,
      id_token_signing_alg_values_supported: ['RS256'],
      scopes_supported: ['openid'],
    };
  }

  /** The documented claims of a token for `runId` (strings, as GitHub signs them). */
  claims(runId: number, audience?: string, issuedAt?: number): Record<string, unknown> {
    const run = this.runOf(runId);
    const repo = run.repo;
    const ref = `refs/${run.refType === 'tag' ? 'tags' : 'heads'}/${run.headBranch}`;
    const workflowRef = `${repo.fullName}/.github/workflows/${run.workflow.file}@${ref}`;
    const iat = issuedAt ?? Math.floor(Date.now() / 1000);
    return {
      jti: randomUUID(),
      sub: `repo:${repo.fullName}:ref:${ref}`,
      aud: audience ?? `${this.core.url}/${repo.owner.login}`,
      ref,
      sha: run.headSha,
      repository: repo.fullName,
      repository_owner: repo.owner.login,
      repository_owner_id: String(repo.owner.id),
      run_id: String(run.id),
      run_number: String(run.runNumber),
      run_attempt: String(run.runAttempt),
      repository_visibility: repo.private ? 'private' : 'public',
      repository_id: String(repo.id),
      actor_id: String(run.actor.id),
      actor: run.actor.login,
      workflow: run.workflow.name,
      head_ref: '',
      base_ref: '',
      event_name: run.event,
      ref_protected: String(run.refType === 'branch' && repo.protection.has(run.headBranch)),
      ref_type: run.refType,
      workflow_ref: workflowRef,
      workflow_sha: run.headSha,
      job_workflow_ref: workflowRef,
      job_workflow_sha: run.headSha,
      runner_environment: 'github-hosted',
      iss: this.issuer,
      nbf: iat - NOT_BEFORE_SKEW_S,
      exp: iat + DEFAULT_LIFETIME_S,
      iat,
    };
  }

  /** A token for `runId` as the request endpoint would issue it, with test overrides. */
  async mint(runId: number, options: MintOptions = {}): Promise<string> {
    const claims = this.claims(runId, options.audience, options.issuedAt);
    if (options.lifetimeSeconds !== undefined)
      claims['exp'] = Number(claims['iat']) + options.lifetimeSeconds;
    for (const [k, v] of Object.entries(options.claims ?? {})) {
      if (v === undefined) delete claims[k];
      else claims[k] = v;
    }
    const header: Record<string, unknown> = {
      alg: 'RS256',
      typ: 'JWT',
      kid: this.current().kid,
      ...options.header,
    };
    if (header['alg'] === 'none') {
      const part = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
      return `${part(header)}.${part(claims)}.`;
    }
    const key =
      options.key === 'unpublished'
        ? (await newKey()).privateKey
        : options.key && options.key !== 'current'
          ? options.key
          : this.current().privateKey;
    return new SignJWT(claims)
      .setProtectedHeader(header as { alg: string } & Record<string, unknown>)
      .sign(key);
  }

  // GET <issuer>/.well-known/{jwks,openid-configuration} and the runner's token request.
  async answer(
    method: string,
    url: URL,
    authorization: string | undefined,
  ): Promise<ApiResponse | null> {
    const path = url.pathname;
    if (method === 'GET' && path === new URL(this.jwksUrl).pathname)
      return { status: 200, body: this.jwks() };
    if (method === 'GET' && path === new URL(this.discoveryUrl).pathname)
      return { status: 200, body: this.discovery() };
    const m = /^\/_services\/pipelines\/runs\/(\d+)\/idtoken$/.exec(path);
    if (!m) return null;
    if (method !== 'GET') return { status: 405, body: { message: 'Method not allowed' } };
    const runId = Number(m[1]);
    const run = findRun(this.core, runId);
    const expected = this.requestTokens.get(runId);
    const given = /^bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    // The request token is the job's credential: it stops working when the job ends.
    if (!run || !expected || given !== expected || run.status === 'completed') {
      return { status: 401, body: { message: 'Unauthorized: the request token is not valid' } };
    }
    const audience = url.searchParams.get('audience') ?? undefined;
    return {
      status: 200,
      body: { value: await this.mint(runId, audience ? { audience } : {}) },
    };
  }

  private current(): SigningKey {
    const key = this.published[0];
    if (!key) throw new Error('github double: OIDC issuer has no key');
    return key;
  }

  private runOf(runId: number): Run {
    const run = findRun(this.core, runId);
    if (!run) throw new Error(`github double: no workflow run ${runId}`);
    return run;
  }
}
