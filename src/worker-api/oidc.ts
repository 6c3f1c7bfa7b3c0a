import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { RefusalCode } from './refusals.js';

/** github.com's Actions token issuer. */
export const GITHUB_ACTIONS_ISSUER = 'https://token.actions.githubusercontent.com';

export interface OidcIssuer {
  /** The `iss` every accepted token carries. */
  issuer: string;
  /** Where its signing keys are published. */
  jwksUrl: string;
  /**
   * How long after a fetch an unknown `kid` is refused without fetching the keys again
   * (jose's cooldown; default 30 s). A rotated key is picked up on the first token past it.
   */
  cooldownMs?: number;
}

/**
 * GitHub's Actions issuer: token.actions.githubusercontent.com, or on GitHub Enterprise Server
 * `https://HOSTNAME/_services/token` (GitHub's OpenID Connect reference), which publishes its
 * keys at `<issuer>/.well-known/jwks` as github.com does.
 */
export function actionsIssuer(gheOrigin?: string): OidcIssuer {
  const issuer = gheOrigin ? `${gheOrigin}/_services/token` : GITHUB_ACTIONS_ISSUER;
  return { issuer, jwksUrl: `${issuer}/.well-known/jwks` };
}

export type Verification = { ok: true; claims: JWTPayload } | { ok: false; code: RefusalCode };

export type OidcVerifier = (token: string, audiences: string[]) => Promise<Verification>;

/** Clocks differ between GitHub and here; a minute is far below a token's lifetime. */
const CLOCK_TOLERANCE_S = 60;

class KeysUnavailable extends Error {}

export function createOidcVerifier(issuer: OidcIssuer): OidcVerifier {
  // jose caches the set (10 minutes) and fetches it again for an unknown kid once the cooldown
  // has passed: that is how a key GitHub rotated in is found.
  const remote = createRemoteJWKSet(new URL(issuer.jwksUrl), {
    cooldownDuration: issuer.cooldownMs ?? 30_000,
    timeoutDuration: 5_000,
  });
  const keys: JWTVerifyGetKey = async (header, token) => {
    try {
      return await remote(header, token);
    } catch (error) {
      if (
        error instanceof errors.JWKSNoMatchingKey ||
        error instanceof errors.JWKSMultipleMatchingKeys ||
        error instanceof errors.JOSENotSupported
      )
        throw error;
      // Fetching or reading the set failed: the issuer's trouble, not the token's.
      throw new KeysUnavailable('JWKS unavailable', { cause: error });
    }
  };
  return async (token, audiences) => {
    try {
      const { payload } = await jwtVerify(token, keys, {
        // Only what GitHub signs with: `none`, and HS256 keyed with the public key, never pass.
        algorithms: ['RS256'],
        issuer: issuer.issuer,
        audience: audiences,
        requiredClaims: ['exp'],
        clockTolerance: CLOCK_TOLERANCE_S,
      });
      return { ok: true, claims: payload };
    } catch (error) {
      return { ok: false, code: refusalOf(error) };
    }
  };
}

function refusalOf(error: unknown): RefusalCode {
  if (error instanceof KeysUnavailable) return 'jwks';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'alg';
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
    return 'kid';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'signature';
  if (error instanceof errors.JWTExpired) return 'exp';
  if (error instanceof errors.JWTClaimValidationFailed) {
    const claim = error.claim;
    if (claim === 'aud' || claim === 'iss' || claim === 'nbf' || claim === 'iat' || claim === 'exp')
      return claim;
  }
  // Anything else jose refuses (bad encoding, not JSON, a key of another type) is a bad token.
  return 'token';
}
