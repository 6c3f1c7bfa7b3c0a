import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  exportJWK,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from 'jose';

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/**
 * A stand-in for GitHub Actions' OIDC issuer: serves its JWKS over HTTP, signs tokens with
 * its current key, and rotates keys on demand, so the app's verifier meets what it meets in
 * production (a remote key set that changes).
 */
export interface TestOidcIssuer {
  /** The `iss` of its tokens, and the base of `/.well-known/jwks`. */
  readonly issuer: string;
  readonly jwksUrl: string;
  /** How many times the key set was fetched. */
  readonly jwksFetches: number;
  /** The current key (kid, private key, public JWK). */
  readonly key: SigningKey;
  sign(
    claims: JWTPayload,
    options?: { key?: SigningKey; expiresIn?: string | number },
  ): Promise<string>;
  /** A key the issuer does not publish (for a token "signed by someone else"). */
  strangerKey(kid?: string): Promise<SigningKey>;
  /** Publish a new key in place of the current one. */
  rotate(): Promise<SigningKey>;
  close(): Promise<void>;
}

async function newKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, privateKey, publicJwk };
}

export async function startOidcIssuer(): Promise<TestOidcIssuer> {
  let key = await newKey('key-1');
  let published = [key];
  let fetches = 0;
  let generation = 1;
  const server: Server = createServer((req, res) => {
    if (req.url === '/.well-known/jwks') {
      fetches++;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ keys: published.map((k) => k.publicJwk) }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    jwksUrl: `${issuer}/.well-known/jwks`,
    get jwksFetches() {
      return fetches;
    },
    get key() {
      return key;
    },
    async sign(claims, options = {}) {
      const signing = options.key ?? key;
      const jwt = new SignJWT({ iss: issuer, ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: signing.kid, typ: 'JWT' })
        .setIssuedAt()
        .setNotBefore('0s');
      if (claims.exp === undefined) jwt.setExpirationTime(options.expiresIn ?? '5m');
      return jwt.sign(signing.privateKey);
    },
    strangerKey: (kid = key.kid) => newKey(kid),
    async rotate() {
      key = await newKey(`key-${++generation}`);
      published = [key];
      return key;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
