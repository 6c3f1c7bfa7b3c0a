import fc from 'fast-check';
import { base64url } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFUSALS } from '../../src/worker-api/refusals.js';
import {
  ask,
  bodyOf,
  claimsOf,
  runsOn,
  startIssue,
  startWorkerWorld,
  type WorkerWorld,
} from './fixture.js';

/** The claims the coordinator checks: changing any one of them must cost the assignment. */
const CHECKED = [
  'aud',
  'iss',
  'exp',
  'event_name',
  'repository_id',
  'ref',
  'workflow_ref',
  'run_id',
];
const ERRORS = new Set<string>(Object.values(REFUSALS).map((r) => r.error));

describe('malformed worker requests', () => {
  let w: WorkerWorld;
  let issue: number;
  beforeAll(async () => {
    w = await startWorkerWorld();
    issue = await startIssue(w.s, ['a']);
  });
  afterAll(async () => w?.close());

  it('never get a 5xx, a crash, or a token: in the answer or in the log', async () => {
    const run = runsOn(w.s, issue, 'a')[0]!;
    const claims = claimsOf(w.s, run);
    const segment = fc.oneof(
      fc.base64String().map((s) => s.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')),
      fc.jsonValue().map((v) => base64url.encode(JSON.stringify(v))),
      fc
        .record({
          alg: fc.constantFrom('RS256', 'none', 'HS256', 'ES256', 'PS256', ''),
          kid: fc.oneof(fc.constant(w.issuer.key.kid), fc.string()),
          typ: fc.constant('JWT'),
        })
        .map((h) => base64url.encode(JSON.stringify(h))),
    );
    const unsigned = fc.tuple(segment, segment, segment).map(([h, p, s]) => `${h}.${p}.${s}`);
    const mutatedClaims = fc
      .tuple(
        fc.subarray(CHECKED, { minLength: 1 }),
        fc.array(fc.jsonValue(), { minLength: CHECKED.length, maxLength: CHECKED.length }),
      )
      .map(([names, values]) => {
        const changed: Record<string, unknown> = { ...claims };
        names.forEach((name, i) => {
          changed[name] = values[i];
        });
        return changed;
      })
      // A value equal to the real one by chance would be no mutation.
      .filter((changed) =>
        CHECKED.some((n) => JSON.stringify(changed[n]) !== JSON.stringify(claims[n])),
      );
    const signed = mutatedClaims.map((c) => ({ sign: c }));
    const tampered = fc.nat().map((at) => ({ tamper: at }));
    const tokenSpec = fc.oneof(unsigned, fc.string(), signed, tampered);
    const header = fc.oneof(
      tokenSpec.map((t) => ({ scheme: 'Bearer ', token: t })),
      fc.string().map((raw) => ({ raw })),
    );
    const body = fc.oneof(
      fc.string(),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc
        .record(
          { task_id: fc.jsonValue(), issue: fc.jsonValue(), attempt: fc.jsonValue() },
          { requiredKeys: [] },
        )
        .map((b) => JSON.stringify(b)),
      fc.constant(JSON.stringify(bodyOf(run))),
      fc.constant('{"__proto__":{"task_id":"a"},"constructor":{"prototype":{}}}'),
    );

    const seen: string[] = [];
    await fc.assert(
      fc.asyncProperty(header, body, async (h, b) => {
        let authorization: string;
        if ('raw' in h) authorization = h.raw;
        else if (typeof h.token === 'string') authorization = h.scheme + h.token;
        else if ('sign' in h.token) {
          const claimsToSign = h.token.sign;
          authorization =
            h.scheme +
            (await w.issuer
              .sign(claimsToSign)
              // jose refuses to sign some claim values (a non-string iss): sign the rest.
              .catch(() => w.issuer.sign({ ...claimsToSign, iss: undefined })));
        } else {
          const valid = await w.issuer.sign(claims);
          const at = h.token.tamper % valid.length;
          const flipped = valid[at] === 'A' ? 'B' : 'A';
          authorization = `${h.scheme}${valid.slice(0, at)}${flipped}${valid.slice(at + 1)}`;
        }
        const answer = await ask(w.s, authorization, b);
        expect([400, 401, 403], answer.text).toContain(answer.status);
        expect(ERRORS.has(String(answer.json['error'])), answer.text).toBe(true);
        expect(Object.keys(answer.json)).toEqual(['error']);
        seen.push(authorization.replace(/^Bearer /, ''));
      }),
      { numRuns: 150 },
    );
    const logs = w.s.app.logs.text();
    for (const token of seen) if (token.length >= 16) expect(logs).not.toContain(token);
    // Still answering, and still right.
    const fine = await ask(w.s, `Bearer ${await w.issuer.sign(claims)}`, bodyOf(run));
    expect(fine.status).toBe(200);
    expect(logs).not.toContain(String(fine.json['token']));
  });
});
