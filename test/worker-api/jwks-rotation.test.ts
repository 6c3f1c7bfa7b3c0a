import { afterEach, describe, expect, it } from 'vitest';
import { startOidcIssuer, type TestOidcIssuer } from '../helpers/oidc-issuer.js';
import { createOidcVerifier } from '../../src/worker-api/oidc.js';

const AUDIENCE = ['https://coordinator.example'];

describe('the OIDC verifier and a rotating issuer', () => {
  let issuer: TestOidcIssuer | undefined;
  afterEach(async () => issuer?.close());

  it('fetches the key set once, and again only for a kid it has not seen', async () => {
    issuer = await startOidcIssuer();
    const verify = createOidcVerifier({
      issuer: issuer.issuer,
      jwksUrl: issuer.jwksUrl,
      cooldownMs: 0,
    });
    const before = await issuer.sign({ aud: AUDIENCE[0] });
    expect(await verify(before, AUDIENCE)).toMatchObject({ ok: true });
    expect(await verify(before, AUDIENCE)).toMatchObject({ ok: true });
    expect(issuer.jwksFetches).toBe(1);

    const rotated = await issuer.rotate();
    const after = await issuer.sign({ aud: AUDIENCE[0] });
    expect(await verify(after, AUDIENCE)).toMatchObject({ ok: true, claims: { aud: AUDIENCE[0] } });
    expect(issuer.jwksFetches).toBe(2);
    expect(rotated.kid).not.toBe('key-1');
    // The retired key is gone from the published set: its tokens no longer pass.
    expect(await verify(before, AUDIENCE)).toEqual({ ok: false, code: 'kid' });
  });

  it('within the cooldown, an unknown kid is refused without fetching again', async () => {
    issuer = await startOidcIssuer();
    const verify = createOidcVerifier({
      issuer: issuer.issuer,
      jwksUrl: issuer.jwksUrl,
      cooldownMs: 60_000,
    });
    expect(await verify(await issuer.sign({ aud: AUDIENCE[0] }), AUDIENCE)).toMatchObject({
      ok: true,
    });
    await issuer.rotate();
    expect(await verify(await issuer.sign({ aud: AUDIENCE[0] }), AUDIENCE)).toEqual({
      ok: false,
      code: 'kid',
    });
    expect(issuer.jwksFetches).toBe(1);
  });

  it('answers jwks (503) when the key set cannot be fetched', async () => {
    issuer = await startOidcIssuer();
    const token = await issuer.sign({ aud: AUDIENCE[0] });
    const verify = createOidcVerifier({
      issuer: issuer.issuer,
      jwksUrl: `${issuer.issuer}/no-such-path`,
    });
    expect(await verify(token, AUDIENCE)).toEqual({ ok: false, code: 'jwks' });
  });
});
