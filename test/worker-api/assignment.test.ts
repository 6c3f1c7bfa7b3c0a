import { createPublicKey } from 'node:crypto';
import { SignJWT, base64url } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PUBLIC_URL } from '../helpers/app.js';
import { Exposition } from '../helpers/prometheus.js';
import { REPO, repositoryIdOf } from '../e2e/harness.js';
import {
  assignmentResponseSchema,
  WORKER_TOKEN_PERMISSIONS,
} from '../../src/protocol/assignment.js';
import { REFUSALS, type RefusalCode } from '../../src/worker-api/refusals.js';
import { FAILING_TEST_CHECK, THREE_THREAD_REVIEW } from '../worker/feedback-fixture.js';
import {
  ask,
  bodyOf,
  claimsOf,
  runsOn,
  startIssue,
  startWorkerWorld,
  type WorkerWorld,
} from './fixture.js';

const CONFIG =
  'retries:\n  max: 1\n  backoff: [0s]\nworker:\n  network:\n    allow: [registry.npmjs.org, "*.GitHubUserContent.com"]\n';

describe('POST /api/worker/assignment', () => {
  let w: WorkerWorld;
  let issue: number;
  const s = () => w.s;
  const runOf = (task: string, attempt = 0) => runsOn(s(), issue, task)[attempt]!;
  /** A token for the task's run as GitHub would mint it, with `change` applied. */
  const tokenFor = (task: string, change: Record<string, unknown> = {}, attempt = 0) =>
    w.issuer.sign({ ...claimsOf(s(), runOf(task, attempt)), ...change });
  const expectRefused = (answer: { status: number; json: unknown }, code: RefusalCode) => {
    expect(answer.json).toEqual({ error: REFUSALS[code].error });
    expect(answer.status).toBe(REFUSALS[code].status);
  };

  beforeAll(async () => {
    w = await startWorkerWorld({ config: CONFIG });
    issue = await startIssue(s(), ['a', 'c', 'd']);
    expect(s().double.runs(REPO)).toHaveLength(3);
  });
  afterEach(() => s().double.assertNoViolations());
  afterAll(async () => w?.close());

  it('answers the dispatched run with a one-repository token and the whole assignment', async () => {
    const run = runOf('a');
    const answer = await ask(s(), `Bearer ${await tokenFor('a')}`, bodyOf(run));
    expect(answer.status).toBe(200);
    const body = assignmentResponseSchema.parse(answer.json);
    expect(body).toMatchObject({
      task_id: 'a',
      issue: String(issue),
      attempt: '1',
      mode: 'work',
      title: 'Task a',
      feedback: null,
      base: 'main',
      model: 'claude-sonnet-4-5',
      max_turns: '50',
      timeout_minutes: '10',
      // The author of the App's own PRs: the only one the worker takes a task branch's PR from.
      app_login: `${s().double.appSlug}[bot]`,
    });
    // The hosts the agent may reach, as the configuration lists them, in one spelling each.
    expect((answer.json as { network?: unknown }).network).toEqual({
      allow: ['registry.npmjs.org', '*.githubusercontent.com'],
    });
    expect(body.prompt).toContain('Do these.');
    // The token GitHub minted for it, asked for with exactly the worker's scope.
    const mint = s()
      .double.requests.filter(
        (r) => r.route === 'POST /app/installations/{installation_id}/access_tokens',
      )
      .at(-1)!;
    expect(mint.body).toEqual({
      repository_ids: [repositoryIdOf(s().double)],
      permissions: WORKER_TOKEN_PERMISSIONS,
    });
    expect(mint.status).toBe(201);
    expect(body.token).toMatch(/^ghs_/);
    expect(Date.parse(body.expires_at)).toBeGreaterThan(Date.now());
    // Neither token reaches the log.
    expect(s().app.logs.text()).not.toContain(body.token);
    expect(s().app.logs.text()).toContain('worker assignment granted');
  });

  it('passes on the review and checks stored with the attempt, and when the coordinator gives up on it', async () => {
    const { store } = s().app;
    const run = (await store.runs.latestRun(repositoryIdOf(s().double), issue))!;
    const task = (await store.runs.task(run.id, 'c'))!;
    const attempt = (await store.attempts.latestOf(task.id))!;
    await store.attempts.update(attempt.id, {
      review: { review: THREE_THREAD_REVIEW, checks: [FAILING_TEST_CHECK] },
    });
    const answer = await ask(s(), `Bearer ${await tokenFor('c')}`, bodyOf(runOf('c')));
    expect(answer.status).toBe(200);
    const body = assignmentResponseSchema.parse(answer.json);
    expect(body.review).toEqual(THREE_THREAD_REVIEW);
    expect(body.checks).toEqual([FAILING_TEST_CHECK]);
    // The sweep's limit: the timeout (10 minutes here) counted from the dispatch.
    const dispatched = (attempt.dispatchedAt ?? attempt.intentAt).getTime();
    expect(Date.parse(body.deadline_at!)).toBe(dispatched + 10 * 60_000);

    // A record that does not parse is left out; the text feedback still goes.
    await store.attempts.update(attempt.id, { review: { review: { reviewer: 3 } } });
    const again = await ask(s(), `Bearer ${await tokenFor('c')}`, bodyOf(runOf('c')));
    expect(again.status).toBe(200);
    expect(again.json).not.toHaveProperty('review');
    expect(again.json).not.toHaveProperty('checks');
    await store.attempts.update(attempt.id, { review: null });
  });

  it('answers again while the run is in progress', async () => {
    await s().double.startWorkflowRun(runOf('a').id as number);
    await s().settle();
    const token = await tokenFor('a');
    const first = await ask(s(), `Bearer ${token}`, bodyOf(runOf('a')));
    const second = await ask(s(), `Bearer ${token}`, bodyOf(runOf('a')));
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.json['token']).not.toBe(first.json['token']);
  });

  it('charges the attempt what its publish job says the agent spent, never less than it was', async () => {
    const { store } = s().app;
    const run = (await store.runs.latestRun(repositoryIdOf(s().double), issue))!;
    const attempt = (await store.attempts.latestOf((await store.runs.task(run.id, 'd'))!.id))!;
    const token = await tokenFor('d');
    const say = (cost_usd: number, input_tokens: number, output_tokens: number) =>
      ask(
        s(),
        `Bearer ${token}`,
        JSON.stringify({ ...bodyOf(runOf('d')), usage: { cost_usd, input_tokens, output_tokens } }),
      );
    expect((await say(0.25, 1000, 200)).status).toBe(200);
    expect(await store.attempts.byTaskAttempt(attempt.taskId, 1)).toMatchObject({
      costUsd: 0.25,
      inputTokens: 1000,
      outputTokens: 200,
    });
    // A token refreshed later says it again; a smaller figure lowers nothing.
    expect((await say(0.1, 5000, 100)).status).toBe(200);
    expect(await store.attempts.byTaskAttempt(attempt.taskId, 1)).toMatchObject({
      costUsd: 0.25,
      inputTokens: 5000,
      outputTokens: 200,
    });
  });

  it('refuses usage it cannot charge (400)', async () => {
    const token = await tokenFor('d');
    const usage = { cost_usd: 1, input_tokens: 1, output_tokens: 1 };
    for (const bad of [
      { ...usage, cost_usd: -1 },
      { ...usage, cost_usd: 1e7 },
      { ...usage, input_tokens: 1.5 },
      { ...usage, output_tokens: Number.MAX_SAFE_INTEGER + 2 },
      { ...usage, cost_usd: '1' },
      { ...usage, extra: 1 },
      { cost_usd: 1 },
    ])
      expectRefused(
        await ask(s(), `Bearer ${token}`, JSON.stringify({ ...bodyOf(runOf('d')), usage: bad })),
        'body',
      );
  });

  describe('refuses a bad token (401)', () => {
    it('without a bearer token', async () => {
      expectRefused(await ask(s(), undefined, bodyOf(runOf('a'))), 'authorization');
      expectRefused(await ask(s(), 'token abc', bodyOf(runOf('a'))), 'authorization');
    });

    it('signed by a key the issuer does not publish (same kid)', async () => {
      const stranger = await w.issuer.strangerKey();
      const token = await w.issuer.sign(claimsOf(s(), runOf('a')), { key: stranger });
      expectRefused(await ask(s(), `Bearer ${token}`, bodyOf(runOf('a'))), 'signature');
    });

    it('with alg none', async () => {
      const encode = (v: unknown) => base64url.encode(JSON.stringify(v));
      const now = Math.floor(Date.now() / 1000);
      const token = `${encode({ alg: 'none', typ: 'JWT', kid: w.issuer.key.kid })}.${encode({
        ...claimsOf(s(), runOf('a')),
        iss: w.issuer.issuer,
        iat: now,
        exp: now + 300,
      })}.`;
      expectRefused(await ask(s(), `Bearer ${token}`, bodyOf(runOf('a'))), 'alg');
    });

    it('HS256-signed with the public key', async () => {
      const pem = createPublicKey({ key: w.issuer.key.publicJwk as never, format: 'jwk' })
        .export({ type: 'spki', format: 'pem' })
        .toString();
      const token = await new SignJWT({ ...claimsOf(s(), runOf('a')), iss: w.issuer.issuer })
        .setProtectedHeader({ alg: 'HS256', kid: w.issuer.key.kid })
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(pem));
      expectRefused(await ask(s(), `Bearer ${token}`, bodyOf(runOf('a'))), 'alg');
    });

    it('with a kid the issuer does not publish', async () => {
      const stranger = await w.issuer.strangerKey('unknown-kid');
      const token = await w.issuer.sign(claimsOf(s(), runOf('a')), { key: stranger });
      expectRefused(await ask(s(), `Bearer ${token}`, bodyOf(runOf('a'))), 'kid');
    });

    it('expired', async () => {
      const now = Math.floor(Date.now() / 1000);
      const token = await tokenFor('a', { iat: now - 900, nbf: now - 900, exp: now - 300 });
      expectRefused(await ask(s(), `Bearer ${token}`, bodyOf(runOf('a'))), 'exp');
    });

    it('for another audience', async () => {
      const token = await tokenFor('a', { aud: 'https://github.com/octo-org' });
      expectRefused(await ask(s(), `Bearer ${token}`, bodyOf(runOf('a'))), 'aud');
    });

    it('from another issuer', async () => {
      const token = await tokenFor('a', { iss: 'https://token.actions.githubusercontent.com' });
      expectRefused(await ask(s(), `Bearer ${token}`, bodyOf(runOf('a'))), 'iss');
    });
  });

  describe('refuses a good token for something else (403)', () => {
    it('from a run not started by workflow_dispatch', async () => {
      const token = await tokenFor('a', { event_name: 'push' });
      expectRefused(await ask(s(), `Bearer ${token}`, bodyOf(runOf('a'))), 'event_name');
    });

    it('from another repository', async () => {
      const token = await tokenFor('a', { repository_id: '987654321', repository: 'evil/fork' });
      expectRefused(await ask(s(), `Bearer ${token}`, bodyOf(runOf('a'))), 'repository_id');
    });

    it('from another branch', async () => {
      const token = await tokenFor('a', { ref: 'refs/heads/main' });
      expectRefused(await ask(s(), `Bearer ${token}`, bodyOf(runOf('a'))), 'ref');
      // The body naming another task than the token's branch is the same refusal.
      const ownToken = await tokenFor('a');
      expectRefused(
        await ask(s(), `Bearer ${ownToken}`, { ...bodyOf(runOf('a')), task_id: 'c' }),
        'ref',
      );
    });

    it('from another workflow', async () => {
      const ref = `refs/heads/agent/${issue}/a`;
      const token = await tokenFor('a', {
        workflow_ref: `${REPO}/.github/workflows/release.yml@${ref}`,
      });
      expectRefused(await ask(s(), `Bearer ${token}`, bodyOf(runOf('a'))), 'workflow_ref');
    });

    it('from a run the coordinator did not dispatch (a person dispatched it by hand)', async () => {
      const user = s().double.createUserToken('maintainer');
      const res = await fetch(
        `${s().double.apiUrl}/repos/${REPO}/actions/workflows/agent-worker.yml/dispatches`,
        {
          method: 'POST',
          headers: { authorization: `token ${user}`, 'content-type': 'application/json' },
          body: JSON.stringify({ ref: `agent/${issue}/a`, inputs: runOf('a').inputs }),
        },
      );
      expect(res.status).toBe(204);
      await s().settle();
      const byHand = runsOn(s(), issue, 'a').at(-1)!;
      expect(byHand.id).not.toBe(runOf('a').id);
      const token = await w.issuer.sign(claimsOf(s(), byHand));
      expectRefused(await ask(s(), `Bearer ${token}`, bodyOf(byHand)), 'run_id');
    });

    it("for a task's older attempt", async () => {
      await s().double.completeWorkflowRun(runOf('c').id as number, 'failure');
      await s().settle();
      await s().app.sweep();
      await s().settle();
      expect(runsOn(s(), issue, 'c').map((r) => r.inputs['attempt'])).toEqual(['1', '2']);
      // The first run's token, asking for its own (now old) attempt.
      const token = await tokenFor('c', {}, 0);
      expectRefused(await ask(s(), `Bearer ${token}`, bodyOf(runOf('c', 0))), 'attempt');
      // The first run's token asking for the new attempt: not the run dispatched for it.
      expectRefused(await ask(s(), `Bearer ${token}`, bodyOf(runOf('c', 1))), 'run_id');
      expect(
        (await ask(s(), `Bearer ${await tokenFor('c', {}, 1)}`, bodyOf(runOf('c', 1)))).status,
      ).toBe(200);
    });

    it('replayed after the run ended', async () => {
      const token = await tokenFor('c', {}, 1);
      const run = runOf('c', 1);
      expect((await ask(s(), `Bearer ${token}`, bodyOf(run))).status).toBe(200);
      await s().double.completeWorkflowRun(run.id as number, 'failure');
      await s().settle();
      // retries.max 1: no third attempt, so attempt 2 stays the latest, finished.
      expect(runsOn(s(), issue, 'c')).toHaveLength(2);
      expectRefused(await ask(s(), `Bearer ${token}`, bodyOf(run)), 'run_finished');
    });

    it('for a run GitHub says has finished, though its event has not arrived', async () => {
      s().double.webhooksDown = true;
      try {
        await s().double.completeWorkflowRun(runOf('d').id as number, 'success');
        const open = await s().app.store.attempts.open();
        expect(open.some((o) => o.task.taskKey === 'd')).toBe(true);
        const token = await tokenFor('d');
        expectRefused(await ask(s(), `Bearer ${token}`, bodyOf(runOf('d'))), 'run_finished');
      } finally {
        s().double.webhooksDown = false;
      }
    });
  });

  it('refuses a body that is not the three identifiers (400)', async () => {
    const token = await tokenFor('a');
    for (const body of [
      '',
      'null',
      '{"task_id":"a"}',
      '[1,2]',
      JSON.stringify({ ...bodyOf(runOf('a')), x: '1' }),
    ])
      expectRefused(await ask(s(), `Bearer ${token}`, body), 'body');
  });

  it('counts each refusal by the claim that failed, and logs it without the token', async () => {
    const token = await tokenFor('a', { aud: 'https://elsewhere.example' });
    await ask(s(), `Bearer ${token}`, bodyOf(runOf('a')));
    const metrics = new Exposition(await (await fetch(`${s().app.url}/metrics`)).text());
    const count = (outcome: string, claim: string) =>
      metrics.value('agent_coordinator_worker_assignments_total', { outcome, claim });
    expect(count('granted', '')).toBeGreaterThanOrEqual(4);
    for (const claim of [
      'authorization',
      'signature',
      'alg',
      'kid',
      'exp',
      'aud',
      'iss',
      'event_name',
      'repository_id',
      'ref',
      'workflow_ref',
      'run_id',
      'attempt',
      'run_finished',
      'body',
    ])
      expect(count('refused', claim), claim).toBeGreaterThanOrEqual(1);
    const refusals = s().app.logs.lines.filter((l) => l.includes('worker assignment refused'));
    expect(refusals.some((l) => l.includes('"claim":"aud"'))).toBe(true);
    expect(s().app.logs.text()).not.toContain(token);
    expect(s().app.logs.text()).not.toContain(TEST_PUBLIC_URL + '/api');
  });
});
