import diagnostics from 'node:diagnostics_channel';
import { RequestError } from '@octokit/request-error';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { LogCapture, TEST_PRIVATE_KEY, TEST_WEBHOOK_SECRET } from '../helpers/app.js';
import {
  MAINTAINER,
  REPO,
  SPEC_EXAMPLE_PLAN,
  startScenario,
  type Scenario,
} from '../e2e/harness.js';
import { comments, pulls, type CheckRun } from './security-helpers.js';

/**
 * No credential ever reaches a log line, a comment, a check run or anything else the app
 * writes: the App's private key (whole, base64, or any line of it), the webhook secret, the
 * JWTs it signs and the installation tokens GitHub issues it. The scenario goes through the
 * paths that log the most: a failed attempt, rejected commands, a GitHub error inside a
 * handler (Probot's error carries the request, headers included, and the whole payload), a
 * delivery with a bad signature and a sweep.
 */
describe('secrets stay out of logs and comments', () => {
  let s: Scenario;
  let stopListening = () => {};
  afterEach(async () => {
    stopListening();
    try {
      s.double.assertNoViolations();
    } finally {
      await s.close();
    }
  });

  it('leaks nothing over a full run with failures and rejected commands', async () => {
    // Every credential the app sends to GitHub, as sent: undici announces each request it
    // creates, from its own package (the server's Octokit) and from Node's fetch alike.
    const sent = new Set<string>();
    const onRequest = (message: unknown) => {
      const { headers } = (message as { request: { headers: string[] | string } }).request;
      const lines = Array.isArray(headers)
        ? headers.flatMap((v, i) => (i % 2 === 0 ? [`${v}: ${headers[i + 1]}`] : []))
        : headers.split('\r\n');
      for (const line of lines) {
        const [, value] = /^authorization:\s*(.*)$/i.exec(line) ?? [];
        if (value) sent.add(value.replace(/^(bearer|token)\s+/i, ''));
      }
    };
    diagnostics.subscribe('undici:request:create', onRequest);
    stopListening = () => diagnostics.unsubscribe('undici:request:create', onRequest);

    s = await startScenario();
    await s.double.setPermission(REPO, 'a-reader', 'read');
    s.double.setWorker((run, ctx) =>
      run.inputs.task_id === 'task_002' && ctx.dispatchesOnBranch === 1
        ? { kind: 'fail' }
        : { kind: 'pr', costUsd: 0.25 },
    );
    // A GitHub error inside a handler: Probot logs it with its request and the payload.
    s.double.faults.add({
      method: 'GET',
      path: /\/collaborators\/a-reader\/permission$/,
      status: 500,
      body: { message: 'Server Error' },
    });

    const issue = await s.double.openIssue(REPO, {
      title: 'Login',
      body: `Add login.\n\n${SPEC_EXAMPLE_PLAN}`,
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    await s.double.comment(REPO, issue, '/approve task_001', 'a-reader'); // fails: 500
    await s.double.comment(REPO, issue, '/approve task_001', 'a-reader'); // rejected: read
    await s.double.comment(REPO, issue, '/aprove task_001', MAINTAINER); // did you mean
    await s.double.comment(REPO, issue, '/retry no_such_task', MAINTAINER); // rejected
    await s.settle();
    const forged = await s.app.send('issues', { action: 'opened' }, { secret: 'not-the-secret' });
    expect(forged.status).toBe(401);

    for (let round = 0; round < 6 && s.double.issue(REPO, issue)?.state === 'open'; round++) {
      for (const pr of pulls(s).filter((p) => p.state === 'open'))
        await s.double.comment(REPO, pr.number, '/approve', MAINTAINER);
      await s.settle();
    }
    await s.app.sweep();
    await s.settle();
    expect(s.double.issue(REPO, issue)?.state).toBe('closed');
    expect(
      s.double.runs(REPO).filter((r) => r.conclusion === 'failure').length,
    ).toBeGreaterThanOrEqual(1);

    // The secrets: what the app signed and was given, and what it was configured with.
    // The double keeps the installation tokens it issued in its state (not in its public API).
    const issued = [
      ...(s.double as unknown as { core: { tokens: Map<string, unknown> } }).core.tokens.keys(),
    ];
    const jwts = [...sent].filter((t) => t.split('.').length === 3);
    const tokens = [...new Set([...issued, ...[...sent].filter((t) => !jwts.includes(t))])];
    expect(jwts.length).toBeGreaterThan(0);
    expect(tokens.length).toBeGreaterThan(0);
    const keyLines = TEST_PRIVATE_KEY.split('\n').filter((l) => l !== '' && !l.startsWith('-----'));
    const secrets: Array<[what: string, value: string]> = [
      ['private key', TEST_PRIVATE_KEY.trim()],
      ['private key (base64)', Buffer.from(TEST_PRIVATE_KEY).toString('base64').slice(0, 64)],
      ['private key (one line)', TEST_PRIVATE_KEY.trim().replaceAll('\n', '\\n').slice(0, 80)],
      ...keyLines.map((line, i): [string, string] => [`private key line ${i + 1}`, line]),
      ['webhook secret', TEST_WEBHOOK_SECRET],
      ...jwts.map((jwt, i): [string, string] => [`JWT ${i + 1}`, jwt]),
      ...jwts.map((jwt, i): [string, string] => [`JWT ${i + 1} signature`, jwt.split('.')[2]!]),
      ...tokens.map((token, i): [string, string] => [`installation token ${i + 1}`, token]),
    ];

    // Everything captured: the app's log lines, every comment and check run in the double,
    // and every request body the app sent to GitHub (dispatch inputs, comments, check runs).
    const numbers = new Set<number>([issue, ...pulls(s).map((p) => p.number)]);
    const shas = new Set(pulls(s).map((p) => p.head.sha));
    const metrics = await (await fetch(`${s.app.url}/metrics`)).text();
    const places: Array<[where: string, text: string]> = [
      ['logs', s.app.logs.text()],
      ['comments', [...numbers].flatMap((n) => comments(s, n).map((c) => c.body)).join('\n')],
      [
        'check runs',
        JSON.stringify([...shas].flatMap((sha) => s.double.checkRuns(REPO, sha) as CheckRun[])),
      ],
      ['requests to GitHub', JSON.stringify(s.double.requests.map((r) => [r.path, r.body]))],
      ['metrics', metrics],
    ];
    expect(s.app.logs.lines.length).toBeGreaterThan(100);

    const leaks = places.flatMap(([where, text]) =>
      secrets.filter(([, value]) => text.includes(value)).map(([what]) => `${what} in ${where}`),
    );
    expect(leaks).toEqual([]);

    // The error path above was logged, request and all: redaction was exercised, not skipped.
    const errors = s.app.logs.lines.filter((l) => l.includes('"status":500'));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join('\n')).toMatch(/"authorization":"(\[redacted\]|token \[REDACTED\])"/);
  });
});

/**
 * The redaction itself, on the shapes Probot and Octokit log: an Octokit RequestError, the
 * AggregateError Probot wraps handler errors in (logged as `aggregateErrors`), and objects carrying configuration. Octokit censors its own errors' headers; these
 * errors are built raw, so the logger is the only thing standing between them and the log.
 */
describe('the logger redaction', () => {
  const TOKEN = 'ghs_0123456789abcdefRAWTOKEN';
  const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOjQyNDJ9.c2lnbmF0dXJlUkFX';
  const withHeaders = (message: string, authorization: string) =>
    Object.assign(new Error(message), {
      request: { method: 'GET', url: 'https://api.github.com/x', headers: { authorization } },
    });

  it.each<[string, (log: ReturnType<typeof createLogger>) => void]>([
    [
      'an Octokit RequestError',
      (log) =>
        log.error(
          {
            err: new RequestError('boom', 500, {
              request: {
                method: 'POST',
                url: 'https://api.github.com/app/installations/1/access_tokens',
                headers: { authorization: `bearer ${JWT}` },
              },
              response: { status: 500, url: 'x', headers: {}, data: {} },
            }),
          },
          'request failed',
        ),
    ],
    [
      'an error with raw request headers',
      (log) => log.error({ err: withHeaders('x', `token ${TOKEN}`) }, 'x'),
    ],
    [
      "Probot's AggregateError",
      (log) =>
        log.error(
          {
            err: new AggregateError([
              withHeaders('a', `token ${TOKEN}`),
              withHeaders('b', `bearer ${JWT}`),
            ]),
          },
          'handler failed',
        ),
    ],
    ['request headers', (log) => log.info({ headers: { authorization: `token ${TOKEN}` } }, 'x')],
    [
      'configuration',
      (log) =>
        log.info(
          {
            token: TOKEN,
            privateKey: TEST_PRIVATE_KEY,
            webhookSecret: TEST_WEBHOOK_SECRET,
            env: { privateKey: TEST_PRIVATE_KEY, webhookSecret: TEST_WEBHOOK_SECRET },
            auth: { token: TOKEN },
          },
          'config',
        ),
    ],
  ])('censors %s', (_, write) => {
    const out = new LogCapture();
    write(createLogger({ level: 'debug', destination: out }));
    const text = out.text();
    expect(text).toContain('[redacted]');
    for (const secret of [TOKEN, JWT, TEST_WEBHOOK_SECRET, TEST_PRIVATE_KEY.split('\n')[1]!])
      expect(text).not.toContain(secret);
  });
});
